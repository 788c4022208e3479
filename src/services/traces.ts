// Reading traces: a query as GET /traces and its siblings take it becomes the store's filter and page — timestamps as
// epoch ms, costs to the nano-dollar, `q` as its words, the cursor decoded — and a page the store found gets the
// cursor of the next one. Routes hand the validated query over as it is.
import type {
  ListTraceSummariesResponse,
  ListTracesQuery,
  ListTracesResponse,
  TraceFilterQuery,
} from '../../schemas/index.js'
import { LimitQuery, OffsetQuery, searchWords } from '../../schemas/index.js'
import { roundCost } from '../costs/pricing.js'
import { InvalidInput } from '../errors.js'
import { parseTimestamp } from '../lib/time.js'
import { decodeCursor, encodeCursor, sortValue } from '../store/cursor.js'
import type { TraceFilter, TracePage, TraceStore } from '../store/types.js'

/**
 * The store filter of a validated GET /traces-style query, confined to the request's scope (the auth plugin has
 * already checked the project the query names against the credential). 400 when `q` holds no word.
 */
export function traceFilter(query: TraceFilterQuery, scope: string | null): TraceFilter {
  const { since, until, min_cost, max_cost, q, project_id: _named, ...rest } = query
  const words = q === undefined ? undefined : searchWords(q)
  if (words === null) throw new InvalidInput('querystring/q must contain a word (it is only white space)')
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
}

export function createTraceService(traces: Pick<TraceStore, 'list' | 'listSummaries'>): TraceService {
  return {
    async list(query, scope) {
      // ajv has filled the schema's defaults in; these fallbacks, read from the same schema where it can say them,
      // keep the types whole for a caller that did not validate.
      const {
        limit = LimitQuery.default,
        offset = OffsetQuery.default,
        sort = 'created_at',
        order = 'desc',
        cursor,
        fields,
        ...filters
      } = query
      const filter = traceFilter(filters, scope)
      if (cursor !== undefined && offset > 0) {
        throw new InvalidInput(
          'querystring/cursor cannot be combined with a non-zero offset: page with one or the other',
        )
      }
      const after = cursor === undefined ? undefined : decodeCursor(cursor, { sort, order })
      const page = { limit, offset, sort, order, after }
      /** The page with the cursor of the next one, made from its last trace's sort value. */
      const withCursor = <T extends { trace_id: string } & Parameters<typeof sortValue>[0]>(found: TracePage<T>) => {
        const last = found.items.at(-1)
        const next_cursor =
          found.more && last
            ? encodeCursor({ sort, order, value: sortValue(last, sort), trace_id: last.trace_id })
            : null
        return { total: found.total, items: found.items, next_cursor }
      }
      return fields === 'summary'
        ? withCursor(await traces.listSummaries(filter, page))
        : withCursor(await traces.list(filter, page))
    },
  }
}
