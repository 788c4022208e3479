// The single road every trace takes: check the input, normalize (docs/api.md, Normalization), validate, store (with
// the traces of concurrent writes, in one transaction: group-commit.ts), then announce each newly stored trace
// exactly once.
import type { ValidateFunction } from 'ajv'
import { uuidv7 } from 'uuidv7'
import {
  type BatchTracesResponse,
  LIMITS,
  type Trace,
  type TraceInput,
  TraceInputSchema,
  TraceSchema,
} from '../../schemas/index.js'
import { type Pricer, priceTrace, reportedCosts } from '../costs/pricing.js'
import { InvalidInput, TraceIdTaken } from '../errors.js'
import { dueRules } from '../evaluators/selection.js'
import type { EventHub } from '../events/hub.js'
import { describeErrors, firstError, type Validators } from '../lib/validation.js'
import type { PriceService } from '../services/prices.js'
import { derivedScoreId, type ScoreOutcome, type ScoreService } from '../services/scores.js'
import type { PricedTrace } from '../store/reported-cost.js'
import type { EvaluatorRecord, KeyContext, Store } from '../store/types.js'
import { createGroupCommit } from './group-commit.js'
import { InvalidTimestampError, normalizeTrace, stepTreeError } from './normalize.js'
import { type Redact, redactTrace } from './redact.js'

/** Whose a trace is: what normalization takes from the API key (the project and its environment). */
export type TraceOwner = Pick<KeyContext, 'project_id' | 'environment'>

export interface IngestService {
  /** One trace: `created` (201) or `exists` (200, the stored trace, no event). Throws 400 / 409. */
  ingestOne(input: unknown, owner: TraceOwner): Promise<{ created: boolean; trace: Trace }>
  /** Many traces: each validated on its own; the valid ones are stored even when others are rejected. */
  ingestBatch(inputs: readonly unknown[], owner: TraceOwner): Promise<BatchTracesResponse>
}

/** Why a trace that reached the ingest service was not stored. */
export type RejectionReason = 'invalid' | 'conflict'

/** Told what each ingest did (the metrics count it). */
export interface IngestObserver {
  stored(count: number): void
  rejected(reason: RejectionReason, count: number): void
}

export interface IngestDeps {
  store: Store
  hub: EventHub
  /** The one road of a score (src/services/scores.ts): the scores inline on a trace take it once it is stored. */
  scores: Pick<ScoreService, 'check' | 'recordEach'>
  /** The prices in force (src/services/prices.ts). */
  prices: Pick<PriceService, 'pricer'>
  validators: Validators
  now?: () => number
  newId?: () => string
  observer?: IngestObserver
  /** Applied to every trace before it is stored or announced; null: nothing is redacted. */
  redact?: Redact | null
  /**
   * The evaluator rules (src/services/evaluators.ts): a trace stored gets a job for each rule it is due for, in its
   * transaction; `queued` is told when some were written.
   */
  evaluations?: { rules(): Promise<readonly EvaluatorRecord[]>; queued(): void }
}

const NO_OBSERVER: IngestObserver = { stored() {}, rejected() {} }

/** A trace ready to store, with the scores inline on it (as the score service takes them), or why it is not. */
type Prepared = { ok: true; priced: PricedTrace; scores: Record<string, unknown>[] } | { ok: false; message: string }

/** A per-score answer (the traces' inline scores, one after another) cut back into one list per trace. */
function perTrace<T>(placed: readonly { scores: readonly unknown[] }[], flat: readonly T[]): T[][] {
  let k = 0
  return placed.map(({ scores }) => {
    const mine = flat.slice(k, k + scores.length)
    k += scores.length
    return mine
  })
}

/** A trace to store and where it sits in the body (`body`, `body/traces/3`), for the messages about its scores. */
type Placed = { at: string; priced: PricedTrace; scores: Record<string, unknown>[] }

/**
 * The scores inline on a trace, as the score service records them: of that trace, each with an id — when the client
 * gave none, one derived from the trace id and the score's place, so a trace sent again records its scores once.
 */
function inlineScores(input: TraceInput, trace: Trace): Record<string, unknown>[] {
  return (input.scores ?? []).map((score, j) => ({
    ...score,
    trace_id: trace.trace_id,
    score_id: score.score_id ?? derivedScoreId('inline', trace.trace_id, j),
  }))
}

