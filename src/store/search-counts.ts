// Exact totals of searches, kept between requests by each store instance: a search's count up to a horizon past
// which no trace can appear any more, so that the next request only tests the traces stored after it. A trace's
// searchable text and the other filters kept never change once it is stored; only a removal does, and every
// transaction that removes traces (or fills in their text) bumps a counter in loupe_meta, read in the same snapshot as
// the count: a count kept under another value of it is never used, whichever instance removed the traces.
import type { TraceFilter } from './types.js'

/** The loupe_meta key of the removal counter. */
const REMOVALS = 'traces_removed'

/** Bumps the removal counter: one statement, the same text on both stores, inside the removing transaction. */
export const BUMP_REMOVALS = `insert into loupe_meta (key, value) values ('${REMOVALS}', '1')
  on conflict (key) do update set value = cast(cast(loupe_meta.value as bigint) + 1 as text)`

/** The removal counter as a select-list expression ('0' before any removal). */
export const REMOVALS_NOW = `coalesce((select value from loupe_meta where key = '${REMOVALS}'), '0')`

/** A count of a search's matches among the traces below a horizon, under one value of the removal counter. */
export interface KeptCount<H> {
  removals: string
  horizon: H
  n: number
}

/** How many searches each store instance keeps a count of (the least recently asked are forgotten). */
const KEPT = 256

/**
 * Whether a search's total is kept: a search, on filters a stored trace never changes (re-pricing changes costs).
 */
export const keepsCount = (f: TraceFilter): boolean =>
  f.q !== undefined && f.q.length > 0 && f.min_cost === undefined && f.max_cost === undefined

/**
 * The counts one store instance keeps. `covers(kept, now)`: a read whose horizon is `now` sees every trace below the
 * `kept` horizon that will ever exist (and the counts kept were taken under the same removal counter).
 */
export function createSearchCounts<H>(covers: (kept: H, now: H) => boolean) {
  const counts = new Map<string, KeptCount<H>>()
  return {
    /** The count kept for a filter that a read at this removal counter and horizon may start from. */
    usable(f: TraceFilter, removals: string, horizon: H): KeptCount<H> | undefined {
      const kept = counts.get(JSON.stringify(f))
      return kept && kept.removals === removals && covers(kept.horizon, horizon) ? kept : undefined
    },
    keep(f: TraceFilter, count: KeptCount<H>): void {
      const key = JSON.stringify(f)
      counts.delete(key)
      counts.set(key, count)
      if (counts.size > KEPT) counts.delete(counts.keys().next().value!)
    },
  }
}

export type SearchCounts<H> = ReturnType<typeof createSearchCounts<H>>
