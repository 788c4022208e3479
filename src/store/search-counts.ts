// Exact totals of searches, kept between requests by each store instance: a search's count up to a horizon past
// which no trace can appear any more, so that the next request only tests the traces stored after it. A trace's
// searchable text and the other filters kept never change once it is stored; only a removal does, and every
// transaction that removes traces (or fills in their text) bumps a counter in loupe_meta, read in the same snapshot as
// the count: a count kept under another value of it is never used, whichever instance removed the traces — except
// by the instance that removed them, which takes what it removed away from the counts it keeps (`removable`).
import type { TraceFilter } from './types.js'

/** The loupe_meta key of the removal counter. */
const REMOVALS = 'traces_removed'

/** Bumps the removal counter: one statement, the same text on both stores, inside the removing transaction. */
export const BUMP_REMOVALS = `insert into loupe_meta (key, value) values ('${REMOVALS}', '1')
  on conflict (key) do update set value = cast(cast(loupe_meta.value as bigint) + 1 as text)`

/** The same, answering the counter's new value (`value`), which the removing transaction holds locked to its end. */
export const BUMP_REMOVALS_RETURNING = `${BUMP_REMOVALS} returning value`

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
 * Whether a search's total is kept: a search, on filters a stored trace never changes (re-pricing changes costs; a
 * trace's scores come and go).
 */
export const keepsCount = (f: TraceFilter): boolean =>
  f.q !== undefined &&
  f.q.length > 0 &&
  f.min_cost === undefined &&
  f.max_cost === undefined &&
  f.score_name === undefined &&
  f.scored_by === undefined

/**
 * The counts one store instance keeps. `covers(kept, now)`: a read whose horizon is `now` sees every trace below the
 * `kept` horizon that will ever exist (and the counts kept were taken under the same removal counter).
 */
export function createSearchCounts<H>(covers: (kept: H, now: H) => boolean) {
  const counts = new Map<string, RemovableCount<H>>()
  let full = 0
  return {
    /** The count kept for a filter that a read at this removal counter and horizon may start from. */
    usable(f: TraceFilter, removals: string, horizon: H): KeptCount<H> | undefined {
      const kept = counts.get(JSON.stringify(f))?.count
      if (kept && kept.removals === removals && covers(kept.horizon, horizon)) return kept
      full++
      return undefined
    },
    keep(f: TraceFilter, count: KeptCount<H>): void {
      const key = JSON.stringify(f)
      counts.delete(key)
      counts.set(key, { f, count })
      if (counts.size > KEPT) counts.delete(counts.keys().next().value!)
    },
    /**
     * The counts a removal by this instance can take its traces away from, inside the removing transaction: those kept
     * under the counter's value just before its bump (`bumped` is what the bump answered, under the row's lock, so no
     * other removal came between the count and this one). The others stay unusable.
     */
    removable(bumped: string): RemovableCount<H>[] {
      return removableOf([...counts.values()], bumped)
    },
    /** Every count kept: what a removal on another connection (another thread) picks the removable ones from. */
    kept(): RemovableCount<H>[] {
      return [...counts.values()]
    },
    /**
     * Once the removing transaction committed: each count, if it is still the one kept (no read replaced it
     * meanwhile with another; compared by value, as a removal on another thread answers copies), replaced by what it
     * is past the removal.
     */
    passed(counted: readonly PassedCount<H>[]): void {
      for (const { f, count, next } of counted) {
        const key = JSON.stringify(f)
        const now = counts.get(key)?.count
        if (now && now.removals === count.removals && now.horizon === count.horizon && now.n === count.n) {
          counts.set(key, { f, count: next })
        }
      }
    },
    /** How many searches were counted in full (no kept count could serve) since the instance started. */
    fullCounts: (): number => full,
  }
}

/** A count kept, with its filter. */
export interface RemovableCount<H> {
  f: TraceFilter
  count: KeptCount<H>
}

/**
 * Among counts kept, those a removal can take its traces away from, inside the removing transaction: those kept
 * under the counter's value just before its bump (`bumped`).
 */
export function removableOf<H>(counted: readonly RemovableCount<H>[], bumped: string): RemovableCount<H>[] {
  const before = String(BigInt(bumped) - 1n)
  return counted.filter(({ count }) => count.removals === before)
}

/** A count kept and what it becomes once a removal by this instance commits. */
export interface PassedCount<H> extends RemovableCount<H> {
  next: KeptCount<H>
}

/**
 * The counts past a removal by this instance, from the counter's new value and each removable count's matches among
 * the removed traces it holds (`less`, in the same order).
 */
export function passRemoval<H>(
  counted: readonly RemovableCount<H>[],
  bumped: string,
  less: readonly number[],
): PassedCount<H>[] {
  return counted.map(({ f, count }, i) => ({
    f,
    count,
    next: { removals: bumped, horizon: count.horizon, n: count.n - less[i]! },
  }))
}

export type SearchCounts<H> = ReturnType<typeof createSearchCounts<H>>