/** Input aliases and the field each folds onto (docs/api.md, Normalization), as paths inside one trace. */
const ALIAS_PATHS: [RegExp, string][] = [
  [/^(\/steps\/\d+)\/(?:duration|duration_ms|latency_ms)(?=\/|$)/, '$1/latency'],
  [/^(\/steps\/\d+)\/(?:tokens|total_tokens)(?=\/|$)/, '$1/token_count'],
  [/^(\/steps\/\d+)\/tool_name(?=\/|$)/, '$1/tool'],
  [/^\/(?:latency_ms|duration_ms)(?=\/|$)/, '/latency'],
  [/^\/total_tokens(?=\/|$)/, '/token_count'],
]

/**
 * The input check's first error, naming the normalized field: validation is step 5, after aliases are folded,
 * so a negative `duration_ms` is reported as `…/latency must be >= 0`.
 */
function inputError(validate: ValidateFunction, prefix: string): string {
  const errors = (validate.errors ?? []).map((error) => ({
    ...error,
    instancePath: ALIAS_PATHS.reduce((path, [alias, field]) => path.replace(alias, field), error.instancePath),
  }))
  return errors.length > 0 ? describeErrors(errors, prefix) : `${prefix} is invalid`
}

export function createIngestService({
  store,
  hub,
  scores,
  prices,
  validators,
  now = Date.now,
  newId = uuidv7,
  observer = NO_OBSERVER,
  redact = null,
  evaluations,
}: IngestDeps): IngestService {
  const NO_RULES: readonly EvaluatorRecord[] = []
  const rulesNow = async () => (evaluations ? await evaluations.rules() : NO_RULES)
  /** Tells the worker when a stored trace came with jobs. */
  const queued = (stored: readonly PricedTrace[]) => {
    if (evaluations && stored.some((p) => (p.evaluations?.length ?? 0) > 0)) evaluations.queued()
  }
  const checkInput = validators.body.compile(TraceInputSchema)
  const checkTrace = validators.body.compile(TraceSchema)
  // Every trace is checked before it joins a group, so a group holds only traces the store can take.
  const writes = createGroupCommit(store.traces)

  /**
   * Steps 1–5 of normalization for one input, then its costs; `prefix` is where the trace sits in the body (for
   * messages).
   */
  function prepare(
    input: unknown,
    owner: TraceOwner,
    prefix: string,
    price: Pricer,
    rules: readonly EvaluatorRecord[],
  ): Prepared {
    if (!checkInput(input)) return { ok: false, message: inputError(checkInput, prefix) }
    let trace: Trace
    try {
      trace = normalizeTrace(input as TraceInput, owner, { now: now(), newId })
    } catch (err) {
      if (err instanceof InvalidTimestampError) {
        return { ok: false, message: `${prefix}/${err.field} must be an ISO 8601 timestamp or an epoch number` }
      }
      throw err
    }
    if (redact) trace = redactTrace(trace, redact)
    if (!checkTrace(trace)) return { ok: false, message: firstError(checkTrace, prefix) ?? prefix }
    const tree = stepTreeError(trace.steps)
    if (tree) return { ok: false, message: `${prefix}/${tree.field} ${tree.message}` }
    if (Buffer.byteLength(JSON.stringify(trace.metadata)) > LIMITS.metadataBytes) {
      return { ok: false, message: `${prefix}/metadata must be at most ${LIMITS.metadataBytes} bytes when serialized` }
    }
    // The schema can only count characters; the contract's 256 KiB is bytes, and one character may take four.
    for (const field of ['prompt', 'response'] as const) {
      const text = trace[field]
      if (text !== null && Buffer.byteLength(text) > LIMITS.textBytes) {
        return { ok: false, message: `${prefix}/${field} must be at most ${LIMITS.textBytes} bytes in UTF-8` }
      }
    }
    const reported = reportedCosts(trace)
    const priced = priceTrace(trace, reported, price)
    return {
      ok: true,
      priced: { trace: priced, reported, evaluations: rules.length === 0 ? undefined : dueRules(rules, priced) },
      scores: inlineScores(input as TraceInput, trace),
    }
  }

  /** Who records the inline scores of a request's traces: a writer confined to their project (the key's). */
  const writerOf = (owner: TraceOwner) => ({ scope: owner.project_id })

  /**
   * The inline scores of traces not stored yet, checked as `POST /scores` checks a score (with what each takes from its
   * trace): per trace, why its first bad score would be rejected, else null. Nothing is stored for a trace with one.
   */
  async function scoreProblems(placed: readonly Placed[], owner: TraceOwner): Promise<(string | null)[]> {
    const inputs = placed.flatMap(({ at, priced: { trace }, scores: inline }) =>
      inline.map((input, j) => ({
        input,
        at: `${at}/scores/${j}`,
        target: {
          project_id: trace.project_id,
          session_id: trace.session_id,
          user_id: trace.user_id,
          step_count: trace.steps.length,
        },
      })),
    )
    if (inputs.length === 0) return placed.map(() => null)
    const messages = await scores.check(inputs, writerOf(owner))
    return perTrace(placed, messages).map((mine) => mine.find((m) => m !== null) ?? null)
  }

  /** Records the inline scores of stored traces through the score service: per trace, its scores' failures. */
  async function recordScores(placed: readonly Placed[], owner: TraceOwner): Promise<Error[][]> {
    const inputs = placed.flatMap(({ at, scores: inline }) =>
      inline.map((input, j) => ({ input, at: `${at}/scores/${j}` })),
    )
    if (inputs.length === 0) return placed.map(() => [])
    const outcomes: ScoreOutcome[] = await scores.recordEach(
      inputs.map((i) => i.input),
      writerOf(owner),
      (k) => inputs[k]!.at,
    )
    return perTrace(placed, outcomes).map((mine) => mine.flatMap((o) => (o.ok ? [] : [o.error])))
  }

  return {
    async ingestOne(input, owner) {
      const prepared = prepare(input, owner, 'body', await prices.pricer(), await rulesNow())
      const placed = prepared.ok ? { at: 'body', priced: prepared.priced, scores: prepared.scores } : null
      const problem = prepared.ok ? (await scoreProblems([placed!], owner))[0] : prepared.message
      if (!placed || problem) {
        observer.rejected('invalid', 1)
        throw new InvalidInput(problem ?? 'body is invalid')
      }
      const [outcome] = await writes.insertTraces([placed.priced])
      if (!outcome || outcome.kind === 'conflict') {
        observer.rejected('conflict', 1)
        throw new TraceIdTaken(placed.priced.trace.trace_id)
      }
      if (outcome.kind === 'created') {
        observer.stored(1)
        hub.publish([outcome.trace])
        queued([placed.priced])
      }
      // The trace is stored: a score that fails now (its id taken by a different score) is answered on its own.
      const [failed] = await recordScores([placed], owner)
      if (failed?.[0]) throw failed[0]
      return { created: outcome.kind === 'created', trace: outcome.trace }
    },

    async ingestBatch(inputs, owner) {
      const rejected: BatchTracesResponse['rejected'] = []
      const checked: (Placed & { index: number })[] = []
      const price = await prices.pricer()
      const rules = await rulesNow()
      inputs.forEach((input, index) => {
        const at = `body/traces/${index}`
        const prepared = prepare(input, owner, at, price, rules)
        if (prepared.ok) checked.push({ index, at, priced: prepared.priced, scores: prepared.scores })
        else rejected.push({ index, message: prepared.message })
      })
      const problems = await scoreProblems(checked, owner)
      const valid = checked.filter((c, i) => {
        const message = problems[i]
        if (message) rejected.push({ index: c.index, message })
        return !message
      })
      const outcomes = valid.length > 0 ? await writes.insertTraces(valid.map((v) => v.priced)) : []
      const items: BatchTracesResponse['items'] = []
      const created: Trace[] = []
      const stored: typeof valid = []
      outcomes.forEach((outcome, i) => {
        const index = valid[i]!.index
        if (outcome.kind === 'conflict') {
          // Named like every other rejection: where the trace sits in the body, then the field.
          rejected.push({ index, message: `body/traces/${index}/${new TraceIdTaken(outcome.trace_id).message}` })
          return
        }
        if (outcome.kind === 'created') created.push(outcome.trace)
        stored.push(valid[i]!)
        items.push({ trace_id: outcome.trace.trace_id, status: outcome.trace.status })
      })
      const conflicts = outcomes.filter((o) => o.kind === 'conflict').length
      if (rejected.length > conflicts) observer.rejected('invalid', rejected.length - conflicts)
      if (conflicts > 0) observer.rejected('conflict', conflicts)
      if (created.length > 0) observer.stored(created.length)
      hub.publish(created)
      queued(valid.filter((_, i) => outcomes[i]?.kind === 'created').map((v) => v.priced))
      // Stored traces stay accepted; a score of one that fails now (its id taken by a different score) is said too.
      const failed = await recordScores(stored, owner)
      stored.forEach(({ index }, i) => {
        for (const error of failed[i]!) rejected.push({ index, message: error.message })
      })
      rejected.sort((a, b) => a.index - b.index)
      return { accepted: items.length, rejected, items }
    },
  }
}
