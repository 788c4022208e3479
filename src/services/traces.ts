// Reading traces: a query as GET /traces and its siblings take it becomes the store's filter and page — timestamps as
// epoch ms, costs to the nano-dollar, `q` as its words, the cursor decoded — and a page the store found gets the
// cursor of the next one. Routes hand the validated query over as it is.
import type {
  ListTraceSummariesResponse,
  ListTracesQuery,
  ListTracesResponse,
  Trace,
  TraceFilterQuery,
} from '../../schemas/index.js'
import { LimitQuery, OffsetQuery, SCORE_SORT_PREFIX, searchWords } from '../../schemas/index.js'
import { roundCost } from '../costs/pricing.js'
import { InvalidInput, TraceNotFound } from '../errors.js'
import { inScope } from '../lib/access-policy.js'
import { parseTimestamp } from '../lib/time.js'
import { decodeCursor, encodeCursor, type SortName, sortValue } from '../store/cursor.js'
import type { ReadSort, ScoreStore, TraceFilter, TracePage, TraceStore } from '../store/types.js'

/** The filters of a score that only mean something beside `score_name`. */
const SCORE_BOUNDS = ['min_score', 'max_score', 'score_label'] as const

/**
 * The store filter of a validated GET /traces-style query, confined to the request's scope (the auth plugin has
 * already checked the project the query names against the credential). 400 when `q` holds no word.
 */
export function traceFilter(query: TraceFilterQuery, scope: string | null): TraceFilter {
  const { since, until, min_cost, max_cost, q, project_id: _named, ...rest } = query
  const words = q === undefined ? undefined : searchWords(q)
  if (words === null) throw new InvalidInput('querystring/q must contain a word (it is only white space)')
  const loose = query.score_name === undefined && SCORE_BOUNDS.find((k) => query[k] !== undefined)
  if (loose) throw new InvalidInput(`querystring/${loose} needs score_name: the name of the score it bounds`)
  return {
    ...rest,
    // Costs are kept to the nano-dollar: a bound is too, so the rollups and the rows agree on every edge.
    min_cost: min_cost === undefined ? undefined : roundCost(min_cost),
    max_cost: max_cost === undefined ? undefined : roundCost(max_cost),
    q: words,
    project_id: scope ?? undefined,
    since: since === undefined ? undefined : (parseTimestamp(since) ?? undefined),
    until: until === undefined ? undefined : (parseTimestamp(until) ?? undefined),
  }
}

export interface TraceService {
  /** GET /traces: a page of whole traces or of summaries (`fields`), with the cursor of the next page. */
  list(query: ListTracesQuery, scope: string | null): Promise<ListTracesResponse | ListTraceSummariesResponse>
  /** GET /traces/{trace_id}: one trace with its steps and scores; 404 when unknown or outside the scope. */
  get(traceId: string, scope: string | null): Promise<Trace>
}

export function createTraceService(
  traces: Pick<TraceStore, 'list' | 'listSummaries' | 'get'>,
  scores: Pick<ScoreStore, 'summaries' | 'means' | 'ofTrace'>,
): TraceService {
  return {
    async list(query, scope) {
      // ajv has filled the schema's defaults in; these fallbacks, read from the same schema where it can say them,
      // keep the types whole for a caller that did not validate.
      const {
        limit = LimitQuery.default,
        offset = OffsetQuery.default,
        sort: sortName = 'created_at',
        order = 'desc',
        cursor,
        fields,
        ...filters
      } = query
      const filter = traceFilter(filters, scope)
      const sort = sortName as SortName
      // A score order: the traces with a score of that name, by their mean of it.
      const scoreName = sort.startsWith(SCORE_SORT_PREFIX) ? sort.slice(SCORE_SORT_PREFIX.length) : undefined
      if (scoreName !== undefined) filter.scored_by = scoreName
      const readSort: ReadSort = scoreName === undefined ? (sort as ReadSort) : 'score'
      if (cursor !== undefined && offset > 0) {
        throw new InvalidInput(
          'querystring/cursor cannot be combined with a non-zero offset: page with one or the other',
        )
      }
      const after = cursor === undefined ? undefined : decodeCursor(cursor, { sort, order })
      const page = { limit, offset, sort: readSort, order, after }
      /** The value the next page starts after: the last trace's in the order (its exact mean of a score). */
      const lastValue = async (last: Parameters<typeof sortValue>[0] & { trace_id: string }) =>
        scoreName === undefined
          ? sortValue(last, sort as Exclude<ReadSort, 'score'>)
          : ((await scores.means(scoreName, [last.trace_id])).get(last.trace_id) ?? null)
      /** The page with the cursor of the next one, made from its last trace's sort value. */
      const withCursor = async <T extends { trace_id: string } & Parameters<typeof sortValue>[0]>(
        found: TracePage<T>,
      ) => {
        const last = found.items.at(-1)
        const value = found.more && last ? await lastValue(last) : null
        const next_cursor = found.more && last ? encodeCursor({ sort, order, value, trace_id: last.trace_id }) : null
        return { total: found.total, items: found.items, next_cursor }
      }
      if (fields !== 'summary') return withCursor(await traces.list(filter, page))
      // The light list carries each trace's scores in short: one read for the page.
      const found = await traces.listSummaries(filter, page)
      const summaries = await scores.summaries(found.items.map((t) => t.trace_id))
      for (const item of found.items) item.scores = summaries.get(item.trace_id) ?? {}
      return withCursor(found)
    },
    async get(traceId, scope) {
      const trace = await traces.get(traceId)
      // Another project's trace is answered as unknown: a project key learns nothing about it, not even that it exists.
      if (!trace || !inScope(scope, trace.project_id)) throw new TraceNotFound(traceId)
      trace.scores = await scores.ofTrace(trace.trace_id)
      return trace
    },
  }
}
