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
import type { EventHub } from '../events/hub.js'
import { describeErrors, firstError, type Validators } from '../lib/validation.js'
import type { PriceService } from '../services/prices.js'
import type { PricedTrace } from '../store/reported-cost.js'
import type { KeyContext, Store } from '../store/types.js'
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
  /** The prices in force (src/services/prices.ts). */
  prices: Pick<PriceService, 'pricer'>
  validators: Validators
  now?: () => number
  newId?: () => string
  observer?: IngestObserver
  /** Applied to every trace before it is stored or announced; null: nothing is redacted. */
  redact?: Redact | null
}

const NO_OBSERVER: IngestObserver = { stored() {}, rejected() {} }

type Prepared = { ok: true; priced: PricedTrace } | { ok: false; message: string }

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
  prices,
  validators,
  now = Date.now,
  newId = uuidv7,
  observer = NO_OBSERVER,
  redact = null,
}: IngestDeps): IngestService {
  const checkInput = validators.body.compile(TraceInputSchema)
  const checkTrace = validators.body.compile(TraceSchema)
  // Every trace is checked before it joins a group, so a group holds only traces the store can take.
  const writes = createGroupCommit(store.traces)

  /**
   * Steps 1–5 of normalization for one input, then its costs; `prefix` is where the trace sits in the body (for
   * messages).
   */
  function prepare(input: unknown, owner: TraceOwner, prefix: string, price: Pricer): Prepared {
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
    return { ok: true, priced: { trace: priceTrace(trace, reported, price), reported } }
  }

  return {
    async ingestOne(input, owner) {
      const prepared = prepare(input, owner, 'body', await prices.pricer())
      if (!prepared.ok) {
        observer.rejected('invalid', 1)
        throw new InvalidInput(prepared.message)
      }
      const [outcome] = await writes.insertTraces([prepared.priced])
      if (!outcome || outcome.kind === 'conflict') {
        observer.rejected('conflict', 1)
        throw new TraceIdTaken(prepared.priced.trace.trace_id)
      }
      if (outcome.kind === 'created') {
        observer.stored(1)
        hub.publish([outcome.trace])
      }
      return { created: outcome.kind === 'created', trace: outcome.trace }
    },

    async ingestBatch(inputs, owner) {
      const rejected: BatchTracesResponse['rejected'] = []
      const valid: { index: number; priced: PricedTrace }[] = []
      const price = await prices.pricer()
      inputs.forEach((input, index) => {
        const prepared = prepare(input, owner, `body/traces/${index}`, price)
        if (prepared.ok) valid.push({ index, priced: prepared.priced })
        else rejected.push({ index, message: prepared.message })
      })
      const outcomes = valid.length > 0 ? await writes.insertTraces(valid.map((v) => v.priced)) : []
      const items: BatchTracesResponse['items'] = []
      const created: Trace[] = []
      outcomes.forEach((outcome, i) => {
        const index = valid[i]!.index
        if (outcome.kind === 'conflict') {
          // Named like every other rejection: where the trace sits in the body, then the field.
          rejected.push({ index, message: `body/traces/${index}/${new TraceIdTaken(outcome.trace_id).message}` })
          return
        }
        if (outcome.kind === 'created') created.push(outcome.trace)
        items.push({ trace_id: outcome.trace.trace_id, status: outcome.trace.status })
      })
      const conflicts = outcomes.filter((o) => o.kind === 'conflict').length
      if (rejected.length > conflicts) observer.rejected('invalid', rejected.length - conflicts)
      if (conflicts > 0) observer.rejected('conflict', conflicts)
      if (created.length > 0) observer.stored(created.length)
      hub.publish(created)
      rejected.sort((a, b) => a.index - b.index)
      return { accepted: items.length, rejected, items }
    },
  }
}
