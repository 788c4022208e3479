// The trace list's filters live in the URL under the names GET /traces uses, so a filtered list is a link. Pure
// functions: URL ⇄ filter, whether a live trace matches, and a stored trace as the list shows it.
import type {
  ListTracesQuery,
  SCORE_SORT_PREFIX,
  Trace,
  TraceSort,
  TraceStatus,
  TraceSummary,
} from '../../../../schemas/index.js'
import { matchesFilter } from '../../../../schemas/trace-filter.js'

export { matchesFilter, matchesSearch } from '../../../../schemas/trace-filter.js'

/** The filters and order of GET /traces the viewer offers (paging and `fields` are the list's own business). */
export type TraceFilter = Omit<ListTracesQuery, 'limit' | 'offset' | 'fields' | 'cursor'>

const TEXT_KEYS = ['q', 'project_id', 'model', 'agent', 'session_id', 'user_id', 'since', 'until'] as const
const NUMBER_KEYS = ['min_latency', 'max_latency', 'min_tokens', 'max_tokens', 'min_cost', 'max_cost'] as const
/** The score filter's keys: its bounds and label mean something only with `score_name` (the API refuses them alone). */
const SCORE_KEYS = ['score_name', 'min_score', 'max_score', 'score_label'] as const
/** `sort=score:<name>`: the prefix is the contract's (a type-only import keeps its runtime out of the bundle). */
const SCORE_SORT: typeof SCORE_SORT_PREFIX = 'score:'
/** Lengths GET /traces accepts (ListTracesQuery): a score name, a label, a whole `score:<name>` order. */
const SCORE_NAME_MAX = 64
const SCORE_LABEL_MAX = 256
const SCORE_SORT_MAX = 70

export const STATUS_LABELS: Record<TraceStatus, string> = { success: 'Success', warning: 'Warning', failed: 'Failed' }
export const ENVIRONMENTS: Record<NonNullable<TraceFilter['environment']>, true> = {
  development: true,
  staging: true,
  production: true,
}

const isStatus = (value: string): value is TraceStatus => Object.hasOwn(STATUS_LABELS, value)
// Type-only imports keep the schemas' runtime (TypeBox) out of the bundle: the record's type makes it exhaustive.
const SORTS: Record<TraceSort, true> = { created_at: true, latency: true, token_count: true, cost: true }
const isSort = (value: string): value is TraceSort => Object.hasOwn(SORTS, value)
/** An order of the list: a field, or `score:<name>` (a name without spaces at either end). */
export type ListSort = NonNullable<TraceFilter['sort']>
const isScoreSort = (value: string) =>
  value.length <= SCORE_SORT_MAX && value.startsWith(SCORE_SORT) && /^\S(.*\S)?$/s.test(value.slice(SCORE_SORT.length))

/** `sort=score:<name>` for a score name. */
export const scoreSort = (name: string): ListSort => `${SCORE_SORT}${name}`

/** The score name the list is ordered by, or null when it is ordered by a field. */
export const sortedScore = (filter: TraceFilter): string | null =>
  filter.sort?.startsWith(SCORE_SORT) ? filter.sort.slice(SCORE_SORT.length) : null

/** The score the list shows a column of: the one it is ordered by, else the one it is filtered by, else none. */
export const scoreColumn = (filter: TraceFilter): string | null => sortedScore(filter) ?? filter.score_name ?? null
const isEnvironment = (value: string): value is NonNullable<TraceFilter['environment']> =>
  Object.hasOwn(ENVIRONMENTS, value)

