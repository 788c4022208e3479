// What a call cost: the cost a client reported, else the price of its model times its tokens, else null (unpriced,
// never guessed). Prices come from operators' overrides (per model-name pattern) first, then from the versioned price
// database of @pydantic/genai-prices, which ships with the package (no network) and matches dated and aliased model
// names (`gpt-4o-2024-08-06` → gpt-4o). Pure functions: ingest and `costs recompute` price a trace the same way.
import { calcPrice } from '@pydantic/genai-prices'
import { BOUNDS, type Step, type Trace } from '../../schemas/index.js'

/** Costs are kept in whole nano-dollars (9 decimals of USD), so that every sum of them is exact. */
export const NANOS_PER_USD = 1_000_000_000

/** A cost in USD as the whole nano-dollars it is stored as. */
export const costNanos = (usd: number): number => Math.round(usd * NANOS_PER_USD)

/** A cost in USD, rounded to nano-dollars. */
export const roundCost = (usd: number): number => costNanos(usd) / NANOS_PER_USD

/** An operator's price for the model names matching `pattern` (`*` matches any run of characters). */
export interface PriceRule {
  pattern: string
  /** USD per million input (prompt) tokens. */
  input_price: number
  /** USD per million output (completion) tokens. */
  output_price: number
  /** USD per million cached input tokens; null: cached tokens cost the input price. */
  cached_input_price: number | null
}

/** The tokens of one call, split as prices are. */
export interface CallUsage {
  input: number
  output: number
  /** Of `input`, how many were read from the provider's prompt cache. */
  cached: number
}

/** The cost of a call in nano-dollars, or null when its model has no price. */
export type Pricer = (model: string, usage: CallUsage) => number | null

const escapeRegExp = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&')

/** A pattern as an anchored, case-insensitive expression. */
const patternRegExp = (pattern: string) => new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 'i')

/** How specific a pattern is: an exact name first, then the one with most literal characters, then by text. */
function bySpecificity(a: PriceRule, b: PriceRule): number {
  const wild = (p: string) => (p.includes('*') ? 1 : 0)
  const literal = (p: string) => p.replaceAll('*', '').length
  return (
    wild(a.pattern) - wild(b.pattern) ||
    literal(b.pattern) - literal(a.pattern) ||
    (a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0)
  )
}

/** The price database's cost of a call, in USD, or null when it does not know the model. */
function databaseUsd(model: string, usage: CallUsage): number | null {
  const tokens = { input_tokens: usage.input, output_tokens: usage.output, cache_read_tokens: usage.cached }
  const direct = calcPrice(tokens, model)
  if (direct) return direct.total_price
  // `openai/gpt-4o`, as routers and some SDKs name models: the provider, then its model.
  const slash = model.indexOf('/')
  if (slash > 0) {
    const viaProvider = calcPrice(tokens, model.slice(slash + 1), { providerId: model.slice(0, slash).toLowerCase() })
    if (viaProvider) return viaProvider.total_price
  }
  return null
}

/** Prices calls from the overrides first, then the price database; the answers of the database are remembered. */
export function createPricer(rules: readonly PriceRule[]): Pricer {
  const sorted = [...rules].sort(bySpecificity).map((rule) => ({ rule, re: patternRegExp(rule.pattern) }))
  const known = new Map<string, PriceRule | null>()
  const ruleFor = (model: string) => {
    if (!known.has(model)) known.set(model, sorted.find((r) => r.re.test(model))?.rule ?? null)
    return known.get(model) ?? null
  }
  return (model, usage) => {
    const rule = ruleFor(model)
    if (rule) {
      const cachedPrice = rule.cached_input_price ?? rule.input_price
      // USD per million tokens × tokens = nano-dollars × 10^-3.
      return Math.round(
        ((usage.input - usage.cached) * rule.input_price +
          usage.cached * cachedPrice +
          usage.output * rule.output_price) *
          1000,
      )
    }
    const usd = databaseUsd(model, usage)
    return usd === null || !Number.isFinite(usd) || usd < 0 ? null : costNanos(usd)
  }
}

/** Costs a client reported (nano-dollars), kept beside the trace so that a re-pricing never replaces them. */
export interface ReportedCosts {
  trace: number | null
  /** Step index → cost. */
  steps: Record<string, number>
}

