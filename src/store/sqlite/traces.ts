// The trace store on SQLite: writes through trace-writes.ts (a file's deletions on the background worker), reads
// through the shared plan (src/store/trace-reads.ts), answered here with the primitive queries — prepared once, so
// that no request scans the traces table.
import type Database from 'better-sqlite3'
import type { Trace } from '../../../schemas/index.js'
import {
  HISTOGRAMS,
  orderBy,
  rollupReads,
  type Selection,
  scoredCountSql,
  scoresAlone,
  type TraceReadQueries,
  walkChunks,
} from '../read-queries.js'
import { repriceAll } from '../reprice.js'
import { keepsCount, REMOVALS_NOW } from '../search-counts.js'
import { SUMMARY_KEYS } from '../stored-trace.js'
import { createTraceReads } from '../trace-reads.js'
import type { TraceFilter, TraceStore } from '../types.js'
import type { SqliteContext } from './context.js'
import { fromValues, type RawSummaryRow, searchConditions, summaryFromRow, TRACE_COLUMNS, where } from './trace-rows.js'

/** The primitive queries the shared read plan is answered with (what activity.ts reads a session's traces with too). */
export function sqliteTraceReadQueries({
  sqlite,
  stmt,
  rawStmt,
  query,
  searchCounts,
}: SqliteContext): TraceReadQueries {
  const countNow = (f: TraceFilter): number => {
    const onlySearch =
      f.q !== undefined && Object.entries(f).every(([key, value]) => key === 'q' || value === undefined)
    if (onlySearch) {
      // The search index alone holds the answer: no trace row is read.
      const params: unknown[] = []
      const conditions = searchConditions(f.q!, (value) => {
        params.push(value)
        return '?'
      })
      return (stmt(`select count(*) as n from traces_search where ${conditions}`).get(...params) as { n: number }).n
    }
    const w = where(f)
    return (stmt(`select count(*) as n from traces ${w.sql}`).get(...w.params) as { n: number }).n
  }

  const countSearch = sqlite.transaction((f: TraceFilter): number => {
    const now = stmt(`select coalesce(max(rowid), 0) as top, ${REMOVALS_NOW} as removals from traces`).get() as {
      top: number
      removals: string
    }
    const kept = searchCounts.usable(f, now.removals, now.top)
    let n: number
    if (kept) {
      n = kept.n
      if (now.top > kept.horizon) {
        const w = where(f, {}, true)
        n += (
          stmt(`select count(*) as n from traces ${w.sql} and rowid > ? and rowid <= ?`).get(
            ...w.params,
            kept.horizon,
            now.top,
          ) as { n: number }
        ).n
      }
    } else {
      n = countNow(f)
    }
    searchCounts.keep(f, { removals: now.removals, horizon: now.top, n })
    return n
  })

  /** A page of rows, newest first. SQLite's planner cannot tell a selective range from a wide one: the shared plan names the index to walk. */
  const selectPage = (
    columns: string,
    { filter, extra, limit, offset, walk, ordering, probe }: Selection,
    prepare: (text: string) => Database.Statement = stmt,
  ) => {
    // SQLite's planner cannot tell a selective range from a wide one: the shared plan names the index to walk.
    const scoped = filter.project_id !== undefined ? 'project_' : ''
    const hint = walk ? `indexed by traces_${scoped}${walk}` : ''
    // A score order with no filter but its score's (and a project): the rollup's index leads, each trace looked up by
    // its id, the walk stopped after the page (the where is the whole FROM). With other filters, the planner weighs
    // their indexes.
    const lead = filter.scored_by !== undefined && scoresAlone(filter)
    const w = where(filter, extra, probe, lead)
    const from = lead ? w.sql : `traces ${hint} ${w.sql}`
    // SQLite sorts null first ascending and last descending: as the contract wants unpriced traces.
    return prepare(`select ${columns} from ${from} ${orderBy(ordering, false)} limit ? offset ?`).all(
      ...w.params,
      limit,
      offset,
    )
  }

  const queries: TraceReadQueries = {
    ...rollupReads(query),

    async countBoundary(kind, projectId, from, below, max) {
      const { column, scale } = HISTOGRAMS[kind]
      const project = projectId === undefined ? '' : 'project_id = ? and'
      const bounds = [from / scale, below / scale, max / scale]
      const params = projectId === undefined ? bounds : [projectId, ...bounds]
      return (
        stmt(
          `select count(*) as n from traces where ${project} ${column} >= ? and ${column} < ? and ${column} <= ?`,
        ).get(...params) as { n: number }
      ).n
    },

    async count(f) {
      if (keepsCount(f)) return countSearch(f)
      return countNow(f)
    },

    async countScored(f) {
      const params: unknown[] = []
      const text = scoredCountSql(
        f,
        (value) => {
          params.push(value)
          return '?'
        },
        // Named as a probe names it (trace-rows.ts): without statistics SQLite may read the (name, value) index.
        'scores indexed by scores_trace',
      )
      return (stmt(text).get(...params) as { n: number }).n
    },

    async select(selection) {
      return (selectPage(TRACE_COLUMNS, selection, rawStmt) as unknown[][]).map(fromValues)
    },

    async selectEach(selection, each) {
      return (await queries.select(selection)).map(each)
    },

    async selectSummaries(selection) {
      const columns = `${SUMMARY_KEYS.join(', ')}, json_array_length(steps) as step_count`
      return (selectPage(columns, selection) as RawSummaryRow[]).map(summaryFromRow)
    },

    async latencyAt(projectId, lo, hi, offset) {
      const project = projectId === undefined ? '' : 'project_id = ? and'
      const index = projectId === undefined ? 'traces_latency' : 'traces_project_latency'
      const params = projectId === undefined ? [lo, hi, offset] : [projectId, lo, hi, offset]
      const row = stmt(
        `select latency from traces indexed by ${index} where ${project} latency >= ? and latency < ?
         order by latency limit 1 offset ?`,
      ).get(...params) as { latency: number } | undefined
      return row?.latency
    },
  }
  return queries
}

export function createSqliteTraceStore(ctx: SqliteContext): TraceStore {
  const { writes, background, searchCounts, logRoom } = ctx
  const reads = createTraceReads(sqliteTraceReadQueries(ctx))
  return {
    async insert(batch) {
      await logRoom()
      return writes.insert(batch)
    },

    async get(traceId) {
      const row = ctx.rawStmt(`select ${TRACE_COLUMNS} from traces where trace_id = ?`).get(traceId) as
        | unknown[]
        | undefined
      return row ? fromValues(row) : null
    },

    list: reads.listTraces,
    listSummaries: reads.listTraceSummaries,
    analytics: reads.analytics,
    failures: reads.failures,

    walk<T>(filter: TraceFilter, chunk: number, each: (trace: Trace) => T) {
      return walkChunks(
        (after, limit, mark: (trace: Trace) => T) => reads.afterCursor(filter, after, limit, mark),
        chunk,
        each,
      )
    },

    /** Deletes in one transaction (a file's on the worker), then, once it committed, keeps the search counts past it. */
    async delete(selection) {
      const { deleted, counts } = background?.running()
        ? await background.deleteBatch(selection, searchCounts.kept())
        : writes.deleteBatch(selection, searchCounts.kept())
      searchCounts.passed(counts)
      return deleted
    },

    async reprice(since, reprice) {
      return repriceAll((from) => writes.repriceChunk(from, since ?? Number.MIN_SAFE_INTEGER, reprice))
    },
  }
}
