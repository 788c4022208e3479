// The trace factory: turns the catalogue into a stream of trace inputs in created_at order — arrival times that
// follow a daily rhythm, sessions and users, latencies, tokens, and the retries and failures a real app sees — written
// as the two SDKs write them (the Python one with its field aliases), for ingest normalization to fold.
import type { Environment, StepInput, TraceInput } from '../../schemas/index.js'
import { DAY_MS, HOUR_MS } from '../lib/time.js'
import {
  APP_VERSIONS,
  CLIENT_REASONS,
  LLM_FAILURES,
  MODEL_SPEED,
  type Profile,
  REGIONS,
  type StepPlan,
  TOOL_ERRORS,
} from './catalogue.js'
import { type Rng, uuidv7At, type Weighted } from './random.js'

/** Share of traces in the slow tail (latency ≥ 5000 ms), besides timeouts. */
const SLOW_SHARE = 0.03
const SLOW_MS = 5_000

interface Session {
  profile: number
  environment: Environment
  user_id: string | null
  session_id: string | null
  /** Traces it may still receive. */
  remaining: number
  /** created_at of its latest trace. */
  last: number
}

const userId = (n: number) => `user_${n.toString(36).padStart(4, '0')}`

/** A session gets no more traces after this long without one. */
const SESSION_IDLE_MS = 30 * 60_000
const MAX_SESSION_TRACES = 40
const BIN_MS = 60_000

/**
 * `total` arrival times over the window, produced in ascending order (so rows are appended in created_at and
 * trace_id order): ascending uniform order statistics mapped through the inverse CDF of a per-minute density —
 * exponential growth towards `now` (the start of the window is e^-1.5 ≈ 22% as busy as today) times a daily
 * rhythm (quiet around 03:00 UTC, busy around 15:00) and quieter weekends.
 */
class ArrivalClock {
  private readonly start: number
  private readonly cdf: Float64Array
  private readonly bins: number
  private u = 0
  private bin = 0
  private left: number

  constructor(
    private readonly g: Rng,
    private readonly now: number,
    span: number,
    total: number,
  ) {
    this.start = now - span
    this.bins = Math.max(1, Math.ceil(span / BIN_MS))
    this.cdf = new Float64Array(this.bins + 1)
    for (let i = 0; i < this.bins; i++) {
      const binStart = this.start + i * BIN_MS
      const width = Math.min(BIN_MS, now - binStart)
      const t = binStart + width / 2
      const recency = Math.exp((-1.5 * (now - t)) / span)
      const hour = (((t % DAY_MS) + DAY_MS) % DAY_MS) / HOUR_MS
      let rhythm = 0.15 + 0.85 * (0.5 - 0.5 * Math.cos((2 * Math.PI * (hour - 3)) / 24)) ** 1.5
      const weekday = (Math.floor(t / DAY_MS) + 4) % 7 // 1970-01-01 was a Thursday
      if (weekday === 0 || weekday === 6) rhythm *= 0.6
      this.cdf[i + 1] = (this.cdf[i] as number) + recency * rhythm * (width / BIN_MS)
    }
    this.left = total
  }

  /** The next (not earlier) arrival, epoch ms within [now − span, now]. */
  next(): number {
    // The smallest of the `left` uniforms still to come, above the previous one.
    this.u = 1 - (1 - this.u) * (1 - this.g.next()) ** (1 / Math.max(1, this.left))
    this.left--
    const cdf = this.cdf
    const target = this.u * (cdf[this.bins] as number)
    while (this.bin < this.bins - 1 && (cdf[this.bin + 1] as number) <= target) this.bin++
    const lo = cdf[this.bin] as number
    const hi = cdf[this.bin + 1] as number
    const frac = hi > lo ? Math.min(1, Math.max(0, (target - lo) / (hi - lo))) : 0
    const t = Math.floor(this.start + (this.bin + frac) * BIN_MS)
    return Math.min(this.now, Math.max(Math.ceil(this.start), t))
  }
}

interface StepDraft {
  plan: StepPlan
  status: 'success' | 'failed'
  error: string | null
  share: number
  fixedLatency: number | null
  tokens: boolean
  metadata: Record<string, unknown> | null
}

/** A trace's outcome as the factory works it out: what the mishaps change before it is written. */
interface Outcome {
  latency: number
  promptTokens: number
  completionTokens: number
  response: string | null
  failureReason: string | null
  clientStatus: string | null
  clientRetries: number | null
  tokensKnown: boolean
  metadata: Record<string, unknown>
}

