// The read side of traces, shared by every store: how GET /traces, /analytics and /failures are answered from the
// rollups (src/store/rollups.ts) plus a few indexed seeks, so that no request scans the traces table. Each store
// supplies the primitive queries in its own dialect (TraceReadQueries); the plan and the arithmetic live here once.
import type {
  CallBreakdownEntry,
  CallKind,
  CostBreakdownEntry,
  FailuresResponse,
  Trace,
  TraceAnalytics,
  TraceSummary,
} from '../../schemas/index.js'
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
  toUsd,
} from '../analytics/math.js'
import { costNanos } from '../costs/pricing.js'
import {
  type BucketWindow,
  type CallTotalsRow,
  type ExtraConditions,
  type HistogramKind,
  type Ordering,
  type Selection,
  scoresAlone,
  type TotalsRow,
  type TraceReadQueries,
} from './read-queries.js'
import { bucketBounds, bucketOf, exactValue, locateRank, planRange, sumRollups, UNKNOWN_MODEL } from './rollups.js'
import type { AnalyticsParams, FailuresParams, Page, PageAfter, TraceFilter, TracePage } from './types.js'

/** The index that walks each order (SQLite's name for it: traces_[project_]<walk>). */
const WALK_OF_SORT = {
  created_at: 'created',
  latency: 'latency',
  token_count: 'tokens',
  cost: 'cost',
  // A score order is served through the score rollup's index (read-queries.ts, scoredJoin), never a traces walk.
  score: 'created',
} as const

/**
 * Reading one row costs about this many index entries stepped over (rows are ~2 KB and scattered; index entries
 * are small and adjacent). Measured on 1M traces (SQLite): a 50-row page through 1,700 full rows took 11 ms, through
 * the covering index 1 ms.
 */
const ROW_READ_COST_IN_INDEX_STEPS = 20
/** Offsets this deep are first narrowed to an hour through the hourly rollup. */
const DEEP_OFFSET = 5000

/**
 * What a search costs per trace, in the same unit (measured on 1M traces, SQLite): collecting a match from the
 * index and reading its row to order it ≈ 10 µs; testing one walked trace's text ≈ 1.5 µs.
 */
const SEARCH_COLLECT_COST = 10
const SEARCH_PROBE_COST = 1.5
/**
 * Testing a trace met walking a value's index (cost, latency, tokens): the rows come in random disk order, not in the
 * order they were stored, and cost about as much as collecting one (measured on 1M traces, PostgreSQL: 7.5-18 µs a
 * trace; a rare word walked along cost took 2.2 s where its index took 37 ms).
 */
const SEARCH_PROBE_RANDOM_COST = 10
/**
 * What a score filter costs per trace, in the same unit (measured on 500k traces with a score each, SQLite): testing
 * one walked trace through its scores ≈ 1.2 µs (a page of 50 in 0.6 ms where a tenth match); collecting a match from
 * the scores index and reading its row to order it ≈ 10 µs (the same page by collecting: 530 ms).
 */
const SCORE_PROBE_COST = 1.2
const SCORE_COLLECT_COST = 10

/** A filter's range of one histogram's column, in the histogram's units. */
function rangeOf(f: TraceFilter, kind: HistogramKind): { min?: number; max?: number } {
  if (kind === 'latency') return { min: f.min_latency, max: f.max_latency }
  if (kind === 'tokens') return { min: f.min_tokens, max: f.max_tokens }
  const nanos = (usd: number | undefined) => (usd === undefined ? undefined : costNanos(usd))
  return { min: nanos(f.min_cost), max: nanos(f.max_cost) }
}

/** Which filters are set, by kind: the rollup dimensions, the ranges, and the rest. */
function shapeOf(f: TraceFilter) {
  const set = (k: keyof TraceFilter) => f[k] !== undefined
  const dims = (['project_id', 'environment', 'model', 'status'] as const).filter(set)
  const latency = set('min_latency') || set('max_latency')
  const tokens = set('min_tokens') || set('max_tokens')
  const cost = set('min_cost') || set('max_cost')
  const time = set('since') || set('until')
  // A score filter or order: scores change after a trace is stored, so no trace rollup holds the count.
  const others =
    set('session_id') ||
    set('user_id') ||
    set('experiment_id') ||
    set('dataset_item_id') ||
    set('q') ||
    set('score_name') ||
    set('scored_by') ||
    set('agent')
  const ranges = [latency && 'latency', tokens && 'tokens', cost && 'cost'].filter(
    (r): r is HistogramKind => typeof r === 'string',
  )
  return { dims, ranges, time, others }
}