/** The filter a query string names; values the API would refuse are left out. */
export function parseFilter(search: string): TraceFilter {
  const params = new URLSearchParams(search)
  const filter: TraceFilter = {}
  const status = params.get('status')
  if (status !== null && isStatus(status)) filter.status = status
  const environment = params.get('environment')
  if (environment !== null && isEnvironment(environment)) filter.environment = environment
  for (const key of TEXT_KEYS) {
    const value = params.get(key)
    if (value !== null && value.trim() !== '') filter[key] = key === 'q' ? value.trim().slice(0, 256) : value
  }
  const sort = params.get('sort')
  // The defaults (created_at, desc) stay out of the filter, so the plain list has one URL.
  if (sort !== null && ((isSort(sort) && sort !== 'created_at') || isScoreSort(sort))) filter.sort = sort
  if (params.get('order') === 'asc') filter.order = 'asc'
  for (const key of NUMBER_KEYS) {
    const value = numberOf(params.get(key))
    if (Number.isFinite(value) && value >= 0) filter[key] = value
  }
  Object.assign(filter, parseScoreFilter(params))
  return filter
}

const numberOf = (text: string | null) => (text === null || text.trim() === '' ? Number.NaN : Number(text))

/** The score filter of a query string: a name, then its bounds (any finite numbers) or its label. */
function parseScoreFilter(params: URLSearchParams): Pick<TraceFilter, (typeof SCORE_KEYS)[number]> {
  const name = params.get('score_name')?.trim()
  if (name === undefined || name === '' || name.length > SCORE_NAME_MAX) return {}
  const filter: Pick<TraceFilter, (typeof SCORE_KEYS)[number]> = { score_name: name }
  for (const key of ['min_score', 'max_score'] as const) {
    const value = numberOf(params.get(key))
    if (Number.isFinite(value)) filter[key] = value
  }
  const label = params.get('score_label')
  if (label !== null && label !== '' && label.length <= SCORE_LABEL_MAX) filter.score_label = label
  return filter
}

/** The query string of a filter (keys in a stable order, empty values left out), without the `?`. */
export function filterToSearch(filter: TraceFilter): string {
  const params = new URLSearchParams()
  for (const key of ['status', 'environment', ...TEXT_KEYS, ...NUMBER_KEYS, ...SCORE_KEYS, 'sort', 'order'] as const) {
    const value = filter[key]
    if (value !== undefined && value !== '') params.set(key, String(value))
  }
  return params.toString()
}

/** The trace list's link for a filter. */
export function traceListHref(filter: TraceFilter): string {
  const text = filterToSearch(filter)
  return text === '' ? '/traces' : `/traces?${text}`
}

/** Whether the list is in its default order, newest first: the only order in which a new trace belongs at the top. */
export const isNewestFirst = (filter: TraceFilter) =>
  (filter.sort ?? 'created_at') === 'created_at' && (filter.order ?? 'desc') === 'desc'

/** The order a column heading asks for when clicked: its own field, descending first, then flipped. */
export function toggleSort(filter: TraceFilter, sort: ListSort): TraceFilter {
  const current = filter.sort ?? 'created_at'
  const order = current === sort ? ((filter.order ?? 'desc') === 'desc' ? 'asc' : 'desc') : 'desc'
  const { sort: _s, order: _o, ...rest } = filter
  return { ...rest, ...(sort === 'created_at' ? {} : { sort }), ...(order === 'asc' ? { order } : {}) }
}

/**
 * Whether the server would list this trace in the list's filter and order (so a live trace joins the list, or is
 * counted, only then): its filters as schemas/trace-filter.ts decides them, and — ordered by a score — a score of
 * that name, which only a whole trace carries.
 */
export function belongsToList(trace: TraceSummary, filter: TraceFilter, whole?: Trace): boolean {
  const sorted = sortedScore(filter)
  if (sorted !== null && !whole?.scores?.some((s) => s.name === sorted)) return false
  return matchesFilter(trace, filter, whole)
}

/** A whole trace (as /ws pushes it) as the light list carries it. */
export function summarize(trace: Trace): TraceSummary {
  const { prompt: _p, response: _r, metadata: _m, steps, scores: _s, ...rest } = trace
  return { ...rest, step_count: steps.length }
}

/** Newest first, as GET /traces orders: created_at desc, then trace_id desc. */
export function newestFirst(a: TraceSummary, b: TraceSummary): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1
  return a.trace_id < b.trace_id ? 1 : a.trace_id > b.trace_id ? -1 : 0
}
