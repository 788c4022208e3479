// The read side of traces, shared by every store: how GET /traces, /analytics and /failures are answered from the
// rollups (src/store/rollups.ts) plus a few indexed seeks, so that no request scans the traces table. Each store
// supplies the primitive queries in its own dialect (TraceReadQueries); the plan and the arithmetic live here once.
import type { AnalyticsResponse, FailuresResponse, Trace, TraceSummary } from '../../schemas/index.js'
import {
  CHART_BUCKETS,
  chartPoints,
  chartWindow,
  HOUR_MS,
  meanLatencyMs,
  p95Index,
  percentage,
  RECENT_FAILURES,
  sortBreakdown,
  toCount,
} from '../analytics/math.js'
import {
  bucketBounds,
  type HistogramRow,
  locateRank,
  planRange,
  type RollupSums,
  sumRollups,
  type TotalsDelta,
  UNKNOWN_MODEL,
} from './rollups.js'
import type { AnalyticsParams, FailuresParams, Page, TraceFilter } from './types.js'

export type HistogramKind = 'latency' | 'tokens'

/** A rollup_totals row: the totals of one (project, environment, model, status). */
export type TotalsRow = TotalsDelta

/** The hourly rollup of one hour (summed over projects unless one is asked for). */
export interface HourRow extends RollupSums {
  hour: number
  traces: number
}

/** Conditions beyond a TraceFilter that the plans add. */
export interface ExtraConditions {
  /** retry_count > 0 */
  retried?: boolean
  /** created_at < this */
  createdBefore?: number
  /** trace_id is one of these. */
  traceIds?: readonly string[]
  /** Strictly after this trace in newest-first order: the keyset cursor of a walk over every match. */
  after?: TraceCursor
}

/** Where a newest-first walk stands: the last trace it read. */
export interface TraceCursor {
  created_at: number
  trace_id: string
}

/** The cursor just past a trace. */
export const cursorOf = (trace: Pick<Trace, 'created_at' | 'trace_id'>): TraceCursor => ({
  created_at: Date.parse(trace.created_at),
  trace_id: trace.trace_id,
})

/**
 * Every trace of a filter, newest first, in chunks of `chunk`: each chunk is one indexed keyset read (constant
 * memory, and each as fast as the first), so an export or a deletion of millions never holds more than a chunk.
 */
export async function* walkChunks(
  read: (after: TraceCursor | undefined, limit: number) => Promise<Trace[]>,
  chunk: number,
): AsyncGenerator<Trace[]> {
  let after: TraceCursor | undefined
  for (;;) {
    const rows = await read(after, chunk)
    if (rows.length > 0) yield rows
    if (rows.length < chunk) return
    after = cursorOf(rows.at(-1)!)
  }
}

/** A page of traces, newest first (created_at desc, trace_id desc). */
export interface Selection {
  filter: TraceFilter
  extra?: ExtraConditions
  limit: number
  offset: number
  /** Which index should drive the walk, when the store's planner needs telling (SQLite does; PostgreSQL decides). */
  walk?: 'latency' | 'tokens' | 'created'
}

/** The primitive queries a store answers in its own dialect. */
export interface TraceReadQueries {
  totals(projectId?: string): Promise<TotalsRow[]>
  /** Histogram rows of a project (or all, summed per bucket), bucket ascending. */
  histogram(kind: HistogramKind, projectId?: string): Promise<HistogramRow[]>
  /** Exact count of from ≤ v < below and v ≤ max, through the column's index. */
  countBoundary(
    kind: HistogramKind,
    projectId: string | undefined,
    from: number,
    below: number,
    max: number,
  ): Promise<number>
  /** Traces per hour (summed over projects unless one is given), newest hour first. */
  hours(projectId?: string): Promise<{ hour: number; traces: number }[]>
  /** Per-hour totals with start ≤ hour < end. */
  hoursBetween(start: number, end: number, projectId?: string): Promise<HourRow[]>
  /** select count(*) of a filter. */
  count(filter: TraceFilter): Promise<number>
  select(selection: Selection): Promise<Trace[]>
  /** The same page as `select`, as summaries (no bodies). */
  selectSummaries(selection: Selection): Promise<TraceSummary[]>
  /** The latency at 0-based rank `offset` among latencies lo ≤ v < hi (ascending). */
  latencyAt(projectId: string | undefined, lo: number, hi: number, offset: number): Promise<number | undefined>
}

