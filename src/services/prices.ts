// The price service: operators' overrides (kept in the store), the pricer ingest uses, and re-pricing stored traces.
// The overrides are read once and kept for a few seconds: a change made here applies to the next trace at once, one
// made through another replica within RULES_TTL_MS.
import type { ModelPrice, PutModelPriceBody } from '../../schemas/index.js'
import { createPricer, type Pricer, priceTrace } from '../costs/pricing.js'
import { ModelPriceNotFound } from '../errors.js'
import { toUtcIso } from '../lib/time.js'
import type { PriceRuleRecord, RepriceOutcome, Store } from '../store/types.js'

/** How long overrides read from the store are trusted before they are read again (changes by other replicas). */
export const RULES_TTL_MS = 5000

export interface PriceService {
  /** The pricer of the overrides in force now. */
  pricer(): Promise<Pricer>
  list(): Promise<ModelPrice[]>
  get(pattern: string): Promise<ModelPrice>
  /** Adds or replaces an override; `created` when it is new. */
  put(pattern: string, body: PutModelPriceBody): Promise<{ created: boolean; price: ModelPrice }>
  remove(pattern: string): Promise<void>
  /** Prices the stored traces with created_at ≥ since (all when undefined) again. */
  recompute(since: number | undefined): Promise<RepriceOutcome>
}

const toModelPrice = (r: PriceRuleRecord): ModelPrice => ({
  pattern: r.pattern,
  input_price: r.input_price,
  output_price: r.output_price,
  cached_input_price: r.cached_input_price,
  updated_at: toUtcIso(r.updated_at),
})

export function createPriceService(store: Store, now: () => number): PriceService {
  let cached: { pricer: Pricer; at: number } | null = null
  const pricer = async () => {
    if (cached === null || now() - cached.at >= RULES_TTL_MS || now() < cached.at) {
      cached = { pricer: createPricer(await store.prices.list()), at: now() }
    }
    return cached.pricer
  }
  const find = async (pattern: string) => {
    const rule = (await store.prices.list()).find((r) => r.pattern === pattern)
    if (!rule) throw new ModelPriceNotFound(pattern)
    return rule
  }
  return {
    pricer,
    async list() {
      return (await store.prices.list()).map(toModelPrice)
    },
    async get(pattern) {
      return toModelPrice(await find(pattern))
    },
    async put(pattern, body) {
      const rule: PriceRuleRecord = {
        pattern,
        input_price: body.input_price,
        output_price: body.output_price,
        cached_input_price: body.cached_input_price ?? null,
        updated_at: now(),
      }
      const created = await store.prices.put(rule)
      cached = null
      return { created, price: toModelPrice(rule) }
    },
    async remove(pattern) {
      if (!(await store.prices.delete(pattern))) throw new ModelPriceNotFound(pattern)
      cached = null
    },
    async recompute(since) {
      cached = null
      const price = await pricer()
      return store.traces.reprice(since, (trace, reported) => priceTrace(trace, reported, price))
    },
  }
}
