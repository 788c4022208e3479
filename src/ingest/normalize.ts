// Ingest normalization (docs/api.md, Normalization): turns what a client sends into the Trace we store.
import type { Environment } from '../../schemas/common.js'
import { STEP_TYPES, type Step, type StepInput, type StepType } from '../../schemas/step.js'
import type { Trace, TraceInput, TraceStatus } from '../../schemas/trace.js'
import { roundCost } from '../costs/pricing.js'
import { parseTimestamp, roundToMicros, toUtcIso } from '../lib/time.js'

/**
 * A timestamp that passed the schema but is not a real point in time (e.g. an epoch beyond year 9999).
 * Thrown rather than silently replaced, so the caller can answer 400 naming `field` (e.g. `steps/3/started_at`).
 */
export class InvalidTimestampError extends Error {
  readonly field: string
  // Lets Fastify's default error handler answer 400 if nobody maps this error first.
  readonly statusCode = 400
  readonly code = 'LOUPE_INVALID_TIMESTAMP'

  constructor(field: string) {
    super(`${field} must be an ISO 8601 timestamp or an epoch number (seconds or milliseconds)`)
    this.name = 'InvalidTimestampError'
    this.field = field
  }
}

const FAILED_WORDS = new Set(['failed', 'error', 'failure', 'fail', 'errored'])
const SUCCESS_WORDS = new Set(['success', 'ok', 'completed', 'done'])
const KNOWN_TYPES: ReadonlySet<string> = new Set(STEP_TYPES)

/** A string with something other than whitespace in it; blank strings carry no information. */
const hasText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== ''

/** First value that was actually sent: the canonical field is listed first, so it wins over its aliases. */
function firstGiven<T>(...values: (T | null | undefined)[]): T | null {
  for (const value of values) if (value !== undefined && value !== null) return value
  return null
}

/** Missing (undefined/null) → fallback; present but unparseable → InvalidTimestampError naming the field. */
function utcTimestamp(value: unknown, field: string, fallback: number): string
function utcTimestamp(value: unknown, field: string, fallback: null): string | null
function utcTimestamp(value: unknown, field: string, fallback: number | null): string | null {
  if (value === undefined || value === null) return fallback === null ? null : toUtcIso(fallback)
  const ms = parseTimestamp(value)
  if (ms === null) throw new InvalidTimestampError(field)
  return toUtcIso(ms)
}

/** A reported cost rounded to nano-dollars (pricing fills in the rest, src/costs/pricing.ts); null stays null. */
const cost = (usd: number | null | undefined): number | null =>
  usd === undefined || usd === null ? null : roundCost(usd)

/** A latency rounded to microseconds; null stays null. */
const micros = (ms: number | null): number | null => (ms === null ? null : roundToMicros(ms))

/** Lower-cased; unknown → `other`. A step sent without a type but naming a tool is a tool call. */
function stepType(value: string | undefined, tool: string | null): StepType {
  const type = value?.trim().toLowerCase() ?? ''
  if (type === '' && tool !== null) return 'tool'
  return KNOWN_TYPES.has(type) ? (type as StepType) : 'other'
}

function stepStatus(value: string | null | undefined, error: string | null): Step['status'] {
  const word = typeof value === 'string' ? value.trim().toLowerCase() : ''
  if (FAILED_WORDS.has(word)) return 'failed'
  if (SUCCESS_WORDS.has(word)) return 'success'
  // No recognisable word: an error message is the only evidence of how the step went.
  return error === null ? 'success' : 'failed'
}

/** Step normalization (docs/api.md) for one step; `index` is its position, whatever index the client sent. */
export function normalizeStep(input: StepInput, index: number): Step {
  // A blank tool names nothing: it must not count in retry inference, nor hide a real `tool_name`.
  const tool = [input.tool, input.tool_name].find(hasText) ?? null
  const type = stepType(input.type, tool)
  const error = hasText(input.error) ? input.error : null
  return {
    index,
    // StepSchema requires a non-empty name, so a blank one falls back like a missing one.
    name: hasText(input.name) ? input.name : (tool ?? type),
    type,
    tool,
    status: stepStatus(input.status, error),
    latency: micros(firstGiven(input.latency, input.duration, input.duration_ms, input.latency_ms)),
    token_count: firstGiven(input.token_count, input.tokens, input.total_tokens),
    input: input.input ?? null,
    output: input.output ?? null,
    error,
    started_at: utcTimestamp(input.started_at, `steps/${index}/started_at`, null),
    metadata: input.metadata ?? {},
    parent_index: input.parent_index ?? null,
    cost: cost(input.cost),
  }
}

/**
 * Steps nest through `parent_index`: it must name another step of the trace, and following parents must end at the
 * top level (no cycle), so that every step has one place in the tree. The first step that breaks this, else null.
 */
export function stepTreeError(steps: readonly Pick<Step, 'parent_index'>[]): { field: string; message: string } | null {
  // 0: not seen, 1: on the current path, 2: known to reach the top level.
  const state = new Uint8Array(steps.length)
  for (let start = 0; start < steps.length; start++) {
    const path: number[] = []
    let at: number | null = start
    while (at !== null && state[at] === 0) {
      state[at] = 1
      path.push(at)
      const parent: number | null = steps[at]!.parent_index
      if (parent !== null && (parent >= steps.length || parent === at)) {
        return {
          field: `steps/${at}/parent_index`,
          message: `must be the index of another step of this trace (0 to ${steps.length - 1})`,
        }
      }
      if (parent !== null && state[parent] === 1) {
        return { field: `steps/${at}/parent_index`, message: 'must not make a cycle of parents' }
      }
      at = parent
    }
    for (const i of path) state[i] = 2
  }
  return null
}

