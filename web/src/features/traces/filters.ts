// The trace list's filters live in the URL under the names GET /traces uses, so a filtered list is a link. Pure
// functions: URL ⇄ filter, whether a live trace matches, and a stored trace as the list shows it.
import type { ListTracesQuery, Trace, TraceSort, TraceStatus, TraceSummary } from '../../../../schemas/index.js'

export { matchesFilter, matchesSearch } from '../../../../schemas/trace-filter.js'

/** The filters and order of GET /traces the viewer offers (paging and `fields` are the list's own business). */
export type TraceFilter = Omit<ListTracesQuery, 'limit' | 'offset' | 'fields' | 'cursor'>

const TEXT_KEYS = ['q', 'project_id', 'model', 'session_id', 'user_id', 'since', 'until'] as const
const NUMBER_KEYS = ['min_latency', 'max_latency', 'min_tokens', 'max_tokens', 'min_cost', 'max_cost'] as const

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
  if (sort !== null && isSort(sort) && sort !== 'created_at') filter.sort = sort
  if (params.get('order') === 'asc') filter.order = 'asc'
  for (const key of NUMBER_KEYS) {
    const text = params.get(key)
    const value = text === null || text.trim() === '' ? Number.NaN : Number(text)
    if (Number.isFinite(value) && value >= 0) filter[key] = value
  }
  return filter
}

/** The query string of a filter (keys in a stable order, empty values left out), without the `?`. */
export function filterToSearch(filter: TraceFilter): string {
  const params = new URLSearchParams()
  for (const key of ['status', 'environment', ...TEXT_KEYS, ...NUMBER_KEYS, 'sort', 'order'] as const) {
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
export function toggleSort(filter: TraceFilter, sort: TraceSort): TraceFilter {
  const current = filter.sort ?? 'created_at'
  const order = current === sort ? ((filter.order ?? 'desc') === 'desc' ? 'asc' : 'desc') : 'desc'
  const { sort: _s, order: _o, ...rest } = filter
  return { ...rest, ...(sort === 'created_at' ? {} : { sort }), ...(order === 'asc' ? { order } : {}) }
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
