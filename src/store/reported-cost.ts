// The costs a client reported for a trace travel with it to the store — a PricedTrace — and are kept in a column of
// their own, so that re-pricing stored traces never replaces them. They ride under a symbol: declared in the type,
// so every signature on the way says it, yet never serialized and never part of the contract.
import type { Trace } from '../../schemas/index.js'
import type { ReportedCosts } from '../costs/pricing.js'

/** The column that keeps them. */
export const REPORTED_COST = 'reported_cost'

/** The key a trace on its way to the store carries its client's reported costs under. */
export const REPORTED_COSTS: unique symbol = Symbol('loupe.reportedCosts')

/** A trace on its way to the store: priced, with what its client reported (absent or null: nothing). */
export type PricedTrace = Trace & { readonly [REPORTED_COSTS]?: ReportedCosts | null }

/** The trace, carrying what its client reported (pricing fills in the rest before it is stored). */
export function withReportedCosts(trace: Trace, reported: ReportedCosts | null): PricedTrace {
  Object.defineProperty(trace, REPORTED_COSTS, { value: reported, enumerable: false })
  return trace
}

/** What a trace on its way to the store carries, as the column's JSON text (null: the client reported nothing). */
export function reportedCostJson(trace: PricedTrace): string | null {
  const reported = trace[REPORTED_COSTS]
  return reported ? JSON.stringify(reported) : null
}

/** The column read back. */
export function parseReportedCosts(text: string | null): ReportedCosts | null {
  return text === null ? null : (JSON.parse(text) as ReportedCosts)
}
