// The trace store on PostgreSQL: writes in transactions (trace-writes.ts), reads through the shared plan
// (src/store/trace-reads.ts) inside one read-only snapshot per request, answered here with the primitive queries —
// named statements each connection prepares once.
import type pg from 'pg'
import type { QueryResultRow } from 'pg'
import type { Trace, TraceSummary } from '../../../schemas/index.js'
import { toUtcIso } from '../../lib/time.js'
import {
  HISTOGRAMS,
  orderBy,
  rollupReads,
  type Selection,
  scoredCountSql,
  type TraceReadQueries,
  walkChunks,
} from '../read-queries.js'
import { repriceAll } from '../reprice.js'
import { keepsCount, REMOVALS_NOW } from '../search-counts.js'
import { SUMMARY_KEYS } from '../stored-trace.js'
import { createTraceReads } from '../trace-reads.js'
import type { TraceFilter, TraceStore } from '../types.js'
import type { PostgresContext } from './context.js'
import { encodeText } from './nul.js'
import { eachRow, prepared, type Queryable, queryWith, statementName } from './statements.js'
import type { TraceRow } from './tables.js'
import { fromRow, type PostgresSearchCounts, SELECT_TRACE, where } from './trace-rows.js'
import { deleteTraces, insertTraces, repriceChunk } from './trace-writes.js'

/**
 * The exact total of a search, from the count kept by this instance when one is usable: the matches among the traces
 * of transactions that had all ended before its snapshot (xid below the snapshot's xmin — no trace can join them
 * later, whatever seq it holds), plus the matches among the traces of later transactions that this snapshot sees,
 * each tested as it is read through the xid index. The count is kept again up to this snapshot's own xmin. Runs
 * inside the read-only repeatable-read snapshot of the request (the trace store's), which the removal counter is read
 * in too.
 */
async function countSearch(db: Queryable, counts: PostgresSearchCounts, f: TraceFilter): Promise<number> {
  const [now] = await prepared<{ horizon: string; removals: string }>(
    db,
    `select pg_snapshot_xmin(pg_current_snapshot())::text as horizon, ${REMOVALS_NOW} as removals`,
    [],
  )
  const { horizon, removals } = now!
  const kept = counts.usable(f, removals, horizon)
  const w = where(f, {}, kept !== undefined)
  const n = w.params.length
  const [row] = kept
    ? await prepared<{ n: number; settled: number }>(
        db,
        `select count(*) as n, count(*) filter (where xid < $${n + 1}::xid8) as settled
         from traces ${w.sql} and xid >= $${n + 2}::xid8`,
        [...w.params, horizon, kept.horizon],
      )
    : await prepared<{ n: number; settled: number }>(
        db,
        `select count(*) as n, count(*) filter (where xid is null or xid < $${n + 1}::xid8) as settled
         from traces ${w.sql}`,
        [...w.params, horizon],
      )
  const base = kept?.n ?? 0
  counts.keep(f, { removals, horizon, n: base + (row?.settled ?? 0) })
  return base + (row?.n ?? 0)
}

/**
 * The primitive queries the shared read plan is answered with, over one connection (inside a read-only snapshot): what
 * activity.ts reads a session's traces with too.
 */
