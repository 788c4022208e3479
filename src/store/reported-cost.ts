// The costs a client reported for a trace travel with it to the store under a symbol (never serialized, never part of
// the contract), and are kept in a column of their own so that re-pricing stored traces never replaces them.
import type { Trace } from '../../schemas/index.js'
import type { ReportedCosts } from '../costs/pricing.js'

/** The column, and the symbol a trace carries its reported costs under on the way to the store. */
export const REPORTED_COST = 'reported_cost'
const CARRIED = Symbol('loupe.reportedCost')

/** The trace, carrying what its client reported (pricing fills in the rest before it is stored). */
export function withReportedCosts(trace: Trace, reported: ReportedCosts | null): Trace {
  Object.defineProperty(trace, CARRIED, { value: reported, enumerable: false })
  return trace
}

/** What a trace on its way to the store carries, as the column's JSON text (null: the client reported nothing). */
export function reportedCostJson(trace: Trace): string | null {
  const reported = (trace as { [CARRIED]?: ReportedCosts | null })[CARRIED]
  return reported ? JSON.stringify(reported) : null
}

/** The column read back. */
export function parseReportedCosts(text: string | null): ReportedCosts | null {
  return text === null ? null : (JSON.parse(text) as ReportedCosts)
}