const sum = <T>(rows: readonly T[], pick: (r: T) => number, where: (r: T) => boolean = () => true) =>
  rows.filter(where).reduce((n, r) => n + pick(r), 0)

/** Cost per model: the models with traces, by cost desc, then traces desc, then model asc. */
function costBreakdown(rows: readonly TotalsRow[]): CostBreakdownEntry[] {
  const map = new Map<string, { rows: TotalsRow[]; count: number; unpriced: number }>()
  for (const r of rows) {
    const entry = map.get(r.model) ?? { rows: [], count: 0, unpriced: 0 }
    entry.rows.push(r)
    entry.count += r.traces
    entry.unpriced += r.unpriced
    map.set(r.model, entry)
  }
  return [...map]
    .filter(([, e]) => e.count > 0)
    .map(([key, e]) => ({ key, nanos: sumRollups(e.rows).costNanos, count: e.count, unpriced: e.unpriced }))
    .sort((a, b) =>
      a.nanos !== b.nanos
        ? b.nanos > a.nanos
          ? 1
          : -1
        : b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    )
    .map(({ key, nanos, count, unpriced }) => ({ key, cost: toUsd(nanos), count, unpriced }))
}

/** Per agent or per tool (summed over projects): calls desc, then name asc; the mean latency exact to 2 decimals. */
function callBreakdown(rows: readonly CallTotalsRow[], kind: CallKind): CallBreakdownEntry[] {
  const map = new Map<string, { traces: number; calls: number; failures: number; timed: number; micros: bigint }>()
  for (const r of rows) {
    if (r.kind !== kind) continue
    const entry = map.get(r.name) ?? { traces: 0, calls: 0, failures: 0, timed: 0, micros: 0n }
    entry.traces += r.traces
    entry.calls += r.calls
    entry.failures += r.failures
    entry.timed += r.timed
    entry.micros += exactValue({ hi: r.latency_hi, lo: r.latency_lo })
    map.set(r.name, entry)
  }
  return [...map]
    .filter(([, e]) => e.traces > 0)
    .sort(([a, x], [b, y]) => y.calls - x.calls || (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, e]) => ({
      key,
      traces: e.traces,
      calls: e.calls,
      failures: e.failures,
      mean_latency: e.timed === 0 ? null : meanLatencyMs(e.micros, e.timed),
    }))
}

function breakdown(rows: readonly TotalsRow[], key: (r: TotalsRow) => string) {
  const map = new Map<string, number>()
  for (const r of rows) map.set(key(r), (map.get(key(r)) ?? 0) + r.traces)
  return sortBreakdown([...map].map(([k, count]) => ({ key: k, count })))
}

