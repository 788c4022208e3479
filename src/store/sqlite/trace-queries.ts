// Traces on SQLite: the ingest transaction (trace rows and their rollups together), and the primitive reads the shared
// plan (src/store/trace-reads.ts) is answered with — no request scans the table.
import type Database from 'better-sqlite3'
import type { Trace, TraceSummary } from '../../../schemas/index.js'
import { toUtcIso } from '../../lib/time.js'
import { REBUILD_CHUNK, ROLLUP_SOURCE_COLUMNS, type RollupRow, rollupInput } from '../rollup-rebuild.js'
import {
  addExcluded,
  type HistogramRow,
  ROLLUP_TABLES,
  type RollupDeltas,
  removalDeltas,
  rollupDeltas,
  SUM_COLUMNS,
  TOTALS_COUNTS,
} from '../rollups.js'
import { SUMMARY_KEYS, storedTrace, TRACE_KEYS } from '../stored-trace.js'
import {
  createTraceReads,
  type ExtraConditions,
  type HourRow,
  type Selection,
  type TotalsRow,
  type TraceReadQueries,
  traceWhere,
  walkChunks,
} from '../trace-reads.js'
import type { DeletedTrace, DeleteSelection, InsertOutcome, TraceFilter } from '../types.js'
import type { TraceRow } from './tables.js'

/** A traces row as better-sqlite3 returns it: JSON columns still text. */
type RawTraceRow = Omit<TraceRow, 'tags' | 'metadata' | 'steps' | 'tokens_reported'> & {
  tags: string
  metadata: string
  steps: string
  /** SQLite keeps a boolean as 0 or 1. */
  tokens_reported: number
}

const COLUMNS = TRACE_KEYS

type RawSummaryRow = Omit<TraceSummary, 'tags' | 'created_at' | 'tokens_reported'> & {
  tags: string
  created_at: number
  tokens_reported: number
}
const summaryFromRow = (row: RawSummaryRow): TraceSummary => ({
  ...row,
  tags: JSON.parse(row.tags),
  tokens_reported: row.tokens_reported === 1,
  created_at: toUtcIso(row.created_at),
})

const fromRow = (row: RawTraceRow): Trace =>
  storedTrace({ ...row, tokens_reported: row.tokens_reported === 1, created_at: toUtcIso(row.created_at) })

const toRow = (t: Trace) => ({
  ...t,
  created_at: Date.parse(t.created_at),
  tokens_reported: t.tokens_reported ? 1 : 0,
  tags: JSON.stringify(t.tags),
  metadata: JSON.stringify(t.metadata),
  steps: JSON.stringify(t.steps),
})