const round1 = (x: number) => Math.round(x * 10) / 10
/** How Python's `datetime.isoformat()` writes an aware UTC time: microseconds and `+00:00`. */
const pythonIso = (ms: number) => `${new Date(ms).toISOString().slice(0, -1)}000+00:00`

export class TraceFactory {
  private readonly profileWeights: Weighted<number>
  private readonly userPools: number[]
  private readonly open: Session[][]
  private readonly clock: ArrivalClock

  constructor(
    private readonly g: Rng,
    private readonly profiles: readonly Profile[],
    now: number,
    days: number,
    total: number,
  ) {
    this.clock = new ArrivalClock(g, now, days * DAY_MS, total)
    this.profileWeights = profiles.map((p, i) => [i, p.weight] as const)
    const weightSum = profiles.reduce((s, p) => s + p.weight, 0)
    // About 30 traces per user over the window, whatever the size of the run.
    this.userPools = profiles.map((p) => Math.max(20, Math.round((total * p.weight) / weightSum / 30)))
    this.open = profiles.map(() => [])
  }

  /** A conversation still going in this project, or a new one (anonymous calls have none). */
  private sessionFor(profile: number, t: number): Session {
    const g = this.g
    const p = this.profiles[profile] as Profile
    const open = this.open[profile] as Session[]
    // Continuing with probability 1 − 1/L gives sessions of L traces on average.
    if (g.chance(1 - 1 / p.sessionLength)) {
      while (open.length > 0) {
        const i = g.int(open.length)
        const s = open[i] as Session
        if (s.remaining > 0 && t - s.last <= SESSION_IDLE_MS) return s
        open[i] = open[open.length - 1] as Session
        open.pop()
      }
    }
    const anonymous = g.chance(p.anonymous)
    const s: Session = {
      profile,
      environment: g.weighted(p.environments),
      user_id: anonymous ? null : userId(g.int(this.userPools[profile] as number)),
      session_id: anonymous ? null : `sess_${g.hex(16)}`,
      remaining: MAX_SESSION_TRACES,
      last: t,
    }
    if (!anonymous) open.push(s)
    return s
  }

  /** The next trace (in created_at order), with the project and environment its key would carry. */
  next(): { input: TraceInput; profile: number; environment: Environment; createdAt: number } {
    const createdAt = this.clock.next()
    const profile = this.g.weighted(this.profileWeights)
    const s = this.sessionFor(profile, createdAt)
    s.remaining--
    s.last = createdAt
    const input = this.build(this.profiles[profile] as Profile, s, createdAt)
    return { input, profile, environment: s.environment, createdAt }
  }

  /** One trace: a scenario of the project, its latency and tokens, perhaps a mishap, written as its SDK would. */
  private build(p: Profile, s: Session, createdAt: number): TraceInput {
    const g = this.g
    const draft = g.weighted(p.scenarios)(g)
    const model = g.weighted(p.models)
    const speed = model === null ? 1 : (MODEL_SPEED[model] ?? 1)
    const python = g.chance(p.python)
    const latency = this.totalLatency(p, speed)
    const t: Outcome = {
      latency,
      promptTokens: Math.ceil(draft.prompt.length / 4) + draft.contextTokens,
      completionTokens: Math.max(8, Math.round(g.logNormal(220, 0.7))),
      response: draft.response,
      failureReason: null,
      clientStatus: null,
      clientRetries: null,
      tokensKnown: true,
      metadata: {
        synthetic: true,
        sdk: python ? 'loupe-python/0.5.2' : 'loupe-js/0.4.1',
        region: g.pick(REGIONS),
        app_version: g.pick(APP_VERSIONS),
        temperature: g.pick([0, 0.2, 0.3, 0.7, 1]),
      },
    }
    const steps: StepDraft[] = draft.plan.map((plan) => ({
      plan,
      status: 'success',
      error: null,
      share: plan.share * g.logNormal(1, 0.35),
      fixedLatency: null,
      tokens: plan.type === 'llm',
      metadata: plan.type === 'llm' ? { model, temperature: t.metadata.temperature } : null,
    }))
    this.mishap(p, steps, t, model)
    const stepInputs = this.stepInputs(steps, t, createdAt, python)
    if (!t.tokensKnown) {
      // The provider never reported usage: token_count is inferred from the steps that finished.
      t.promptTokens = 0
      t.completionTokens = 0
    }

    const tags = draft.tags.slice()
    if (s.environment !== 'production') tags.push(s.environment)
    if (g.chance(0.05)) tags.push('beta')

    const trace: TraceInput = {
      trace_id: uuidv7At(createdAt, g),
      name: draft.name,
      model,
      prompt: draft.prompt,
      response: t.response,
      session_id: s.session_id,
      user_id: s.user_id,
      tags,
      metadata: t.metadata,
      created_at: python ? pythonIso(createdAt) : createdAt,
      steps: stepInputs.length > 0 ? stepInputs : null,
    }
    const total = Math.round(t.latency * 10) / 10
    if (python) trace.latency_ms = total
    else trace.latency = total
    if (t.tokensKnown) {
      trace.prompt_tokens = t.promptTokens
      trace.completion_tokens = t.completionTokens
    }
    if (t.clientStatus !== null) trace.status = t.clientStatus
    if (t.failureReason !== null) trace.failure_reason = t.failureReason
    if (t.clientRetries !== null) trace.retry_count = t.clientRetries
    return trace
  }

