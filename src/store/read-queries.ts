// What the read plan (trace-reads.ts) asks of each dialect, and the SQL the dialects share to answer it: the primitive
// queries (TraceReadQueries), a filter's WHERE clause, an order, a selection; the rollups' reads, written once with
// the dialect's parameter markers.
import type { Trace, TraceSummary } from '../../schemas/index.js'
import { NANOS_PER_USD } from '../costs/pricing.js'
import {
  CALL_COUNTED,
  type CallDelta,
  type HistogramRow,
  type RollupSums,
  SUM_COLUMNS,
  TOTALS_COUNTS,
  type TotalsDelta,
} from './rollups.js'
import type { PageAfter, ReadSort, SortOrder, TraceFilter } from './types.js'

/** A statement built with the store's parameter markers (`bind` returns the marker of a value). */
export type Query = <R>(build: (bind: (value: unknown) => string) => string) => Promise<R[]>

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
  after?: { sort: ReadSort; order: SortOrder; at: PageAfter }
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
  const { order, ...rest } = ordering ?? { sort: 'created_at', order: 'desc' }
  const sort = orderColumn(rest.sort)
  const place = nulls && sort === 'cost' ? (order === 'asc' ? ' nulls first' : ' nulls last') : ''
  return `order by ${sort}${collected ? ' + 0' : ''} ${order}${place}, ${tieColumn(rest.sort)} ${order}`
}

/** The column an order sorts by: a traces column, or the mean a score order reads with each trace. */
const orderColumn = (sort: ReadSort): string => (sort === 'score' ? SCORE_MEAN : sort)

/** The column a score order (TraceFilter.scored_by) reads each trace's mean of the score as. */
const SCORE_MEAN = 'score_mean'

/**
 * The trace_id an order breaks ties by: a score order takes the rollup's own (the same value), which its index
 * (name, mean, trace_id) holds in order, so that no sort is left to do.
 */
const tieColumn = (sort: ReadSort): string => (sort === 'score' ? 'scored.scored_trace_id' : 'trace_id')

/**
 * The traces with a score of a name, each with its mean of it, from the per-trace score rollup (trace_scores), as a
 * join: its index (name, mean, trace_id) serves the order. Its columns are renamed so that no traces column
 * named in a filter becomes ambiguous. `lead` (a store whose planner needs telling, SQLite): the text is the whole
 * FROM, the rollup's index walked first (`lead` names it) and each trace looked up by its id — the first page read
 * without reading every trace with the score; else a join for `from traces` to take.
 */
const scoredJoin = (name: string, bind: (value: unknown) => string, lead?: string) => {
  const means = `(select trace_id as scored_trace_id, mean as ${SCORE_MEAN} from ${lead ?? 'trace_scores'}
    where name = ${bind(name)}) scored`
  const on = 'on scored.scored_trace_id = traces.trace_id'
  return lead === undefined ? `join ${means} ${on}` : `${means} cross join traces ${on}`
}

/**
 * The conditions on a score row of the filter's score: its name, and its bounds or label. `of`: the table the
 * columns are read from, when the statement reads another with columns of the same names.
 */
function scoreTerms(f: TraceFilter & { score_name: string }, bind: (value: unknown) => string, of = ''): string {
  const column = (name: string) => (of === '' ? name : `${of}.${name}`)
  const c = [`${column('name')} = ${bind(f.score_name)}`]
  if (f.score_label !== undefined) c.push(`${column('label')} = ${bind(f.score_label)}`)
  if (f.min_score !== undefined) c.push(`${column('value')} >= ${bind(f.min_score)}`)
  if (f.max_score !== undefined) c.push(`${column('value')} <= ${bind(f.max_score)}`)
  return c.join(' and ')
}

/**
 * A trace has a score of the filter's name that matches its bounds or label: every match collected through the
 * scores index (name, value, trace_id) or (name, label, trace_id); or (`probe`) tested for the one trace through
 * its scores (scores_trace) — what a walk that stops after a page wants.
 */
function scoreCondition(
  f: TraceFilter,
  bind: (value: unknown) => string,
  probe: boolean | undefined,
  probedScores: string,
): string | undefined {
  if (f.score_name === undefined) return undefined
  const terms = scoreTerms({ ...f, score_name: f.score_name }, bind)
  return probe
    ? `exists (select 1 from ${probedScores} where scores.trace_id = traces.trace_id and ${terms})`
    : `trace_id in (select trace_id from scores where ${terms})`
}