/**
 * Retry inference: every call of a tool after its first is a retry.
 * Only a trace without steps has nothing to infer from, so only then is the client's number kept.
 */
export function inferRetryCount(steps: readonly Step[], clientRetryCount: number | null | undefined): number {
  if (steps.length === 0) {
    return typeof clientRetryCount === 'number' && Number.isFinite(clientRetryCount) && clientRetryCount > 0
      ? clientRetryCount
      : 0
  }
  const tools = steps.flatMap((step) => (step.tool === null ? [] : [step.tool]))
  return tools.length - new Set(tools).size
}

export interface StatusInference {
  steps: readonly Step[]
  retry_count: number
  /** The client's own status word; only `failed`/`error` is read. */
  client_status?: string | null
  /** The client's failure reason; blank counts as none. */
  failure_reason?: string | null
}

/** Each tool's last step that failed, in step order: a tool whose final attempt failed never recovered. */
function unrecoveredToolSteps(steps: readonly Step[]): Step[] {
  const lastByTool = new Map<string, Step>()
  for (const step of steps) if (step.tool !== null) lastByTool.set(step.tool, step)
  return [...lastByTool.values()].filter((step) => step.status === 'failed').sort((a, b) => a.index - b.index)
}

/** Status inference: the stored status and failure reason; the client's status is a hint, never the answer. */
export function inferStatus(args: StatusInference): { status: TraceStatus; failure_reason: string | null } {
  const { steps, retry_count } = args
  const reason = hasText(args.failure_reason) ? args.failure_reason : null
  const clientWord = typeof args.client_status === 'string' ? args.client_status.trim().toLowerCase() : ''
  const clientFailed = clientWord === 'failed' || clientWord === 'error'
  const last = steps.at(-1)
  const lastFailed = last?.status === 'failed' ? last : undefined
  const unrecovered = unrecoveredToolSteps(steps)
  // The step to blame: the one the trace ended on, else the most recent tool that never recovered.
  const culprit = lastFailed ?? unrecovered.at(-1)

  if (reason !== null || clientFailed || culprit !== undefined) {
    if (reason !== null) return { status: 'failed', failure_reason: reason }
    if (culprit === undefined) return { status: 'failed', failure_reason: 'reported as failed by client' }
    return { status: 'failed', failure_reason: culprit.error ?? `step '${culprit.name}' failed` }
  }
  if (retry_count > 0 || steps.some((step) => step.status === 'failed')) {
    return { status: 'warning', failure_reason: null }
  }
  return { status: 'success', failure_reason: null }
}

const sumOf = (values: (number | null)[]): number => values.reduce<number>((sum, value) => sum + (value ?? 0), 0)

/**
 * Normalization (docs/api.md) of a whole trace. `project_id` and `environment` come from the API key (ctx), never the body.
 * The result is not validated here: the caller checks it against TraceSchema (step 5).
 */
export function normalizeTrace(
  input: TraceInput,
  ctx: { project_id: string; environment: Environment },
  opts: { now: number; newId: () => string },
): Trace {
  // Step 1 first, so a bad created_at is reported before anything about the steps.
  const created_at = utcTimestamp(input.created_at, 'created_at', opts.now)
  const steps = (input.steps ?? []).map((step, index) => normalizeStep(step, index))
  const retry_count = inferRetryCount(steps, input.retry_count)
  const { status, failure_reason } = inferStatus({
    steps,
    retry_count,
    client_status: input.status,
    failure_reason: input.failure_reason,
  })

  const prompt_tokens = input.prompt_tokens ?? null
  const completion_tokens = input.completion_tokens ?? null
  const tokenSplit =
    prompt_tokens === null && completion_tokens === null ? null : sumOf([prompt_tokens, completion_tokens])
  const tokenTotal = firstGiven(input.token_count, input.total_tokens)

  return {
    trace_id: input.trace_id ?? opts.newId(),
    project_id: ctx.project_id,
    environment: ctx.environment,
    name: input.name ?? null,
    model: input.model ?? null,
    prompt: input.prompt,
    response: input.response ?? null,
    latency: roundToMicros(
      firstGiven(input.latency, input.latency_ms, input.duration_ms) ?? sumOf(steps.map((s) => s.latency)),
    ),
    token_count: tokenTotal ?? tokenSplit ?? sumOf(steps.map((s) => s.token_count)),
    prompt_tokens,
    completion_tokens,
    // Unknown is not zero: a trace whose count nothing reported says so.
    tokens_reported: tokenTotal !== null || tokenSplit !== null || steps.some((s) => s.token_count !== null),
    cost: cost(input.cost),
    status,
    failure_reason,
    retry_count,
    session_id: input.session_id ?? null,
    user_id: input.user_id ?? null,
    experiment_id: input.experiment_id ?? null,
    dataset_item_id: input.dataset_item_id ?? null,
    tags: input.tags ?? [],
    metadata: input.metadata ?? {},
    created_at,
    steps,
  }
}