  /** Total latency: log-normal below the slow threshold, plus a ~3% tail of slow calls. */
  private totalLatency(p: Profile, speed: number): number {
    const g = this.g
    let latency: number
    if (g.chance(SLOW_SHARE)) {
      latency = SLOW_MS + g.logNormal(2_500, 0.8)
    } else {
      latency = g.logNormal(p.latencyMedian * speed, p.latencySigma)
      for (let i = 0; i < 3 && latency >= SLOW_MS; i++) latency = g.logNormal(p.latencyMedian * speed, p.latencySigma)
      if (latency >= SLOW_MS) latency = SLOW_MS - 1 - g.next() * 1000
    }
    return Math.max(latency, 40 + g.next() * 60)
  }

  /** What goes wrong, if anything, at the project's rates: a retry, a failure, or a fallback to another call. */
  private mishap(p: Profile, steps: StepDraft[], t: Outcome, model: string | null): void {
    const g = this.g
    const roll = g.next()
    const toolIdx = steps.flatMap((st, i) => (st.plan.tool !== null ? [i] : []))
    if (steps.length === 0) {
      this.bareCallMishap(p, roll, t)
    } else if (roll < p.retryRate && toolIdx.length > 0) {
      this.retryTool(steps, g.pick(toolIdx), t)
    } else if (roll < p.retryRate + p.failureRate) {
      this.failRun(steps, toolIdx, t)
    } else if (roll < p.retryRate + p.failureRate + p.fallbackRate) {
      this.fallback(steps, model)
    }
  }

  /** A bare SDK call: the client reports retries and failures itself. */
  private bareCallMishap(p: Profile, roll: number, t: Outcome): void {
    const g = this.g
    if (roll < p.retryRate) {
      t.clientRetries = g.between(1, 3)
      t.metadata.retry_reason = g.pick(['rate_limited', 'overloaded', 'timeout'])
    } else if (roll < p.retryRate + p.failureRate) {
      t.clientStatus = g.pick(['error', 'failed'])
      if (g.chance(0.7)) t.failureReason = g.weighted(LLM_FAILURES)(g).error
      t.response = null
      t.completionTokens = 0
    }
  }

  /** A tool is retried; most retries recover (warning), some exhaust their attempts (failed). */
  private retryTool(steps: StepDraft[], at: number, t: Outcome): void {
    const g = this.g
    const target = steps[at] as StepDraft
    const extra = g.chance(0.75) ? 1 : 2
    const duplicateSuccess = g.chance(0.15)
    const exhausted = !duplicateSuccess && g.chance(0.2)
    const failedCopies: StepDraft[] = []
    for (let i = 0; i < extra; i++) {
      failedCopies.push({
        ...target,
        status: duplicateSuccess ? 'success' : 'failed',
        error: duplicateSuccess ? null : g.pick(TOOL_ERRORS),
        share: target.share * (duplicateSuccess ? 1 : 0.6),
        metadata: { attempt: i + 1 },
      })
    }
    if (exhausted) {
      // The last attempt fails too and the run stops there.
      steps.splice(at, steps.length - at, ...failedCopies, {
        ...target,
        status: 'failed',
        error: g.pick(TOOL_ERRORS),
        metadata: { attempt: extra + 1 },
      })
      t.response = g.chance(0.5) ? null : "Sorry, I couldn't complete that request right now. Please try again later."
      t.tokensKnown = false
    } else {
      steps.splice(at, 0, ...failedCopies)
      target.metadata = { attempt: extra + 1 }
    }
  }