/**
 * The exact number of traces a filter of scores alone matches (with at most a project), without reading a trace or
 * a score of it: `score_name` with its bounds or label (or none: every trace with a score of the name), or a score
 * order. The score_values rollup counts the matching scores of traces, one row a distinct value (booleans and
 * ratings: a few rows, where the scores index holds one a score); from that, for each of the few traces with more
 * than one score of the name (trace_scores' partial index trace_scores_multi), its matching scores beyond the first
 * are taken away, read through its own scores (`probedScores`: how the store names the scores table so that its
 * trace index is the one read). One statement: both parts read the same snapshot.
 */
export function scoredCountSql(f: TraceFilter, bind: (value: unknown) => string, probedScores = 'scores'): string {
  const scored = { ...f, score_name: (f.score_name ?? f.scored_by) as string }
  // Bounds and a label apply to the filter's score only (a score order alone keeps every trace with the name).
  if (f.score_name === undefined)
    Object.assign(scored, { min_score: undefined, max_score: undefined, score_label: undefined })
  // Bound in the order the text names them.
  const matching = `select coalesce(sum(scores), 0) from score_values where ${scoreTerms(scored, bind)}${
    f.project_id === undefined ? '' : ` and project_id = ${bind(f.project_id)}`
  }`
  const several = `select count(*) as matching from trace_scores multi join ${probedScores}
      on scores.trace_id = multi.trace_id
    where multi.name = ${bind(scored.score_name)} and multi.scores > 1${
      f.project_id === undefined ? '' : ` and multi.project_id = ${bind(f.project_id)}`
    } and ${scoreTerms(scored, bind, 'scores')}
    group by multi.trace_id`
  return `select (${matching}) - (select coalesce(sum(matching - 1), 0) from (${several}) several) as n`
}

/**
 * Whether a filter is of scores alone, within at most a project (scoredCountSql counts it): a score's conditions, a
 * score order of its name.
 */
export const scoresAlone = (f: TraceFilter): boolean =>
  (f.score_name !== undefined || f.scored_by !== undefined) &&
  (f.score_name === undefined || f.scored_by === undefined || f.score_name === f.scored_by) &&
  Object.entries(f).every(
    ([key, value]) =>
      value === undefined ||
      ['project_id', 'score_name', 'min_score', 'max_score', 'score_label', 'scored_by'].includes(key),
  )

/** The order of a selection: newest first unless told. */
export interface Ordering {
  sort: ReadSort
  order: SortOrder
}

/**
 * The traces after a position in an order, as SQL: (column, trace_id) compared as a row, so that the order's index
 * is entered at the position. Cost may be null, and null sorts as the smallest value: first ascending, last
 * descending.
 */
function afterClause(after: NonNullable<ExtraConditions['after']>, bind: (value: unknown) => string): string {
  const { order, at } = after
  const sort = orderColumn(after.sort)
  const tie = tieColumn(after.sort)
  const cmp = order === 'asc' ? '>' : '<'
  if (at.value === null) {
    // Only a nullable column has null positions: the rest of the nulls, then (ascending) every value.
    const rest = `(${sort} is null and trace_id ${cmp} ${bind(at.trace_id)})`
    return order === 'asc' ? `(${rest} or ${sort} is not null)` : rest
  }
  const row = `(${sort}, ${tie}) ${cmp} (${bind(at.value)}, ${bind(at.trace_id)})`
  return sort === 'cost' && order === 'desc' ? `(${row} or cost is null)` : row
}

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
   * Search, and test the score filter, by testing each trace walked (the order's index drives, and the walk stops
   * after the page) instead of collecting every match from the search or scores index and ordering them: the plan
   * for a common word or a common score.
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

