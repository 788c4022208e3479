// The read side of traces, shared by every store: how GET /traces, /analytics and /failures are answered from the
// rollups (src/store/rollups.ts) plus a few indexed seeks, so that no request scans the traces table. Each store
// supplies the primitive queries in its own dialect (TraceReadQueries); the plan and the arithmetic live here once.
import type {
  AnalyticsResponse,
  CostBreakdownEntry,
  FailuresResponse,
  Trace,
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
import { costNanos, NANOS_PER_USD } from '../costs/pricing.js'
import {
  bucketBounds,
  bucketOf,
  type HistogramRow,
  locateRank,
  planRange,
  type RollupSums,
  sumRollups,
  type TotalsDelta,
  UNKNOWN_MODEL,
} from './rollups.js'
import type {
  AnalyticsParams,
  FailuresParams,
  Page,
  PageAfter,
  SortOrder,
  TraceFilter,
  TracePage,
  TraceSort,
} from './types.js'

export type HistogramKind = 'latency' | 'tokens' | 'cost'

/**
 * Each histogram's table, the traces column it counts, and the column's value of one histogram unit (cost is counted
 * in nano-dollars, stored in USD): a boundary `from ≤ v < below` is `from / scale ≤ column < below / scale`.
 */
export const HISTOGRAMS = {
  latency: { table: 'latency_histogram', column: 'latency', scale: 1 },
  tokens: { table: 'token_histogram', column: 'token_count', scale: 1 },
  cost: { table: 'cost_histogram', column: 'cost', scale: NANOS_PER_USD },
} as const satisfies Record<HistogramKind, { table: string; column: string; scale: number }>

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
  /** Past this position in the order (keyset paging). */
  after?: { sort: TraceSort; order: SortOrder; at: PageAfter }
}

/**
 * Every trace of a filter, newest first, in chunks of `chunk`: each chunk is one indexed keyset read (constant
 * memory, and each as fast as the first), so an export or a deletion of millions never holds more than a chunk. Each
 * trace is handed to `each` as it is read and only what `each` makes of it is kept: a store that reads rows one at a
 * time lets each trace go before the next is read.
 */
export async function* walkChunks<T>(
  read: (after: PageAfter | undefined, limit: number, each: (trace: Trace) => T) => Promise<T[]>,
  chunk: number,
  each: (trace: Trace) => T,
): AsyncGenerator<T[]> {
  let after: PageAfter | undefined
  const marked = (trace: Trace) => {
    after = { value: Date.parse(trace.created_at), trace_id: trace.trace_id }
    return each(trace)
  }
  for (;;) {
    const items = await read(after, chunk, marked)
    if (items.length > 0) yield items
    if (items.length < chunk) return
  }
}

/**
 * The ORDER BY of an ordering (newest first without one); `nulls` says where null costs go when the dialect needs
 * telling. `collected`: the rows are collected first (a search's matches from the search index) and only then put in
 * order, so the order is an expression no index serves — else a planner that misjudges how many rows match walks the
 * order's index, testing each trace, until the page is full.
 */
export function orderBy(ordering: Ordering | undefined, nulls: boolean, collected = false): string {
  const { sort, order } = ordering ?? { sort: 'created_at', order: 'desc' }
  const place = nulls && sort === 'cost' ? (order === 'asc' ? ' nulls first' : ' nulls last') : ''
  return `order by ${sort}${collected ? ' + 0' : ''} ${order}${place}, trace_id ${order}`
}

/** The order of a selection: newest first unless told. */
export interface Ordering {
  sort: TraceSort
  order: SortOrder
}

/**
 * The traces after a position in an order, as SQL: (column, trace_id) compared as a row, so that the order's index
 * is entered at the position. Cost may be null, and null sorts as the smallest value: first ascending, last
 * descending.
 */
function afterClause(after: NonNullable<ExtraConditions['after']>, bind: (value: unknown) => string): string {
  const { sort, order, at } = after
  const cmp = order === 'asc' ? '>' : '<'
  if (at.value === null) {
    // Only a nullable column has null positions: the rest of the nulls, then (ascending) every value.
    const rest = `(${sort} is null and trace_id ${cmp} ${bind(at.trace_id)})`
    return order === 'asc' ? `(${rest} or ${sort} is not null)` : rest
  }
  const row = `(${sort}, trace_id) ${cmp} (${bind(at.value)}, ${bind(at.trace_id)})`
  return sort === 'cost' && order === 'desc' ? `(${row} or cost is null)` : row
}

/** The index that walks each order (SQLite's name for it: traces_[project_]<walk>). */
const WALK_OF_SORT = { created_at: 'created', latency: 'latency', token_count: 'tokens', cost: 'cost' } as const

