// Traces on SQLite: the ingest transaction (trace rows and their rollups together) and every read, planned so that
// no request scans the table — totals come from rollups, ranks and ranges from histograms plus one indexed seek.
import type Database from 'better-sqlite3'
import type { FailuresResponse, Trace } from '../../../schemas/index.js'
import {
  CHART_BUCKETS,
  chartPoints,
  chartWindow,
  HOUR_MS,
  mean,
  p95Index,
  percentage,
  RECENT_FAILURES,
  sortBreakdown,
} from '../../analytics/math.js'
import { toUtcIso } from '../../lib/time.js'
import { bucketBounds, countInRange, type HistogramRow, locateRank, rollupDeltas, UNKNOWN_MODEL } from '../rollups.js'
import { storedTrace } from '../stored-trace.js'
import type { AnalyticsParams, FailuresParams, InsertOutcome, Page, TraceFilter } from '../types.js'
import type { TraceRow } from './tables.js'

/** A traces row as better-sqlite3 returns it: JSON columns still text. */
type RawTraceRow = Omit<TraceRow, 'tags' | 'metadata' | 'steps'> & { tags: string; metadata: string; steps: string }

const COLUMNS = [
  'trace_id',
  'project_id',
  'environment',
  'name',
  'model',
  'prompt',
  'response',
  'latency',
  'token_count',
  'prompt_tokens',
  'completion_tokens',
  'status',
  'failure_reason',
  'retry_count',
  'session_id',
  'user_id',
  'tags',
  'metadata',
  'created_at',
  'steps',
] as const satisfies readonly (keyof TraceRow)[]

const fromRow = (row: RawTraceRow): Trace => storedTrace({ ...row, created_at: toUtcIso(row.created_at) })

const toRow = (t: Trace) => ({
  ...t,
  created_at: Date.parse(t.created_at),
  tags: JSON.stringify(t.tags),
  metadata: JSON.stringify(t.metadata),
  steps: JSON.stringify(t.steps),
})

/**
 * Reading one row costs about this many index entries stepped over (rows are ~2 KB and scattered; index entries
 * are small and adjacent). Measured on 1M traces: a 50-row page through 1,700 full rows took 11 ms, through the
 * covering index 1 ms.
 */
const ROW_READ_COST_IN_INDEX_STEPS = 20
/** Offsets this deep are first narrowed to an hour through the hourly rollup. */
const DEEP_OFFSET = 5000

interface Where {
  sql: string
  params: unknown[]
}

/** The WHERE clause of a filter: fixed column names, values always bound as parameters. */
function whereOf(f: TraceFilter, extra: string[] = [], extraParams: unknown[] = []): Where {
  const clauses: string[] = []
  const params: unknown[] = []
  const eq = (column: string, value: unknown) => {
    if (value === undefined) return
    clauses.push(`${column} = ?`)
    params.push(value)
  }
  const cmp = (column: string, op: string, value: number | undefined) => {
    if (value === undefined) return
    clauses.push(`${column} ${op} ?`)
    params.push(value)
  }
  eq('project_id', f.project_id)
  eq('status', f.status)
  eq('model', f.model)
  eq('environment', f.environment)
  eq('session_id', f.session_id)
  eq('user_id', f.user_id)
  cmp('latency', '>=', f.min_latency)
  cmp('latency', '<=', f.max_latency)
  cmp('token_count', '>=', f.min_tokens)
  cmp('token_count', '<=', f.max_tokens)
  cmp('created_at', '>=', f.since)
  cmp('created_at', '<', f.until)
  clauses.push(...extra)
  params.push(...extraParams)
  return { sql: clauses.length ? `where ${clauses.join(' and ')}` : '', params }
}