const TALLY_DIMS = ['project_id', 'environment', 'model', 'status'] as const satisfies readonly (keyof TallyDims)[]

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
function histogramWhere(
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

/** A call_totals row: the totals of one agent or tool of one project. */
export type CallTotalsRow = CallDelta

/** The primitive queries a store answers in its own dialect. */
export interface TraceReadQueries {
  totals(projectId?: string): Promise<TotalsRow[]>
  /** The call rollup's rows of a project (or all); only those of one agent or tool if `only` names it. */
  callTotals(projectId?: string, only?: Pick<CallTotalsRow, 'kind' | 'name'>): Promise<CallTotalsRow[]>
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
  /** The count of a filter of scores alone (scoresAlone), through the scores' indexes (scoredCountSql). */
  countScored(filter: TraceFilter): Promise<number>
  select(selection: Selection): Promise<Trace[]>
  /** The same page as `select`, each trace handed to `each` in order as it is read; what `each` returns, in order. */
  selectEach<T>(selection: Selection, each: (trace: Trace) => T): Promise<T[]>
  /** The same page as `select`, as summaries (no bodies). */
  selectSummaries(selection: Selection): Promise<TraceSummary[]>
  /** The latency at 0-based rank `offset` among latencies lo ≤ v < hi (ascending). */
  latencyAt(projectId: string | undefined, lo: number, hi: number, offset: number): Promise<number | undefined>
}

/**
 * A store's condition that a trace's searchable text holds every word (schemas/search.ts): through its search
 * index, or (`probe`) by reading the one trace's text — what a walk that stops after a page wants.
 */
export type SearchClause = (words: readonly string[], bind: (value: unknown) => string, probe?: boolean) => string

/**
 * The WHERE clause of a filter: fixed column names, every value bound through `bind` (which returns its marker),
 * after the join of a score order. `scoredLead`: the score order's rollup leads (scoredJoin), and the text is the
 * whole FROM and WHERE.
 */
export function traceWhere(
  f: TraceFilter,
  extra: ExtraConditions,
  bind: (value: unknown) => string,
  search?: SearchClause,
  probe?: boolean,
  probedScores = 'scores',
  scoredLead?: string,
): string {
  // The join's marker comes first: its text precedes the conditions'.
  const join = f.scored_by === undefined ? '' : scoredJoin(f.scored_by, bind, scoredLead)
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
  cmp('experiment_id', '=', f.experiment_id)
  cmp('dataset_item_id', '=', f.dataset_item_id)
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
  // An agent: through its calls' rows (trace_calls_name), the traces of one project or of all.
  if (f.agent !== undefined) {
    clauses.push(`trace_id in (select trace_id from trace_calls where kind = 'agent' and name = ${bind(f.agent)})`)
  }
  const score = scoreCondition(f, bind, probe, probedScores)
  if (score) clauses.push(score)
  if (extra.retried) clauses.push('retry_count > 0')
  cmp('created_at', '<', extra.createdBefore)
  if (extra.traceIds) clauses.push(`trace_id in (${extra.traceIds.map(bind).join(', ') || 'null'})`)
  if (extra.after) clauses.push(afterClause(extra.after, bind))
  return `${join} ${clauses.length ? `where ${clauses.join(' and ')}` : ''}`.trim()
}

/** The reads of the rollups (TraceReadQueries' totals, tally, histogram, hours, hoursBetween), through `query`. */
export function rollupReads(
  query: Query,
): Pick<TraceReadQueries, 'totals' | 'callTotals' | 'tally' | 'histogram' | 'hours' | 'hoursBetween'> {
  /** `where project_id = …` when a project is given (after `conditions`). */
  const scoped = (projectId: string | undefined, bind: (value: unknown) => string, conditions: string[] = []) => {
    const all = projectId === undefined ? conditions : [...conditions, `project_id = ${bind(projectId)}`]
    return all.length ? `where ${all.join(' and ')}` : ''
  }
  return {
    totals: (projectId) =>
      query<TotalsRow>(
        (bind) =>
          `select project_id, environment, model, status, ${TOTALS_COUNTS.join(', ')} from rollup_totals ${scoped(projectId, bind)}`,
      ),

    callTotals: (projectId, only) =>
      query<CallTotalsRow>((bind) => {
        const conditions = only ? [`kind = ${bind(only.kind)}`, `name = ${bind(only.name)}`] : []
        return `select project_id, kind, name, ${CALL_COUNTED.join(', ')} from call_totals ${scoped(projectId, bind, conditions)}`
      }),

    async tally(dims) {
      const [row] = await query<Tally>((bind) => {
        const conditions = TALLY_DIMS.filter((d) => dims[d] !== undefined).map((d) => `${d} = ${bind(dims[d])}`)
        return `select coalesce(sum(traces), 0) as traces, coalesce(sum(retries), 0) as retries,
           coalesce(sum(case when status = 'failed' then traces else 0 end), 0) as failed
         from rollup_totals ${conditions.length ? `where ${conditions.join(' and ')}` : ''}`
      })
      return row ?? { traces: 0, retries: 0, failed: 0 }
    },

    histogram: (kind, projectId, window) =>
      query<HistogramRow>((bind) => {
        const { where } = histogramWhere(projectId, window, bind)
        return `select bucket, sum(traces) as traces from ${HISTOGRAMS[kind].table} ${where} group by bucket order by bucket`
      }),

    hours: (projectId) =>
      query<{ hour: number; traces: number }>(
        (bind) =>
          `select hour, sum(traces) as traces from rollup_hourly ${scoped(projectId, bind)} group by hour order by hour desc`,
      ),

    hoursBetween: (start, end, projectId) =>
      query<HourRow>(
        (bind) =>
          `select hour, sum(traces) as traces, ${SUM_COLUMNS.map((c) => `sum(${c}) as ${c}`).join(', ')}
         from rollup_hourly ${scoped(projectId, bind, [`hour >= ${bind(start)}`, `hour < ${bind(end)}`])} group by hour`,
      ),
  }
}