export function createTraceQueries(db: Database.Database) {
  const cache = new Map<string, Database.Statement>()
  /** Statements are prepared once per distinct SQL text. */
  const stmt = (text: string) => {
    let s = cache.get(text)
    if (!s) {
      s = db.prepare(text)
      cache.set(text, s)
    }
    return s
  }

  const insertTrace = db.prepare(
    `insert into traces (${COLUMNS.join(', ')}) values (${COLUMNS.map((c) => `@${c}`).join(', ')})
     on conflict (trace_id) do nothing`,
  )
  const traceById = db.prepare('select * from traces where trace_id = ?')
  const upsert = (table: string, keys: readonly string[], counted: readonly string[]) => {
    const columns = [...keys, ...counted]
    return db.prepare(
      `insert into ${table} (${columns.join(', ')}) values (${columns.map((c) => `@${c}`).join(', ')})
       on conflict (${keys.join(', ')}) do update set ${addExcluded(table, counted)}`,
    )
  }
  const upsertTotals = upsert('rollup_totals', ['project_id', 'environment', 'model', 'status'], TOTALS_COUNTS)
  const upsertHourly = upsert('rollup_hourly', ['project_id', 'hour'], ['traces', ...SUM_COLUMNS])
  const upsertHistogram = (table: string) =>
    db.prepare(
      `insert into ${table} (project_id, bucket, traces) values (@project_id, @bucket, @traces)
       on conflict (project_id, bucket) do update set traces = traces + excluded.traces`,
    )
  const upsertLatency = upsertHistogram('latency_histogram')
  const upsertTokens = upsertHistogram('token_histogram')

  /** Adds what some traces count to every rollup (inside the caller's transaction). */
  const applyDeltas = (deltas: RollupDeltas) => {
    for (const row of deltas.totals) upsertTotals.run(row)
    for (const row of deltas.hourly) upsertHourly.run(row)
    for (const row of deltas.latency) upsertLatency.run(row)
    for (const row of deltas.tokens) upsertTokens.run(row)
  }

  /** Trace rows and their rollups in one transaction: a crash keeps both or neither. */
  const insertBatch = db.transaction((batch: readonly Trace[]): InsertOutcome[] => {
    const created: Trace[] = []
    const outcomes = batch.map((trace): InsertOutcome => {
      if (insertTrace.run(toRow(trace)).changes === 1) {
        created.push(trace)
        return { kind: 'created', trace }
      }
      const existing = traceById.get(trace.trace_id) as RawTraceRow
      return existing.project_id === trace.project_id
        ? { kind: 'exists', trace: fromRow(existing) }
        : { kind: 'conflict', trace_id: trace.trace_id }
    })
    applyDeltas(rollupDeltas(created))
    return outcomes
  })

  const rollupSource = db.prepare(
    `select rowid as cursor, ${ROLLUP_SOURCE_COLUMNS} from traces where rowid > ? order by rowid limit ?`,
  )
  const deleteById = db.prepare('delete from traces where trace_id = ?')
  const dropEmptyRows = ROLLUP_TABLES.map((table) => db.prepare(`delete from ${table} where traces = 0`))

  /**
   * Deletes the oldest matches and takes them out of the rollups, in one transaction: the exact inverse of
   * insertBatch (removalDeltas), then rollup rows left at zero traces go, as a recount would never have them.
   */
  const deleteBatch = db.transaction(({ filter, trace_ids, limit }: DeleteSelection): DeletedTrace[] => {
    const w = where(filter, trace_ids ? { traceIds: trace_ids } : {})
    const rows = stmt(
      `select trace_id, ${ROLLUP_SOURCE_COLUMNS} from traces ${w.sql} order by created_at, trace_id limit ?`,
    ).all(...w.params, limit) as (RollupRow & { trace_id: string })[]
    if (rows.length === 0) return []
    for (const row of rows) deleteById.run(row.trace_id)
    applyDeltas(removalDeltas(rows.map(rollupInput)))
    for (const drop of dropEmptyRows) drop.run()
    return rows.map((r) => ({ trace_id: r.trace_id, project_id: r.project_id }))
  })
  /** Every rollup recounted from the traces, in one transaction (see rollup-rebuild.ts). */
  const rebuildRollups = db.transaction(() => {
    for (const table of ROLLUP_TABLES) db.prepare(`delete from ${table}`).run()
    let cursor = 0
    for (;;) {
      const rows = rollupSource.all(cursor, REBUILD_CHUNK) as (RollupRow & { cursor: number })[]
      if (rows.length === 0) break
      applyDeltas(rollupDeltas(rows.map(rollupInput)))
      cursor = rows.at(-1)!.cursor
    }
    db.prepare(`delete from loupe_meta where key = 'rollups_stale'`).run()
  })

  const projectScope = (projectId: string | undefined) =>
    projectId === undefined ? { sql: '', params: [] } : { sql: 'where project_id = ?', params: [projectId] }

  const HISTOGRAMS = { latency: 'latency_histogram', tokens: 'token_histogram' } as const
  const COLUMN = { latency: 'latency', tokens: 'token_count' } as const

  /** The filter's WHERE clause with `?` markers, and its values in order. */
  const where = (f: TraceFilter, extra: ExtraConditions = {}) => {
    const params: unknown[] = []
    const text = traceWhere(f, extra, (value) => {
      params.push(value)
      return '?'
    })
    return { sql: text, params }
  }

  /** A page of rows, newest first. SQLite's planner cannot tell a selective range from a wide one: the shared plan names the index to walk. */
  const selectPage = (columns: string, { filter, extra, limit, offset, walk }: Selection) => {
    const scoped = filter.project_id !== undefined ? 'project_' : ''
    const hint = walk ? `indexed by traces_${scoped}${walk}` : ''
    const w = where(filter, extra)
    return stmt(
      `select ${columns} from traces ${hint} ${w.sql} order by created_at desc, trace_id desc limit ? offset ?`,
    ).all(...w.params, limit, offset)
  }

  const queries: TraceReadQueries = {
    async totals(projectId) {
      const scope = projectScope(projectId)
      return stmt(
        `select project_id, environment, model, status, ${TOTALS_COUNTS.join(', ')} from rollup_totals ${scope.sql}`,
      ).all(...scope.params) as TotalsRow[]
    },

    async histogram(kind, projectId) {
      const scope = projectScope(projectId)
      return stmt(
        `select bucket, sum(traces) as traces from ${HISTOGRAMS[kind]} ${scope.sql} group by bucket order by bucket`,
      ).all(...scope.params) as HistogramRow[]
    },

    async countBoundary(kind, projectId, from, below, max) {
      const column = COLUMN[kind]
      const project = projectId === undefined ? '' : 'project_id = ? and'
      const params = projectId === undefined ? [from, below, max] : [projectId, from, below, max]
      return (
        stmt(
          `select count(*) as n from traces where ${project} ${column} >= ? and ${column} < ? and ${column} <= ?`,
        ).get(...params) as { n: number }
      ).n
    },

    async hours(projectId) {
      const scope = projectScope(projectId)
      return stmt(
        `select hour, sum(traces) as traces from rollup_hourly ${scope.sql} group by hour order by hour desc`,
      ).all(...scope.params) as { hour: number; traces: number }[]
    },

    async hoursBetween(start, end, projectId) {
      const scope = projectId === undefined ? '' : 'and project_id = ?'
      return stmt(
        `select hour, sum(traces) as traces, ${SUM_COLUMNS.map((c) => `sum(${c}) as ${c}`).join(', ')}
         from rollup_hourly where hour >= ? and hour < ? ${scope} group by hour`,
      ).all(...(projectId === undefined ? [start, end] : [start, end, projectId])) as HourRow[]
    },

    async count(f) {
      const w = where(f)
      return (stmt(`select count(*) as n from traces ${w.sql}`).get(...w.params) as { n: number }).n
    },

    async select(selection) {
      return (selectPage('*', selection) as RawTraceRow[]).map(fromRow)
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
  const reads = createTraceReads(queries)

  return {
    insertTraces: (batch: readonly Trace[]) => insertBatch(batch),

    /** Rebuilds every rollup when a migration marked them stale; true when it did. */
    rebuildRollupsIfStale(): boolean {
      const stale = db.prepare(`select 1 from loupe_meta where key = 'rollups_stale'`).get()
      if (stale) rebuildRollups()
      return stale !== undefined
    },

    /** Every stored trace, counted from the rollups. */
    count(): number {
      return (db.prepare('select coalesce(sum(traces), 0) as n from rollup_totals').get() as { n: number }).n
    },

    getTrace(traceId: string): Trace | null {
      const row = traceById.get(traceId) as RawTraceRow | undefined
      return row ? fromRow(row) : null
    },

    deleteTraces: (selection: DeleteSelection) => deleteBatch(selection),
    walkTraces: (filter: TraceFilter, chunk: number) =>
      walkChunks(async (after, limit) => reads.afterCursor(filter, after, limit), chunk),
    listTraces: reads.listTraces,
    listTraceSummaries: reads.listTraceSummaries,
    analytics: reads.analytics,
    failures: reads.failures,
  }
}