/** Which filters are set, by kind: the rollup dimensions, the ranges, and the rest. */
function shapeOf(f: TraceFilter) {
  const set = (k: keyof TraceFilter) => f[k] !== undefined
  const dims = (['project_id', 'environment', 'model', 'status'] as const).filter(set)
  const latency = set('min_latency') || set('max_latency')
  const tokens = set('min_tokens') || set('max_tokens')
  const time = set('since') || set('until')
  const others = set('session_id') || set('user_id')
  return { dims, latency, tokens, time, others }
}

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
  const upsertTotals = db.prepare(
    `insert into rollup_totals (project_id, environment, model, status, traces, retries, latency_sum, tokens)
     values (@project_id, @environment, @model, @status, @traces, @retries, @latency_sum, @tokens)
     on conflict (project_id, environment, model, status) do update set
       traces = traces + excluded.traces, retries = retries + excluded.retries,
       latency_sum = latency_sum + excluded.latency_sum, tokens = tokens + excluded.tokens`,
  )
  const upsertHourly = db.prepare(
    `insert into rollup_hourly (project_id, hour, traces, latency_sum, tokens)
     values (@project_id, @hour, @traces, @latency_sum, @tokens)
     on conflict (project_id, hour) do update set
       traces = traces + excluded.traces, latency_sum = latency_sum + excluded.latency_sum,
       tokens = tokens + excluded.tokens`,
  )
  const upsertHistogram = (table: string) =>
    db.prepare(
      `insert into ${table} (project_id, bucket, traces) values (@project_id, @bucket, @traces)
       on conflict (project_id, bucket) do update set traces = traces + excluded.traces`,
    )
  const upsertLatency = upsertHistogram('latency_histogram')
  const upsertTokens = upsertHistogram('token_histogram')

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
    const deltas = rollupDeltas(created)
    for (const row of deltas.totals) upsertTotals.run(row)
    for (const row of deltas.hourly) upsertHourly.run(row)
    for (const row of deltas.latency) upsertLatency.run(row)
    for (const row of deltas.tokens) upsertTokens.run(row)
    return outcomes
  })

  const projectScope = (projectId: string | undefined): Where =>
    projectId === undefined ? { sql: '', params: [] } : { sql: 'where project_id = ?', params: [projectId] }

  function histogram(table: 'latency_histogram' | 'token_histogram', projectId?: string): HistogramRow[] {
    const scope = projectScope(projectId)
    return stmt(`select bucket, sum(traces) as traces from ${table} ${scope.sql} group by bucket order by bucket`).all(
      ...scope.params,
    ) as HistogramRow[]
  }

  /** Exact count of a value range of one column, from its histogram plus at most two indexed boundary counts. */
  function countRange(column: 'latency' | 'token_count', range: { min?: number; max?: number }, projectId?: string) {
    const table = column === 'latency' ? 'latency_histogram' : 'token_histogram'
    const project = projectId === undefined ? '' : 'project_id = ? and'
    const boundary = stmt(
      `select count(*) as n from traces where ${project} ${column} >= ? and ${column} < ? and ${column} <= ?`,
    )
    return countInRange(histogram(table, projectId), range, (from, below, max) => {
      const params = projectId === undefined ? [from, below, max] : [projectId, from, below, max]
      return (boundary.get(...params) as { n: number }).n
    })
  }

  function totalsRows(projectId?: string) {
    const scope = projectScope(projectId)
    return stmt(
      `select project_id, environment, model, status, traces, retries, latency_sum, tokens from rollup_totals ${scope.sql}`,
    ).all(...scope.params) as {
      project_id: string
      environment: string
      model: string
      status: string
      traces: number
      retries: number
      latency_sum: number
      tokens: number
    }[]
  }

  /** Traces per hour, newest hour first, for the filter's project (or all). */
  function hourlyDesc(projectId?: string) {
    const scope = projectScope(projectId)
    return stmt(
      `select hour, sum(traces) as traces from rollup_hourly ${scope.sql} group by hour order by hour desc`,
    ).all(...scope.params) as { hour: number; traces: number }[]
  }

  /** Exact number of matches, without scanning the table for the filters a dashboard sends. */
  function countTraces(f: TraceFilter): number {
    const shape = shapeOf(f)
    const onlyProject = shape.dims.length === 0 || (shape.dims.length === 1 && shape.dims[0] === 'project_id')
    // Rollup dimensions only (a model filter matches the column exactly; the rollup folds null into `unknown`).
    if (!shape.latency && !shape.tokens && !shape.time && !shape.others && f.model !== UNKNOWN_MODEL) {
      return totalsRows(f.project_id)
        .filter(
          (r) =>
            (f.environment === undefined || r.environment === f.environment) &&
            (f.model === undefined || r.model === f.model) &&
            (f.status === undefined || r.status === f.status),
        )
        .reduce((n, r) => n + r.traces, 0)
    }
    if (onlyProject && shape.latency && !shape.tokens && !shape.time && !shape.others) {
      return countRange('latency', { min: f.min_latency, max: f.max_latency }, f.project_id)
    }
    if (onlyProject && shape.tokens && !shape.latency && !shape.time && !shape.others) {
      return countRange('token_count', { min: f.min_tokens, max: f.max_tokens }, f.project_id)
    }
    if (onlyProject && shape.time && !shape.latency && !shape.tokens && !shape.others) {
      return countTimeRange(f.project_id, f.since, f.until)
    }
    const where = whereOf(f)
    return (stmt(`select count(*) as n from traces ${where.sql}`).get(...where.params) as { n: number }).n
  }

  /** Whole hours from the hourly rollup, the partial hours at each end through the created_at index. */
  function countTimeRange(projectId: string | undefined, since?: number, until?: number): number {
    const from = since ?? Number.NEGATIVE_INFINITY
    const to = until ?? Number.POSITIVE_INFINITY
    if (to <= from) return 0
    const firstWhole = Number.isFinite(from) ? Math.ceil(from / HOUR_MS) * HOUR_MS : from
    const endWhole = Number.isFinite(to) ? Math.floor(to / HOUR_MS) * HOUR_MS : to
    const project = projectId === undefined ? '' : 'project_id = ? and'
    const exact = (a: number, b: number) => {
      const params = projectId === undefined ? [a, b] : [projectId, a, b]
      return (
        stmt(`select count(*) as n from traces where ${project} created_at >= ? and created_at < ?`).get(...params) as {
          n: number
        }
      ).n
    }
    if (firstWhole >= endWhole) return exact(from, to)
    const whole = hourlyDesc(projectId)
      .filter((h) => h.hour >= firstWhole && h.hour < endWhole)
      .reduce((n, h) => n + h.traces, 0)
    const head = Number.isFinite(from) && from < firstWhole ? exact(from, firstWhole) : 0
    const tail = Number.isFinite(to) && endWhole < to ? exact(endWhole, to) : 0
    return whole + head + tail
  }

  /** A page, newest first. Deep offsets are narrowed to their hour first; selective ranges walk their own index. */
  function page(f: TraceFilter, limit: number, offset: number, total: number): Trace[] {
    const shape = shapeOf(f)
    // A value range is served either by walking the newest traces (the index carries latency and token_count, so
    // the walk steps over about (limit + offset) × scope / matches entries and reads only the page's rows), or
    // through the range's own index, reading every match and sorting them. The rollups give both sizes.
    let indexHint = ''
    const range = shape.latency ? 'latency' : shape.tokens ? 'tokens' : null
    if (
      range &&
      !(shape.latency && shape.tokens) &&
      !shape.others &&
      !shape.time &&
      shape.dims.every((d) => d === 'project_id')
    ) {
      const scoped = f.project_id !== undefined
      const scope = totalsRows(f.project_id).reduce((n, r) => n + r.traces, 0)
      const walk = total === 0 ? Number.POSITIVE_INFINITY : ((limit + offset) * scope) / total
      const readAll = total * ROW_READ_COST_IN_INDEX_STEPS
      indexHint =
        readAll < walk
          ? `indexed by traces_${scoped ? 'project_' : ''}${range}`
          : `indexed by traces_${scoped ? 'project_' : ''}created`
    }
    let extra: string[] = []
    let extraParams: unknown[] = []
    let skip = offset
    const plain =
      shape.dims.every((d) => d === 'project_id') && !shape.latency && !shape.tokens && !shape.time && !shape.others
    if (plain && offset >= DEEP_OFFSET) {
      // Skip whole hours (newest first) by their rollup counts, then step only within the hour the offset lands in.
      let before = 0
      for (const h of hourlyDesc(f.project_id)) {
        if (before + h.traces > offset) {
          extra = ['created_at < ?']
          extraParams = [h.hour + HOUR_MS]
          skip = offset - before
          break
        }
        before += h.traces
      }
    }
    const where = whereOf(f, extra, extraParams)
    const rows = stmt(
      `select * from traces ${indexHint} ${where.sql} order by created_at desc, trace_id desc limit ? offset ?`,
    ).all(...where.params, limit, skip) as RawTraceRow[]
    return rows.map(fromRow)
  }

  function newest(f: TraceFilter, extra: string[], limit: number): Trace[] {
    const where = whereOf(f, extra)
    const rows = stmt(`select * from traces ${where.sql} order by created_at desc, trace_id desc limit ?`).all(
      ...where.params,
      limit,
    ) as RawTraceRow[]
    return rows.map(fromRow)
  }

  /** The exact p95 (nearest rank) of latency: the histogram finds the bucket, the index the value. */
  function p95Latency(total: number, projectId?: string): number {
    if (total === 0) return 0
    const at = locateRank(histogram('latency_histogram', projectId), p95Index(total))
    if (!at) return 0
    const { lo, hi } = bucketBounds(at.bucket)
    const project = projectId === undefined ? '' : 'project_id = ? and'
    const index = projectId === undefined ? 'traces_latency' : 'traces_project_latency'
    const params = projectId === undefined ? [lo, hi, at.offset] : [projectId, lo, hi, at.offset]
    const row = stmt(
      `select latency from traces indexed by ${index} where ${project} latency >= ? and latency < ?
       order by latency limit 1 offset ?`,
    ).get(...params) as { latency: number } | undefined
    return row?.latency ?? 0
  }

  /** The counts /analytics and /failures share, from the rollups. */
  function counts(projectId: string | undefined, slowThresholdMs: number) {
    const rows = totalsRows(projectId)
    const sum = (
      pick: (r: (typeof rows)[number]) => number,
      where: (r: (typeof rows)[number]) => boolean = () => true,
    ) => rows.filter(where).reduce((n, r) => n + pick(r), 0)
    return {
      rows,
      total: sum((r) => r.traces),
      success: sum(
        (r) => r.traces,
        (r) => r.status === 'success',
      ),
      failed: sum(
        (r) => r.traces,
        (r) => r.status === 'failed',
      ),
      warning: sum(
        (r) => r.traces,
        (r) => r.status === 'warning',
      ),
      retries: sum((r) => r.retries),
      latencySum: sum((r) => r.latency_sum),
      tokens: sum((r) => r.tokens),
      slow: countRange('latency', { min: slowThresholdMs }, projectId),
    }
  }

  function breakdown(rows: { traces: number }[], key: (r: never) => string) {
    const map = new Map<string, number>()
    for (const r of rows) map.set(key(r as never), (map.get(key(r as never)) ?? 0) + r.traces)
    return sortBreakdown([...map].map(([k, count]) => ({ key: k, count })))
  }

  /** Slow traces, newest first: few of them → through the latency index; many → a walk of the newest. */
  function slowest(projectId: string | undefined, slowThresholdMs: number, slowCount: number, limit: number) {
    const f: TraceFilter = { project_id: projectId, min_latency: slowThresholdMs }
    return page(f, limit, 0, slowCount)
  }

  return {
    insertTraces: (batch: readonly Trace[]) => insertBatch(batch),

    getTrace(traceId: string): Trace | null {
      const row = traceById.get(traceId) as RawTraceRow | undefined
      return row ? fromRow(row) : null
    },

    listTraces(f: TraceFilter, p: Page) {
      const total = countTraces(f)
      return { total, items: total > p.offset ? page(f, p.limit, p.offset, total) : [] }
    },

    analytics({ project_id, now, slowThresholdMs }: AnalyticsParams) {
      const c = counts(project_id, slowThresholdMs)
      const { start, end } = chartWindow(now)
      const scope = project_id === undefined ? '' : 'and project_id = ?'
      const hours = stmt(
        `select hour, sum(traces) as traces, sum(tokens) as tokens, sum(latency_sum) as latencySum
         from rollup_hourly where hour >= ? and hour < ? ${scope} group by hour`,
      ).all(...(project_id === undefined ? [start, end] : [start, end, project_id])) as {
        hour: number
        traces: number
        tokens: number
        latencySum: number
      }[]
      type Row = (typeof c.rows)[number]
      return {
        summary: {
          total_traces: c.total,
          success_rate: percentage(c.success, c.total),
          average_latency: mean(c.latencySum, c.total),
          p95_latency: p95Latency(c.total, project_id),
          total_token_usage: c.tokens,
          failed_traces: c.failed,
          warning_traces: c.warning,
          retries: c.retries,
          slow_requests: c.slow,
        },
        charts: chartPoints(
          start,
          hours
            .map((h) => ({ ...h, bucket: (h.hour - start) / HOUR_MS }))
            .filter((h) => h.bucket >= 0 && h.bucket < CHART_BUCKETS),
        ),
        status_breakdown: breakdown(c.rows, (r: Row) => r.status),
        model_breakdown: breakdown(c.rows, (r: Row) => r.model),
        project_breakdown: breakdown(c.rows, (r: Row) => r.project_id),
        recent_failures: newest({ project_id, status: 'failed' }, [], RECENT_FAILURES),
      }
    },

    failures({ project_id, limit, slowThresholdMs }: FailuresParams): FailuresResponse {
      const c = counts(project_id, slowThresholdMs)
      return {
        failed_traces: c.failed === 0 ? [] : newest({ project_id, status: 'failed' }, [], limit),
        retries: c.retries === 0 ? [] : newest({ project_id }, ['retry_count > 0'], limit),
        slow_requests: c.slow === 0 ? [] : slowest(project_id, slowThresholdMs, c.slow, limit),
        totals: { failed_traces: c.failed, retries: c.retries, slow_requests: c.slow },
      }
    },
  }
}