/**
 * Reading one row costs about this many index entries stepped over (rows are ~2 KB and scattered; index entries
 * are small and adjacent). Measured on 1M traces (SQLite): a 50-row page through 1,700 full rows took 11 ms, through
 * the covering index 1 ms.
 */
const ROW_READ_COST_IN_INDEX_STEPS = 20
/** Offsets this deep are first narrowed to an hour through the hourly rollup. */
const DEEP_OFFSET = 5000

/** The WHERE clause of a filter: fixed column names, every value bound through `bind` (which returns its marker). */
export function traceWhere(f: TraceFilter, extra: ExtraConditions, bind: (value: unknown) => string): string {
  const clauses: string[] = []
  const cmp = (column: string, op: string, value: unknown) => {
    if (value !== undefined) clauses.push(`${column} ${op} ${bind(value)}`)
  }
  cmp('project_id', '=', f.project_id)
  cmp('status', '=', f.status)
  cmp('model', '=', f.model)
  cmp('environment', '=', f.environment)
  cmp('session_id', '=', f.session_id)
  cmp('user_id', '=', f.user_id)
  cmp('latency', '>=', f.min_latency)
  cmp('latency', '<=', f.max_latency)
  cmp('token_count', '>=', f.min_tokens)
  cmp('token_count', '<=', f.max_tokens)
  cmp('created_at', '>=', f.since)
  cmp('created_at', '<', f.until)
  if (extra.retried) clauses.push('retry_count > 0')
  cmp('created_at', '<', extra.createdBefore)
  if (extra.traceIds) clauses.push(`trace_id in (${extra.traceIds.map(bind).join(', ') || 'null'})`)
  if (extra.after) {
    // A row-value comparison: both databases walk the (…, created_at, trace_id) indexes with it.
    clauses.push(`(created_at, trace_id) < (${bind(extra.after.created_at)}, ${bind(extra.after.trace_id)})`)
  }
  return clauses.length ? `where ${clauses.join(' and ')}` : ''
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

const sum = <T>(rows: readonly T[], pick: (r: T) => number, where: (r: T) => boolean = () => true) =>
  rows.filter(where).reduce((n, r) => n + pick(r), 0)

function breakdown(rows: readonly TotalsRow[], key: (r: TotalsRow) => string) {
  const map = new Map<string, number>()
  for (const r of rows) map.set(key(r), (map.get(key(r)) ?? 0) + r.traces)
  return sortBreakdown([...map].map(([k, count]) => ({ key: k, count })))
}

export function createTraceReads(q: TraceReadQueries) {
  /** Exact count of a value range of one column, from its histogram plus at most two indexed boundary counts. */
  async function countRange(kind: HistogramKind, range: { min?: number; max?: number }, projectId?: string) {
    const plan = planRange(await q.histogram(kind, projectId), range)
    let total = plan.whole
    for (const b of plan.boundaries) total += await q.countBoundary(kind, projectId, b.from, b.below, b.max)
    return total
  }

  /** Whole hours from the hourly rollup, the partial hours at each end through the created_at index. */
  async function countTimeRange(projectId: string | undefined, since?: number, until?: number): Promise<number> {
    const from = since ?? Number.NEGATIVE_INFINITY
    const to = until ?? Number.POSITIVE_INFINITY
    if (to <= from) return 0
    const firstWhole = Number.isFinite(from) ? Math.ceil(from / HOUR_MS) * HOUR_MS : from
    const endWhole = Number.isFinite(to) ? Math.floor(to / HOUR_MS) * HOUR_MS : to
    const exact = (a: number, b: number) => q.count({ project_id: projectId, since: a, until: b })
    if (firstWhole >= endWhole) return exact(from, to)
    const whole = sum(
      await q.hours(projectId),
      (h) => h.traces,
      (h) => h.hour >= firstWhole && h.hour < endWhole,
    )
    const head = Number.isFinite(from) && from < firstWhole ? await exact(from, firstWhole) : 0
    const tail = Number.isFinite(to) && endWhole < to ? await exact(endWhole, to) : 0
    return whole + head + tail
  }

  /** Exact number of matches, without scanning the table for the filters a dashboard sends. */
  async function countTraces(f: TraceFilter): Promise<number> {
    const shape = shapeOf(f)
    const onlyProject = shape.dims.length === 0 || (shape.dims.length === 1 && shape.dims[0] === 'project_id')
    // Rollup dimensions only (a model filter matches the column exactly; the rollup folds null into `unknown`).
    if (!shape.latency && !shape.tokens && !shape.time && !shape.others && f.model !== UNKNOWN_MODEL) {
      return sum(
        await q.totals(f.project_id),
        (r) => r.traces,
        (r) =>
          (f.environment === undefined || r.environment === f.environment) &&
          (f.model === undefined || r.model === f.model) &&
          (f.status === undefined || r.status === f.status),
      )
    }
    if (onlyProject && shape.latency && !shape.tokens && !shape.time && !shape.others) {
      return countRange('latency', { min: f.min_latency, max: f.max_latency }, f.project_id)
    }
    if (onlyProject && shape.tokens && !shape.latency && !shape.time && !shape.others) {
      return countRange('tokens', { min: f.min_tokens, max: f.max_tokens }, f.project_id)
    }
    if (onlyProject && shape.time && !shape.latency && !shape.tokens && !shape.others) {
      return countTimeRange(f.project_id, f.since, f.until)
    }
    return q.count(f)
  }

  /** A page, newest first. Deep offsets are narrowed to their hour first; selective ranges walk their own index. */
  async function page<T = Trace>(
    f: TraceFilter,
    limit: number,
    offset: number,
    total: number,
    read: (selection: Selection) => Promise<T[]> = q.select as (selection: Selection) => Promise<T[]>,
  ): Promise<T[]> {
    const shape = shapeOf(f)
    // A value range is served either by walking the newest traces (the index carries latency and token_count, so
    // the walk steps over about (limit + offset) × scope / matches entries and reads only the page's rows), or
    // through the range's own index, reading every match and sorting them. The rollups give both sizes.
    let walk: Selection['walk']
    const range = shape.latency ? 'latency' : shape.tokens ? 'tokens' : null
    if (
      range &&
      !(shape.latency && shape.tokens) &&
      !shape.others &&
      !shape.time &&
      shape.dims.every((d) => d === 'project_id')
    ) {
      const scope = sum(await q.totals(f.project_id), (r) => r.traces)
      const newest = total === 0 ? Number.POSITIVE_INFINITY : ((limit + offset) * scope) / total
      walk = total * ROW_READ_COST_IN_INDEX_STEPS < newest ? range : 'created'
    }
    const extra: ExtraConditions = {}
    let skip = offset
    const plain =
      shape.dims.every((d) => d === 'project_id') && !shape.latency && !shape.tokens && !shape.time && !shape.others
    if (plain && offset >= DEEP_OFFSET) {
      // Skip whole hours (newest first) by their rollup counts, then step only within the hour the offset lands in.
      let before = 0
      for (const h of await q.hours(f.project_id)) {
        if (before + h.traces > offset) {
          extra.createdBefore = h.hour + HOUR_MS
          skip = offset - before
          break
        }
        before += h.traces
      }
    }
    return read({ filter: f, extra, limit, offset: skip, walk })
  }

  /** The exact p95 (nearest rank) of latency: the histogram finds the bucket, the index the value. */
  async function p95Latency(total: number, projectId?: string): Promise<number> {
    if (total === 0) return 0
    const at = locateRank(await q.histogram('latency', projectId), p95Index(total))
    if (!at) return 0
    const { lo, hi } = bucketBounds(at.bucket)
    return (await q.latencyAt(projectId, lo, hi, at.offset)) ?? 0
  }

  /** The counts /analytics and /failures share, from the rollups. */
  async function counts(projectId: string | undefined, slowThresholdMs: number) {
    const rows = await q.totals(projectId)
    const traces = (r: TotalsRow) => r.traces
    const withStatus = (status: string) => sum(rows, traces, (r) => r.status === status)
    return {
      rows,
      total: sum(rows, traces),
      success: withStatus('success'),
      failed: withStatus('failed'),
      warning: withStatus('warning'),
      retries: sum(rows, (r) => r.retries),
      tokensUnreported: sum(rows, (r) => r.tokens_unreported),
      ...sumRollups(rows),
      slow: await countRange('latency', { min: slowThresholdMs }, projectId),
    }
  }

  const newest = (filter: TraceFilter, limit: number, extra: ExtraConditions = {}) =>
    q.select({ filter, extra, limit, offset: 0 })

  return {
    /** One chunk of a newest-first walk over every match (see walkChunks). */
    afterCursor(filter: TraceFilter, after: TraceCursor | undefined, limit: number): Promise<Trace[]> {
      return q.select({ filter, extra: { after }, limit, offset: 0, walk: 'created' })
    },

    async listTraces(f: TraceFilter, p: Page): Promise<{ total: number; items: Trace[] }> {
      const total = await countTraces(f)
      return { total, items: total > p.offset ? await page(f, p.limit, p.offset, total) : [] }
    },

    async listTraceSummaries(f: TraceFilter, p: Page): Promise<{ total: number; items: TraceSummary[] }> {
      const total = await countTraces(f)
      return { total, items: total > p.offset ? await page(f, p.limit, p.offset, total, q.selectSummaries) : [] }
    },

    async analytics({ project_id, now, slowThresholdMs }: AnalyticsParams): Promise<AnalyticsResponse> {
      const c = await counts(project_id, slowThresholdMs)
      const { start, end } = chartWindow(now)
      const hours = await q.hoursBetween(start, end, project_id)
      return {
        summary: {
          total_traces: c.total,
          success_rate: percentage(c.success, c.total),
          average_latency: meanLatencyMs(c.latencyMicros, c.total),
          p95_latency: await p95Latency(c.total, project_id),
          total_token_usage: toCount(c.tokens),
          traces_without_tokens: c.tokensUnreported,
          failed_traces: c.failed,
          warning_traces: c.warning,
          retries: c.retries,
          slow_requests: c.slow,
        },
        charts: chartPoints(
          start,
          hours
            .map((h) => ({ bucket: (h.hour - start) / HOUR_MS, traces: h.traces, ...sumRollups([h]) }))
            .filter((h) => h.bucket >= 0 && h.bucket < CHART_BUCKETS),
        ),
        status_breakdown: breakdown(c.rows, (r) => r.status),
        model_breakdown: breakdown(c.rows, (r) => r.model),
        project_breakdown: breakdown(c.rows, (r) => r.project_id),
        recent_failures: await newest({ project_id, status: 'failed' }, RECENT_FAILURES),
      }
    },

    async failures({ project_id, limit, slowThresholdMs }: FailuresParams): Promise<FailuresResponse> {
      const c = await counts(project_id, slowThresholdMs)
      return {
        failed_traces: c.failed === 0 ? [] : await newest({ project_id, status: 'failed' }, limit),
        retries: c.retries === 0 ? [] : await newest({ project_id }, limit, { retried: true }),
        // Slow traces, newest first: few of them → through the latency index; many → a walk of the newest.
        slow_requests: c.slow === 0 ? [] : await page({ project_id, min_latency: slowThresholdMs }, limit, 0, c.slow),
        totals: { failed_traces: c.failed, retries: c.retries, slow_requests: c.slow },
      }
    },
  }
}
