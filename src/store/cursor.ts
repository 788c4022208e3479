// The `cursor` of GET /traces: where the next page starts (the last trace's sort value and trace_id), with the order
// it belongs to, as opaque URL-safe text. A checksum catches a cursor that was edited or cut; a cursor made for
// another order is refused rather than read in the wrong one.
import { createHash } from 'node:crypto'
import { SCORE_SORT_PREFIX, SORT_ORDERS, type SortOrder, TRACE_SORTS, type TraceSort } from '../../schemas/index.js'
import { InvalidInput } from '../errors.js'
import type { PageAfter } from './types.js'

const VERSION = 1

/** An order as GET /traces names it: a trace column, or `score:<name>`. */
export type SortName = TraceSort | `${typeof SCORE_SORT_PREFIX}${string}`

export interface CursorPosition extends PageAfter {
  sort: SortName
  order: SortOrder
}

const isSortName = (sort: unknown): sort is SortName =>
  (TRACE_SORTS as readonly unknown[]).includes(sort) ||
  (typeof sort === 'string' && sort.startsWith(SCORE_SORT_PREFIX) && sort.length > SCORE_SORT_PREFIX.length)

const checksum = (payload: string) => createHash('sha256').update(payload).digest('base64url').slice(0, 10)

export function encodeCursor(position: CursorPosition): string {
  const payload = Buffer.from(
    JSON.stringify([VERSION, position.sort, position.order, position.value, position.trace_id]),
  ).toString('base64url')
  return `${payload}.${checksum(payload)}`
}

const invalid = (why: string) =>
  new InvalidInput(`querystring/cursor ${why}: pass the next_cursor of a previous answer as it is`)

/** The position a cursor holds; a 400 naming `cursor` when it is not one this server made for this order. */
export function decodeCursor(text: string, expected: { sort: SortName; order: SortOrder }): PageAfter {
  const [payload, sum, ...rest] = text.split('.')
  if (!payload || !sum || rest.length > 0 || checksum(payload) !== sum) throw invalid('is not a valid cursor')
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
  } catch {
    throw invalid('is not a valid cursor')
  }
  if (!Array.isArray(parsed) || parsed.length !== 5 || parsed[0] !== VERSION) throw invalid('is not a valid cursor')
  const [, sort, order, value, traceId] = parsed as unknown[]
  const known = isSortName(sort) && (SORT_ORDERS as readonly unknown[]).includes(order)
  const valueOk = (typeof value === 'number' && Number.isFinite(value)) || (value === null && sort === 'cost')
  if (!known || !valueOk || typeof traceId !== 'string') throw invalid('is not a valid cursor')
  if (sort !== expected.sort || order !== expected.order) {
    throw invalid(`was made for sort=${sort}&order=${order}, not sort=${expected.sort}&order=${expected.order}`)
  }
  return { value: value as number | null, trace_id: traceId }
}

/** The value of a trace a cursor remembers for an order (created_at as epoch ms). */
export function sortValue(
  trace: { created_at: string; latency: number; token_count: number; cost: number | null },
  sort: TraceSort,
): number | null {
  return sort === 'created_at' ? Date.parse(trace.created_at) : trace[sort]
}