export function createTraceReads(q: TraceReadQueries) {
  /** Exact count of a value range of one column, from its histogram plus at most two indexed boundary counts. */
  async function countRange(kind: HistogramKind, range: { min?: number; max?: number }, projectId?: string) {
    // Only the buckets from min's to max's can hold a value of the range: the plan needs no other.
    const window: BucketWindow = {
      from: bucketOf(Math.max(0, range.min ?? 0)),
      to: range.max === undefined || !Number.isFinite(range.max) ? undefined : bucketOf(Math.max(0, range.max)),
    }
    const plan = planRange(await q.histogram(kind, projectId, window), range)
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
    if (shape.ranges.length === 0 && !shape.time && !shape.others && f.model !== UNKNOWN_MODEL) {
      const { project_id, environment, model, status } = f
      return (await q.tally({ project_id, environment, model, status })).traces
    }
    const [range] = shape.ranges
    if (onlyProject && range && shape.ranges.length === 1 && !shape.time && !shape.others) {
      return countRange(range, rangeOf(f, range), f.project_id)
    }
    if (onlyProject && shape.time && shape.ranges.length === 0 && !shape.others) {
      return countTimeRange(f.project_id, f.since, f.until)
    }
    // Scores alone are counted in their own indexes, never by reading the traces that match.
    if (scoresAlone(f)) return q.countScored(f)
    // An agent alone (within at most a project): its traces are counted in the call rollup.
    const agentAlone = Object.entries(f).every(([k, v]) => v === undefined || k === 'agent' || k === 'project_id')
    if (f.agent !== undefined && agentAlone) {
      return sum(await q.callTotals(f.project_id, { kind: 'agent', name: f.agent }), (r) => r.traces)
    }
    return q.count(f)
  }

  /**
   * A page in another order than newest first, or past a position: the order's own index (value, trace_id) is
   * entered at the position, so a page costs the same however deep it is.
   */
  async function orderedPage<T>(
    f: TraceFilter,
    p: Page,
    limit: number,
    total: number,
    read: (selection: Selection) => Promise<T[]>,
  ): Promise<T[]> {
    const ordering: Ordering = { sort: p.sort ?? 'created_at', order: p.order ?? 'desc' }
    const extra: ExtraConditions = p.after ? { after: { ...ordering, at: p.after } } : {}
    // A common word is found by walking the order's index (from the cursor's position) and testing each trace.
    const plan =
      f.q === undefined
        ? await scorePlan(
            f,
            limit + p.offset,
            total,
            ordering.sort === 'score' ? undefined : WALK_OF_SORT[ordering.sort],
          )
        : await searchPlan(f, limit + p.offset, total, WALK_OF_SORT[ordering.sort])
    return read({ filter: f, extra, limit, offset: p.offset, ordering, ...plan })
  }

  /**
   * How a search is served: by walking the order's index (newest first: the newest traces) and testing each trace's
   * text until the page is full — about `wanted × scope / total` traces, whatever the number of matches —, or by
   * collecting every match from the search index and ordering them. The walk wins for a common word, the index for a rare one; the exact
   * number of matches (`total`) and the rollups say which. Only for a search within at most a project: other
   * filters would have the walk read rows to test them.
   */
  async function searchPlan(
    f: TraceFilter,
    wanted: number,
    total: number,
    walk: NonNullable<Selection['walk']> = 'created',
  ): Promise<Pick<Selection, 'walk' | 'probe' | 'collect'>> {
    const shape = shapeOf(f)
    const onlySearch =
      f.q !== undefined &&
      f.session_id === undefined &&
      f.user_id === undefined &&
      f.experiment_id === undefined &&
      f.dataset_item_id === undefined &&
      f.score_name === undefined &&
      f.scored_by === undefined &&
      f.agent === undefined &&
      shape.ranges.length === 0 &&
      !shape.time &&
      shape.dims.every((d) => d === 'project_id')
    if (!onlySearch || total === 0) return {}
    const scope = sum(await q.totals(f.project_id), (r) => r.traces)
    const walked = (wanted * scope) / total
    const probe = walk === 'created' ? SEARCH_PROBE_COST : SEARCH_PROBE_RANDOM_COST
    return walked * probe < total * SEARCH_COLLECT_COST ? { walk, probe: true } : { collect: true }
  }

  /**
   * How a score filter is served (without a search: searchPlan decides then): by walking the order's index and
   * testing each trace's scores until the page is full — about `wanted × scope / total` traces —, or by collecting
   * every match from the scores index and ordering them; the exact number of matches says which. A score order
   * (`walk` undefined) walks its own index, the score rollup's: only the test is chosen.
   */
  async function scorePlan(
    f: TraceFilter,
    wanted: number,
    total: number,
    walk: NonNullable<Selection['walk']> | undefined,
  ): Promise<Pick<Selection, 'walk' | 'probe' | 'collect'>> {
    if (f.score_name === undefined || total === 0) return {}
    const scope = (await q.tally({ project_id: f.project_id })).traces
    const walked = (wanted * scope) / total
    const probe = walk === undefined || walk === 'created' ? SCORE_PROBE_COST : SEARCH_PROBE_RANDOM_COST
    if (walked * probe >= total * SCORE_COLLECT_COST) return { collect: true }
    // Only a walk the filter leaves to its order's index is named: another filter's own index may serve better.
    const others = Object.entries(f).some(
      ([key, value]) =>
        value !== undefined && !['project_id', 'score_name', 'min_score', 'max_score', 'score_label'].includes(key),
    )
    return walk === undefined || others ? { probe: true } : { walk, probe: true }
  }

  /** A page in the order asked for, and whether more traces follow it. */
  async function listPage<T>(
    f: TraceFilter,
    p: Page,
    read: (selection: Selection) => Promise<T[]>,
  ): Promise<TracePage<T>> {
    const total = await countTraces(f)
    if (total === 0) return { total, items: [], more: false }
    const newestFirst = (p.sort ?? 'created_at') === 'created_at' && (p.order ?? 'desc') === 'desc' && !p.after
    if (newestFirst) {
      const items = total > p.offset ? await page(f, p.limit, p.offset, total, read) : []
      return { total, items, more: p.offset + items.length < total }
    }
    // One more than the page tells whether another follows.
    const rows = await orderedPage(f, p, p.limit + 1, total, read)
    return { total, items: rows.slice(0, p.limit), more: rows.length > p.limit }
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
    let plan: Pick<Selection, 'probe' | 'collect'> = {}
    const [range] = shape.ranges
    if (
      range &&
      shape.ranges.length === 1 &&
      !shape.others &&
      !shape.time &&
      shape.dims.every((d) => d === 'project_id')
    ) {
      const scope = (await q.tally({ project_id: f.project_id })).traces
      const newest = total === 0 ? Number.POSITIVE_INFINITY : ((limit + offset) * scope) / total
      walk = total * ROW_READ_COST_IN_INDEX_STEPS < newest ? range : 'created'
    }
    if (f.q !== undefined) ({ walk, ...plan } = await searchPlan(f, limit + offset, total))
    else if (f.score_name !== undefined) ({ walk, ...plan } = await scorePlan(f, limit + offset, total, 'created'))
    const extra: ExtraConditions = {}
    let skip = offset
    const plain =
      shape.dims.every((d) => d === 'project_id') && shape.ranges.length === 0 && !shape.time && !shape.others
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
    return read({ filter: f, extra, limit, offset: skip, walk, ...plan })
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
      unpriced: sum(rows, (r) => r.unpriced),
      tokensUnreported: sum(rows, (r) => r.tokens_unreported),
      ...sumRollups(rows),
      slow: await countRange('latency', { min: slowThresholdMs }, projectId),
    }
  }

  const newest = (filter: TraceFilter, limit: number, extra: ExtraConditions = {}) =>
    q.select({ filter, extra, limit, offset: 0 })

  return {
    /** One chunk of a newest-first walk over every match (see walkChunks). */
    afterCursor<T>(
      filter: TraceFilter,
      after: PageAfter | undefined,
      limit: number,
      each: (trace: Trace) => T,
    ): Promise<T[]> {
      const extra: ExtraConditions = after ? { after: { sort: 'created_at', order: 'desc', at: after } } : {}
      return q.selectEach({ filter, extra, limit, offset: 0, walk: 'created' }, each)
    },

    listTraces: (f: TraceFilter, p: Page): Promise<TracePage> => listPage(f, p, q.select),

    listTraceSummaries: (f: TraceFilter, p: Page): Promise<TracePage<TraceSummary>> =>
      listPage(f, p, q.selectSummaries),

    async analytics({ project_id, now, slowThresholdMs }: AnalyticsParams): Promise<TraceAnalytics> {
      const c = await counts(project_id, slowThresholdMs)
      const calls = await q.callTotals(project_id)
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
          total_cost: toUsd(c.costNanos),
          unpriced_traces: c.unpriced,
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
        cost_breakdown: costBreakdown(c.rows),
        agent_breakdown: callBreakdown(calls, 'agent'),
        tool_breakdown: callBreakdown(calls, 'tool'),
        recent_failures: await newest({ project_id, status: 'failed' }, RECENT_FAILURES),
      }
    },

    async failures({ project_id, limit, slowThresholdMs }: FailuresParams): Promise<FailuresResponse> {
      const { failed, retries } = await q.tally({ project_id })
      const c = { failed, retries, slow: await countRange('latency', { min: slowThresholdMs }, project_id) }
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