  /** The run fails: its last model call, a tool without a retry, or the client rejecting a good result. */
  private failRun(steps: StepDraft[], toolIdx: number[], t: Outcome): void {
    const g = this.g
    const lastLlm = steps.map((st) => st.plan.type).lastIndexOf('llm')
    const kind = g.next()
    if (kind < 0.55 && lastLlm >= 0) {
      // The model call the trace ends on fails.
      const failure = g.weighted(LLM_FAILURES)(g)
      steps.splice(lastLlm + 1)
      const st = steps[lastLlm] as StepDraft
      st.status = 'failed'
      st.error = failure.error
      st.tokens = false
      if (failure.latency !== undefined) {
        st.fixedLatency = failure.latency
        t.latency += failure.latency
      }
      t.response = null
      t.tokensKnown = false
    } else if (kind < 0.75 && toolIdx.length > 0) {
      // A tool fails once with no retry: the run gives up.
      const at = g.pick(toolIdx)
      steps.splice(at + 1)
      const st = steps[at] as StepDraft
      st.status = 'failed'
      st.error = g.pick(TOOL_ERRORS)
      t.response = null
      t.tokensKnown = false
    } else {
      // Every step went fine but the client rejected the result.
      t.failureReason = g.pick(CLIENT_REASONS)
      if (g.chance(0.3)) t.clientStatus = 'failed'
    }
  }

  /** The model is overloaded; a fallback call succeeds (warning without a retry). */
  private fallback(steps: StepDraft[], model: string | null): void {
    const g = this.g
    const lastLlm = steps.map((st) => st.plan.type).lastIndexOf('llm')
    if (lastLlm < 0) return
    const st = steps[lastLlm] as StepDraft
    steps.splice(lastLlm, 0, {
      ...st,
      status: 'failed',
      error: g.pick(['overloaded_error: 529 Overloaded', 'upstream error: 502 Bad Gateway', 'stream interrupted']),
      share: st.share * 0.3,
      tokens: false,
      metadata: { model },
    })
    st.metadata = { model, fallback: true }
  }

  /** The steps as sent: the latency split (a little overhead stays outside the steps), the tokens across the model calls. */
  private stepInputs(steps: StepDraft[], t: Outcome, createdAt: number, python: boolean): StepInput[] {
    const g = this.g
    const fixed = steps.reduce((sum, st) => sum + (st.fixedLatency ?? 0), 0)
    const shareSum = steps.reduce((sum, st) => sum + (st.fixedLatency === null ? st.share : 0), 0) || 1
    const budget = Math.max(0, t.latency - fixed) * (0.88 + g.next() * 0.1)
    const llmSteps = steps.filter((st) => st.tokens)
    const totalTokens = t.promptTokens + t.completionTokens
    let offset = g.next() * 5
    return steps.map((st) => {
      const stepLatency = round1(st.fixedLatency ?? (budget * st.share) / shareSum)
      const tokens = st.tokens ? Math.max(1, Math.round(totalTokens / llmSteps.length)) : null
      const startedAt = Math.floor(createdAt + offset)
      offset += stepLatency + g.next() * 3
      return python ? pythonStep(st, stepLatency, tokens, startedAt) : jsStep(st, stepLatency, tokens, startedAt)
    })
  }
}

/** A step as the Python SDK writes it: upper-case type, `tool_name`, status words, `duration_ms`, `tokens`. */
const pythonStep = (st: StepDraft, latency: number, tokens: number | null, startedAt: number): StepInput => ({
  name: st.plan.name,
  type: st.plan.type.toUpperCase(),
  tool_name: st.plan.tool,
  status: st.status === 'failed' ? 'error' : 'ok',
  duration_ms: latency,
  tokens,
  input: st.plan.input ?? null,
  output: st.status === 'failed' ? null : (st.plan.output ?? null),
  error: st.error,
  started_at: pythonIso(startedAt),
  metadata: st.metadata,
})

/** A step as the JS SDK writes it: the schema's own field names. */
const jsStep = (st: StepDraft, latency: number, tokens: number | null, startedAt: number): StepInput => ({
  name: st.plan.name,
  type: st.plan.type,
  tool: st.plan.tool,
  status: st.status,
  latency,
  token_count: tokens,
  input: st.plan.input ?? null,
  output: st.status === 'failed' ? null : (st.plan.output ?? null),
  error: st.error,
  started_at: startedAt,
  metadata: st.metadata,
})
