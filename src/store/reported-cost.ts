// The costs a client reported for a trace travel with it to the store — a PricedTrace, the trace beside them — and are
// kept in a column of their own, so that re-pricing stored traces never replaces them. They are not part of the
// contract: the trace the store hands back is the trace alone.
import type { Trace } from '../../schemas/index.js'
import type { ReportedCosts } from '../costs/pricing.js'

/** The column that keeps them. */
export const REPORTED_COST = 'reported_cost'

/**
 * A trace on its way to the store: priced, what its client reported of its costs (null: nothing), and the evaluator
 * rules it is due for (their jobs are written with it, src/store/evaluation-jobs.ts).
 */
export interface PricedTrace {
  readonly trace: Trace
  readonly reported: ReportedCosts | null
  readonly evaluations?: readonly string[]
}

/** A trace whose client reported no costs (one stored before, one made by the seed), on its way to the store. */
export const unreported = (trace: Trace): PricedTrace => ({ trace, reported: null })

/** What a client reported, as the column's JSON text (null: nothing). */
export function reportedCostJson(reported: ReportedCosts | null): string | null {
  return reported ? JSON.stringify(reported) : null
}

/** The column read back. */
export function parseReportedCosts(text: string | null): ReportedCosts | null {
  return text === null ? null : (JSON.parse(text) as ReportedCosts)
}
