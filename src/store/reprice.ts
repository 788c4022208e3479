// Re-pricing stored traces (`loupe costs recompute`): what both stores share of it.
import type { Trace } from '../../schemas/index.js'

/** Traces read, re-priced and written back per transaction. */
export const REPRICE_CHUNK = 500

/** Whether re-pricing changed a trace: its cost, or the cost of one of its steps. */
export function costsDiffer(before: Trace, after: Trace): boolean {
  return before.cost !== after.cost || before.steps.some((step, i) => step.cost !== after.steps[i]?.cost)
}

/** Where a re-pricing stands: after this (created_at, trace_id). */
export interface RepricePosition {
  at: number
  id: string
}

/** What one chunk did, and where the next one starts (null: done). */
export interface RepriceChunk {
  scanned: number
  changed: number
  next: RepricePosition | null
}

/** Runs chunks from the start until one comes back empty; the counts added up. */
export async function repriceAll(
  chunk: (from: RepricePosition) => RepriceChunk | Promise<RepriceChunk>,
): Promise<{ scanned: number; changed: number }> {
  const outcome = { scanned: 0, changed: 0 }
  let position: RepricePosition | null = { at: Number.MIN_SAFE_INTEGER, id: '' }
  while (position) {
    const done: RepriceChunk = await chunk(position)
    outcome.scanned += done.scanned
    outcome.changed += done.changed
    position = done.next
  }
  return outcome
}
