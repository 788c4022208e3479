// One trace being recorded by `loupe.trace()`: the callback's handle (`t`), its steps, and the TraceInput it becomes.
// Every method is synchronous and guarded: recording must never fail, delay or change the app's own code path.
import type { ScoreInput, StepInput, TraceInput } from '../../schemas/index.js'
import { CLIENT_LIMITS, clip, errorMessage, toText } from './json.js'
import type { StepContext, StepOptions, TokenUsage, TraceContext, TraceOptions, TraceScoreOptions } from './types.js'

/** Longest failure reason the server takes (schemas/trace.ts). */
const MAX_REASON = 8192

interface TokenFields {
  prompt_tokens?: number
  completion_tokens?: number
  total?: number
}

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined

/** Any accepted token shape → the contract's fields (invalid numbers are left out rather than sent). */
export function tokenFields(tokens: TokenUsage): TokenFields {
  if (typeof tokens === 'number') return { total: count(tokens) }
  if (tokens === null || typeof tokens !== 'object') return {}
  const t = tokens as Record<string, unknown>
  return {
    prompt_tokens: count(t.prompt_tokens ?? t.promptTokens ?? t.input_tokens),
    completion_tokens: count(t.completion_tokens ?? t.completionTokens ?? t.output_tokens),
    total: count(t.total_tokens ?? t.totalTokens),
  }
}

const failureReason = (err: unknown): string => clip(errorMessage(err) || 'an error was thrown', MAX_REASON)

class StepRecorder implements StepContext {
  readonly record: StepInput
  #t0 = performance.now()
  #output: { value: unknown } | undefined
  done = false

  constructor(options: StepOptions) {
    const { name, type, tool, input, metadata } = options ?? {}
    this.record = {
      name: name ?? undefined,
      type: type ?? (tool ? 'tool' : undefined),
      tool: tool ?? undefined,
      input,
      metadata: metadata ?? undefined,
      started_at: new Date().toISOString(),
    }
  }

  setOutput(output: unknown): void {
    this.#output = { value: output }
  }

  setTokens(tokens: TokenUsage): void {
    const { prompt_tokens, completion_tokens, total } = tokenFields(tokens)
    const sum =
      prompt_tokens === undefined && completion_tokens === undefined
        ? undefined
        : (prompt_tokens ?? 0) + (completion_tokens ?? 0)
    this.record.token_count = total ?? sum
  }

  setMetadata(metadata: Record<string, unknown>): void {
    this.record.metadata = { ...this.record.metadata, ...metadata }
  }

  end(outcome: { result?: unknown; error?: unknown; failed: boolean }): void {
    this.done = true
    this.record.latency = performance.now() - this.#t0
    this.record.output = this.#output ? this.#output.value : outcome.result
    if (outcome.failed) {
      this.record.status = 'failed'
      this.record.error = failureReason(outcome.error)
    } else {
      this.record.status = 'success'
    }
  }
}

export class TraceRecorder implements TraceContext {
  readonly traceId: string
  readonly #options: TraceOptions
  readonly #startedAt = Date.now()
  readonly #t0 = performance.now()
  readonly #steps: StepRecorder[] = []
  #response: { value: unknown } | undefined
  #tokens: TokenFields = {}
  #model: string | undefined
  #metadata: Record<string, unknown> | undefined
  #failure: string | undefined
  #ended = false
  /** Scores given before the trace was handed over for delivery; `#deliver` takes them from then on. */
  #scores: ScoreInput[] = []
  #deliver: ((scores: ScoreInput[]) => void) | undefined

  constructor(options: TraceOptions, newId: () => string) {
    this.#options = options ?? {}
    this.traceId = this.#options.traceId ?? newId()
  }

