// What a filter of GET /traces means for one trace, the same everywhere it is asked: the viewer's live list (does a
// trace pushed by /ws belong in the list on screen?) and the evaluators (is a trace just stored due for a rule?) decide
// as the stores' queries do. Part of the contract for the same reason as search.ts; types only from trace.ts, so the
// viewer's bundle takes no schema runtime.
import { callsAgent } from './agent-calls.js'
import { searchText, searchWords } from './search.js'
import type { ListTracesQuery, Trace, TraceSummary } from './trace.js'

/** The filters of GET /traces (its paging, order and `fields` aside). */
export type TraceFilterFields = Omit<ListTracesQuery, 'limit' | 'offset' | 'fields' | 'cursor' | 'sort' | 'order'>

/** A timestamp of a query (ISO 8601, no offset = UTC, or epoch seconds/milliseconds) in epoch ms. */
function timeOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const number = Number(value)
  if (Number.isFinite(number)) return number < 1e11 ? number * 1000 : number
  const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`)
  return Number.isNaN(ms) ? undefined : ms
}

/**
 * Whether a whole trace holds every word of `q` as the server searches it: the same lower-cased text
 * (search.ts), each word a substring.
 */
export function matchesSearch(trace: Trace, q: string | undefined): boolean {
  const words = q === undefined ? null : searchWords(q)
  if (words === null) return true
  const text = searchText(trace)
  return words.every((word) => text.includes(word))
}

/** Whether one of a trace's scores of the filter's name is within its bounds, or has its label. */
function matchesScore(scores: Trace['scores'], filter: TraceFilterFields): boolean {
  if (filter.score_name === undefined) return true
  return (scores ?? []).some(
    (s) =>
      s.name === filter.score_name &&
      (filter.score_label === undefined || s.label === filter.score_label) &&
      (filter.min_score === undefined || s.value >= filter.min_score) &&
      (filter.max_score === undefined || s.value <= filter.max_score),
  )
}

/** The filters that ask a field to equal a value. */
const EQUALITY = [
  'status',
  'environment',
  'project_id',
  'model',
  'session_id',
  'user_id',
  'experiment_id',
  'dataset_item_id',
] as const

/**
 * How each filter of GET /traces is decided here: a filter added to the contract fails the build until this file
 * decides it too (a record must name every key).
 */
const DECIDED: Record<keyof TraceFilterFields, 'equal' | 'range' | 'time' | 'search' | 'score' | 'steps'> = {
  status: 'equal',
  environment: 'equal',
  project_id: 'equal',
  model: 'equal',
  session_id: 'equal',
  user_id: 'equal',
  experiment_id: 'equal',
  dataset_item_id: 'equal',
  min_latency: 'range',
  max_latency: 'range',
  min_tokens: 'range',
  max_tokens: 'range',
  min_cost: 'range',
  max_cost: 'range',
  since: 'time',
  until: 'time',
  q: 'search',
  score_name: 'score',
  min_score: 'score',
  max_score: 'score',
  score_label: 'score',
  agent: 'steps',
}
/** The filters this file decides (the same keys as the contract's, checked above). */
export const DECIDED_FILTERS = Object.keys(DECIDED) as (keyof TraceFilterFields)[]

/** What the filters read of a trace: a summary of the light list and a whole trace both have it. */
type FilteredFields = Pick<TraceSummary, (typeof EQUALITY)[number] | 'cost' | 'latency' | 'token_count'> & {
  created_at: string
}

/**
 * Whether GET /traces would list this trace under the filter. A search (`q`), a score or an agent filter needs the
 * whole trace (`whole`, with its scores and steps); without it, such a filter matches nothing.
 */
export function matchesFilter(trace: FilteredFields, filter: TraceFilterFields, whole?: Trace): boolean {
  if (filter.agent !== undefined && (whole === undefined || !callsAgent(whole.steps, filter.agent))) return false
  if (filter.q !== undefined && (whole === undefined || !matchesSearch(whole, filter.q))) return false
  if (filter.score_name !== undefined && (whole === undefined || !matchesScore(whole.scores, filter))) return false
  if (filter.min_cost !== undefined && (trace.cost === null || trace.cost < filter.min_cost)) return false
  if (filter.max_cost !== undefined && (trace.cost === null || trace.cost > filter.max_cost)) return false
  const equal = (key: (typeof EQUALITY)[number]) => filter[key] === undefined || trace[key] === filter[key]
  if (!EQUALITY.every(equal)) return false
  if (filter.min_latency !== undefined && trace.latency < filter.min_latency) return false
  if (filter.max_latency !== undefined && trace.latency > filter.max_latency) return false
  if (filter.min_tokens !== undefined && trace.token_count < filter.min_tokens) return false
  if (filter.max_tokens !== undefined && trace.token_count > filter.max_tokens) return false
  const at = Date.parse(trace.created_at)
  const since = timeOf(filter.since)
  const until = timeOf(filter.until)
  if (since !== undefined && at < since) return false
  if (until !== undefined && at >= until) return false
  return true
}