/** A page of traces, newest first (created_at desc, trace_id desc) unless `ordering` says otherwise. */
export interface Selection {
  filter: TraceFilter
  extra?: ExtraConditions
  limit: number
  offset: number
  ordering?: Ordering
  /** Which index should drive the walk, when the store's planner needs telling (SQLite does; PostgreSQL decides). */
  walk?: HistogramKind | 'created'
  /**
   * Search by testing each trace walked (the order's index drives, and the walk stops after the page) instead of
   * collecting every match from the search index and ordering them: the plan for a common word.
   */
  probe?: boolean
  /**
   * The plan for a rare word, chosen over the walk: collect every match from the search index, then order them (a
   * store whose planner decides, PostgreSQL, is kept from walking an order's index instead).
   */
  collect?: boolean
}

/** The rollup dimensions a tally is taken over (each absent one: all of its values). */
export interface TallyDims {
  project_id?: string
  environment?: string
  model?: string
  status?: string
}

export const TALLY_DIMS = [
  'project_id',
  'environment',
  'model',
  'status',
] as const satisfies readonly (keyof TallyDims)[]

/** Sums over the totals rollup: what a page total and /failures need, summed by the database, not row by row here. */
export interface Tally {
  traces: number
  retries: number
  /** Traces whose status is failed. */
  failed: number
}

/** Buckets from ≤ bucket ≤ to (no `to`: every bucket from `from` on). */
export interface BucketWindow {
  from: number
  to?: number
}

/** The WHERE clause of a histogram read (a project, a window of buckets), every value bound through `bind`. */
export function histogramWhere(
  projectId: string | undefined,
  window: BucketWindow | undefined,
  bind: (value: unknown) => string,
): { where: string; params: unknown[] } {
  const params: unknown[] = []
  const clauses: string[] = []
  const cmp = (clause: string, value: unknown) => {
    params.push(value)
    clauses.push(`${clause} ${bind(value)}`)
  }
  if (projectId !== undefined) cmp('project_id =', projectId)
  if (window) cmp('bucket >=', window.from)
  if (window?.to !== undefined) cmp('bucket <=', window.to)
  return { where: clauses.length ? `where ${clauses.join(' and ')}` : '', params }
}

/** The primitive queries a store answers in its own dialect. */
export interface TraceReadQueries {
  totals(projectId?: string): Promise<TotalsRow[]>
  /** The totals rollup summed over the rows of these dimensions. */
  tally(dims: TallyDims): Promise<Tally>
  /** Histogram rows of a project (or all, summed per bucket), bucket ascending; only a window of buckets if given. */
  histogram(kind: HistogramKind, projectId?: string, window?: BucketWindow): Promise<HistogramRow[]>
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
  /** The same page as `select`, each trace handed to `each` in order as it is read; what `each` returns, in order. */
  selectEach<T>(selection: Selection, each: (trace: Trace) => T): Promise<T[]>
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

/**
 * A store's condition that a trace's searchable text holds every word (schemas/search.ts): through its search
 * index, or (`probe`) by reading the one trace's text — what a walk that stops after a page wants.
 */
export type SearchClause = (words: readonly string[], bind: (value: unknown) => string, probe?: boolean) => string

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

/** The WHERE clause of a filter: fixed column names, every value bound through `bind` (which returns its marker). */
export function traceWhere(
  f: TraceFilter,
  extra: ExtraConditions,
  bind: (value: unknown) => string,
  search?: SearchClause,
  probe?: boolean,
): string {
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
  cmp('cost', '>=', f.min_cost)
  cmp('cost', '<=', f.max_cost)
  cmp('created_at', '>=', f.since)
  cmp('created_at', '<', f.until)
  if (f.q !== undefined && f.q.length > 0) {
    if (!search) throw new Error('this store cannot search')
    clauses.push(search(f.q, bind, probe))
  }
  if (extra.retried) clauses.push('retry_count > 0')
  cmp('created_at', '<', extra.createdBefore)
  if (extra.traceIds) clauses.push(`trace_id in (${extra.traceIds.map(bind).join(', ') || 'null'})`)
  if (extra.after) clauses.push(afterClause(extra.after, bind))
  return clauses.length ? `where ${clauses.join(' and ')}` : ''
}

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
  const others = set('session_id') || set('user_id') || set('q')
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
    const plan = await searchPlan(f, limit + p.offset, total, WALK_OF_SORT[ordering.sort])
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
      shape.ranges.length === 0 &&
      !shape.time &&
      shape.dims.every((d) => d === 'project_id')
    if (!onlySearch || total === 0) return {}
    const scope = sum(await q.totals(f.project_id), (r) => r.traces)
    const walked = (wanted * scope) / total
    const probe = walk === 'created' ? SEARCH_PROBE_COST : SEARCH_PROBE_RANDOM_COST
    return walked * probe < total * SEARCH_COLLECT_COST ? { walk, probe: true } : { collect: true }
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