export function postgresTraceReadQueries(db: pg.ClientBase, searchCounts: PostgresSearchCounts): TraceReadQueries {
  /** A statement with the project condition (and its parameter) only when a project is given. */
  const scoped = (projectId: string | undefined, params: unknown[] = []) =>
    projectId === undefined
      ? { cond: 'true', params }
      : { cond: `project_id = $${params.length + 1}`, params: [...params, projectId] }

  /** The statement of a page of rows of `select` (a select … from traces) in the selection's order. */
  const pageQuery = (select: string, { filter, extra, limit, offset, ordering, probe, collect }: Selection) => {
    const w = where(filter, extra, probe)
    const n = w.params.length
    // The read plan's collection of a rare word's matches: planned at each run, with its words, which a generic plan
    // could not weigh; and in an order no index serves, which PostgreSQL, misjudging how many traces a word matches,
    // took the cost index for and tested trace after trace (a rare word sorted by cost: 1 s at 1M traces).
    const text = `${select} ${w.sql} ${orderBy(ordering, true, collect)} limit $${n + 1} offset $${n + 2}`
    return { text, values: [...w.params, limit, offset], name: collect ? undefined : statementName(text) }
  }

  /** A page of rows of `select`; PostgreSQL's planner picks the index. */
  const selectPage = async <R extends QueryResultRow>(select: string, selection: Selection) => {
    const { text, values, name } = pageQuery(select, selection)
    return (await db.query<R>(name === undefined ? { text, values } : { name, text, values })).rows
  }

  const queries: TraceReadQueries = {
    ...rollupReads(queryWith(db)),

    async countBoundary(kind, projectId, from, below, max) {
      const { column: c, scale } = HISTOGRAMS[kind]
      const s = scoped(projectId, [from / scale, below / scale, max / scale])
      const rows = await prepared<{ n: number }>(
        db,
        `select count(*) as n from traces where ${s.cond} and ${c} >= $1 and ${c} < $2 and ${c} <= $3`,
        s.params,
      )
      return rows[0]?.n ?? 0
    },

    async count(f) {
      if (keepsCount(f)) return countSearch(db, searchCounts, f)
      const w = where(f)
      const rows = await prepared<{ n: number }>(db, `select count(*) as n from traces ${w.sql}`, w.params)
      return rows[0]?.n ?? 0
    },

    async countScored(f) {
      const params: unknown[] = []
      const text = scoredCountSql(f, (value) => {
        params.push(typeof value === 'string' ? encodeText(value) : value)
        return `$${params.length}`
      })
      const rows = await prepared<{ n: number | string }>(db, text, params)
      return Number(rows[0]?.n ?? 0)
    },

    async select(selection) {
      return (await selectPage<TraceRow>(SELECT_TRACE, selection)).map(fromRow)
    },

    async selectEach(selection, each) {
      return eachRow<TraceRow, ReturnType<typeof each>>(db, pageQuery(SELECT_TRACE, selection), (row) =>
        each(fromRow(row)),
      )
    },

    async selectSummaries(selection) {
      const rows = await selectPage<Omit<TraceSummary, 'created_at'> & { created_at: number }>(
        `select ${SUMMARY_KEYS.join(', ')}, jsonb_array_length(steps) as step_count from traces`,
        selection,
      )
      return rows.map((row) => ({ ...row, created_at: toUtcIso(row.created_at) }))
    },

    async latencyAt(projectId, lo, hi, offset) {
      const s = scoped(projectId, [lo, hi, offset])
      const rows = await prepared<{ latency: number }>(
        db,
        `select latency from traces where ${s.cond} and latency >= $1 and latency < $2
         order by latency limit 1 offset $3`,
        s.params,
      )
      return rows[0]?.latency
    },
  }
  return queries
}

async function getTrace(db: Queryable, traceId: string): Promise<Trace | null> {
  // The directory names the project, so the read is a primary-key lookup (one shard once distributed).
  const [row] = await prepared<TraceRow>(
    db,
    `${SELECT_TRACE} where (project_id, trace_id) = (select project_id, trace_id from trace_ids where trace_id = $1)`,
    [traceId],
  )
  return row ? fromRow(row) : null
}

export function createPostgresTraceStore(ctx: PostgresContext): TraceStore {
  const { pool, transaction, snapshot, searchCounts } = ctx
  const reads = (client: pg.ClientBase) => createTraceReads(postgresTraceReadQueries(client, searchCounts))
  return {
    async insert(batch) {
      if (batch.length === 0) return []
      return transaction(async (client) => {
        const { outcomes, seqs } = await insertTraces(client, batch, { channel: ctx.channel, origin: ctx.origin })
        // Before the commit: a catch-up running meanwhile must already know these are ours.
        ctx.feed?.own(seqs)
        return outcomes
      })
    },

    async get(traceId) {
      return getTrace(pool, encodeText(traceId))
    },

    async list(filter, page) {
      return snapshot((client) => reads(client).listTraces(filter, page))
    },

    async listSummaries(filter, page) {
      return snapshot((client) => reads(client).listTraceSummaries(filter, page))
    },

    async analytics(params) {
      return snapshot((client) => reads(client).analytics(params))
    },

    async failures(params) {
      return snapshot((client) => reads(client).failures(params))
    },

    walk<T>(filter: TraceFilter, chunk: number, each: (trace: Trace) => T) {
      return walkChunks(
        (after, limit, mark: (trace: Trace) => T) =>
          snapshot((client) => reads(client).afterCursor(filter, after, limit, mark)),
        chunk,
        each,
      )
    },

    async delete(selection) {
      const { deleted, counts } = await transaction((client) => deleteTraces(client, selection, searchCounts))
      // Committed: the search counts this instance keeps are brought past the deletion.
      searchCounts.passed(counts)
      return deleted
    },

    async reprice(since, reprice) {
      return repriceAll((from) =>
        transaction((client) => repriceChunk(client, from, since ?? Number.MIN_SAFE_INTEGER, reprice)),
      )
    },
  }
}