  async step<T>(options: StepOptions, fn: (s: StepContext) => T | Promise<T>): Promise<T> {
    let step: StepRecorder | undefined
    try {
      if (!this.#ended && this.#steps.length < CLIENT_LIMITS.steps) {
        step = new StepRecorder(options)
        // The slot is taken when the step starts, so concurrent steps keep their start order.
        this.#steps.push(step)
      }
    } catch {
      step = undefined
    }
    const handle: StepContext = step ?? { setOutput() {}, setTokens() {}, setMetadata() {} }
    let result: T
    try {
      result = await fn(handle)
    } catch (err) {
      guard(() => step?.end({ error: err, failed: true }))
      throw err
    }
    guard(() => step?.end({ result, failed: false }))
    return result
  }

  setResponse(response: unknown): void {
    this.#response = { value: response }
  }

  setTokens(tokens: TokenUsage): void {
    guard(() => {
      this.#tokens = tokenFields(tokens)
    })
  }

  setModel(model: string): void {
    this.#model = model
  }

  setMetadata(metadata: Record<string, unknown>): void {
    guard(() => {
      this.#metadata = { ...this.#metadata, ...metadata }
    })
  }

  setFailure(reason: string): void {
    this.#failure = clip(String(reason) || 'marked as failed', MAX_REASON)
  }

  score(score: TraceScoreOptions): void {
    guard(() => {
      const o = score ?? ({} as TraceScoreOptions)
      const input: ScoreInput = {
        score_id: o.scoreId,
        trace_id: this.traceId,
        step_index: o.stepIndex,
        name: o.name,
        data_type: o.dataType,
        value: o.value,
        label: o.label,
        comment: o.comment,
        source: o.source,
        author: o.author,
        // When it was given, not when it could be sent (after its trace).
        created_at: o.createdAt ?? new Date().toISOString(),
        metadata: o.metadata,
      }
      if (this.#deliver) this.#deliver([input])
      else if (this.#scores.length < CLIENT_LIMITS.batch) this.#scores.push(input)
    })
  }

  /** From now on scores go to `deliver`; those given so far go at once. */
  deliverScores(deliver: (scores: ScoreInput[]) => void): void {
    this.#deliver = deliver
    const waiting = this.#scores.splice(0)
    if (waiting.length > 0) deliver(waiting)
  }

  /** The trace as the server takes it; steps still running are sent as they stand, flagged `unfinished`. */
  end(outcome: { result?: unknown; error?: unknown; failed: boolean }): TraceInput {
    this.#ended = true
    const o = this.#options
    const failure = outcome.failed ? failureReason(outcome.error) : this.#failure
    const metadata = o.metadata || this.#metadata ? { ...o.metadata, ...this.#metadata } : undefined
    return {
      trace_id: this.traceId,
      name: o.name ?? undefined,
      model: this.#model ?? o.model ?? undefined,
      prompt: clip(typeof o.prompt === 'string' ? o.prompt : (toText(o.prompt) ?? '')),
      response: toText(this.#response ? this.#response.value : outcome.result),
      latency: performance.now() - this.#t0,
      prompt_tokens: this.#tokens.prompt_tokens,
      completion_tokens: this.#tokens.completion_tokens,
      token_count: this.#tokens.total,
      failure_reason: failure,
      session_id: o.sessionId ?? undefined,
      user_id: o.userId ?? undefined,
      experiment_id: o.experimentId ?? undefined,
      dataset_item_id: o.datasetItemId ?? undefined,
      tags: o.tags
        ? o.tags.slice(0, CLIENT_LIMITS.tags).map((tag) => String(tag).slice(0, CLIENT_LIMITS.tagLength))
        : undefined,
      metadata,
      created_at: new Date(this.#startedAt).toISOString(),
      steps: this.#steps.map((step) =>
        step.done ? step.record : { ...step.record, metadata: { ...step.record.metadata, unfinished: true } },
      ),
    }
  }
}

/** Runs a piece of bookkeeping; a failure in it is swallowed (the SDK must not break the app). */
function guard(fn: () => void): void {
  try {
    fn()
  } catch {
    // recording is best effort
  }
}