/** What a client reported of a normalized trace: the costs it carries before any pricing. Null when none. */
export function reportedCosts(trace: Pick<Trace, 'cost' | 'steps'>): ReportedCosts | null {
  const steps: Record<string, number> = {}
  for (const step of trace.steps) if (step.cost !== null) steps[step.index] = costNanos(step.cost)
  if (trace.cost === null && Object.keys(steps).length === 0) return null
  return { trace: trace.cost === null ? null : costNanos(trace.cost), steps }
}

const count = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null

/** Metadata keys that may hold the cached part of the input tokens (the SDK's, OTLP GenAI, OpenInference). */
const CACHED_KEYS = [
  'cached_tokens',
  'cache_read_tokens',
  'gen_ai.usage.cache_read_input_tokens',
  'llm.token_count.prompt_details.cache_read',
]

/**
 * The input/output split of a call, or null when it is not known: both counts, or one of them and the total (the
 * other is then the rest). A total alone cannot be priced without guessing the split.
 */
export function callUsage(
  prompt: number | null,
  completion: number | null,
  total: number | null,
  metadata: Record<string, unknown>,
): CallUsage | null {
  const input = prompt ?? (completion !== null && total !== null ? total - completion : null)
  const output = completion ?? (prompt !== null && total !== null ? total - prompt : null)
  if (input === null || output === null || input < 0 || output < 0) return null
  const cachedValue = CACHED_KEYS.map((k) => count(metadata[k])).find((v) => v !== null) ?? 0
  return { input, output, cached: Math.min(cachedValue, input) }
}

/** The model a step names (in its metadata, as the SDK and OTLP record it), or null. */
export function stepModel(step: Pick<Step, 'metadata'>): string | null {
  const model = step.metadata.model
  return typeof model === 'string' && model.trim() !== '' ? model : null
}

function stepCostNanos(step: Step, reported: ReportedCosts | null, price: Pricer): number | null {
  const given = reported?.steps[step.index]
  if (given !== undefined) return given
  const model = stepModel(step)
  if (model === null) return null
  const usage = callUsage(
    count(step.metadata.prompt_tokens),
    count(step.metadata.completion_tokens),
    step.token_count,
    step.metadata,
  )
  return usage === null ? null : price(model, usage)
}

/**
 * The trace with its costs worked out, in order: what the client reported; for the trace, else the sum of its steps'
 * costs when its steps carry the calls (a step names a model or a cost) and every one of them is priced; else its
 * model's price times its own tokens, when no step names another model (the price is then exact, not a blend); else
 * null — a partial sum or another model's price would be a guess.
 */
export function priceTrace(trace: Trace, reported: ReportedCosts | null, price: Pricer): Trace {
  const stepCosts = trace.steps.map((step) => stepCostNanos(step, reported, price))
  let nanos: number | null = reported?.trace ?? null
  if (nanos === null) {
    const carriers = trace.steps
      .map((step, i) => ({ model: stepModel(step), cost: stepCosts[i] ?? null, reported: reported?.steps[step.index] }))
      .filter((s) => s.model !== null || s.cost !== null)
    if (carriers.length > 0 && carriers.every((s) => s.cost !== null)) {
      nanos = carriers.reduce((n, s) => n + (s.cost ?? 0), 0)
    } else if (trace.model !== null && carriers.every((s) => s.model === trace.model && s.reported === undefined)) {
      const usage = callUsage(trace.prompt_tokens, trace.completion_tokens, trace.token_count, trace.metadata)
      nanos = usage === null ? null : price(trace.model, usage)
    }
  }
  // A computed cost beyond what one call can cost (absurd token counts) is no price at all.
  const toUsd = (n: number | null) => (n === null || n > BOUNDS.costUsd * NANOS_PER_USD ? null : n / NANOS_PER_USD)
  const steps = trace.steps.some((step, i) => step.cost !== toUsd(stepCosts[i] ?? null))
    ? trace.steps.map((step, i) => ({ ...step, cost: toUsd(stepCosts[i] ?? null) }))
    : trace.steps
  return { ...trace, cost: toUsd(nanos), steps }
}
