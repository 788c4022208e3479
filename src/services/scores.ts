// The one road of every score — POST /scores and /scores/batch, scores inline on a trace, OTLP evaluation events, and
// every producer to come (evaluators, experiments): check the input, work out its type, value and label, check it
// against its name's config, find what it scores (a trace in the caller's scope, one of its steps, or a session),
// store it idempotently on score_id, then announce each score stored now exactly once.
import { createHash } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import { uuidv7 } from 'uuidv7'
import {
  type BatchScoresResponse,
  type ListScoresQuery,
  type ListScoresResponse,
  SCORE_LIMITS,
  type Score,
  type ScoreConfig,
  type ScoreConfigInput,
  type ScoreDataType,
  type ScoreInput,
  ScoreInputSchema,
  type ScoreSource,
} from '../../schemas/index.js'
import {
  Forbidden,
  InvalidInput,
  ScoreConfigNotFound,
  ScoreIdTaken,
  ScoreNotFound,
  SessionNotFound,
  TraceNotFound,
} from '../errors.js'
import type { EventHub } from '../events/hub.js'
import { inScope } from '../lib/access-policy.js'
import { parseTimestamp } from '../lib/time.js'
import { describeErrors, type Validators } from '../lib/validation.js'
import type { NewScore, ScoreTarget, Store } from '../store/types.js'

/** Who writes: the project the credential is confined to (null: any), and whether it is a public key. */
export interface ScoreWriter {
  scope: string | null
  /** A public key: only feedback scores, on its own project's traces. */
  publicKey?: boolean
  /** The source when the input names none (default `api`). */
  source?: ScoreSource
}

export interface ScoreService {
  /** One score: `created` (201) or the stored one (200). Throws 400 / 403 / 404 / 409. */
  recordOne(input: unknown, writer: ScoreWriter): Promise<{ created: boolean; score: Score }>
  /**
   * Many scores, each checked on its own: the valid ones are stored even when others are rejected. `at` names where
   * each sits in the request (default `body/scores/<index>`).
   */
  recordBatch(
    inputs: readonly unknown[],
    writer: ScoreWriter,
    at?: (index: number) => string,
  ): Promise<BatchScoresResponse>
  /** As recordBatch, each input's outcome: the score stored (now or before), or the error naming where it sits. */
  recordEach(inputs: readonly unknown[], writer: ScoreWriter, at: (index: number) => string): Promise<ScoreOutcome[]>
  /**
   * Scores of a trace not stored yet (inline on a trace): each checked as it would be recorded, with what it takes
   * from the trace given instead of the stored one. Per input, in order: why it would be rejected, else null.
   */
  check(
    inputs: readonly { input: unknown; target: ScoreTarget; at: string }[],
    writer: ScoreWriter,
  ): Promise<(string | null)[]>
  list(query: ListScoresQuery, scope: string | null): Promise<ListScoresResponse>
  get(scoreId: string, scope: string | null): Promise<Score>
  remove(scoreId: string, scope: string | null): Promise<Score>
  analytics(params: { project_id?: string; now: number }): ReturnType<Store['scores']['analytics']>
  listConfigs(): Promise<ScoreConfig[]>
  getConfig(name: string): Promise<ScoreConfig>
  putConfig(name: string, input: Omit<ScoreConfigInput, 'name'>): Promise<{ created: boolean; config: ScoreConfig }>
  removeConfig(name: string): Promise<void>
}

/** What recording one score did: stored (`created` now, or found stored), or the error that says why not. */
export type ScoreOutcome = { ok: true; created: boolean; score: Score } | { ok: false; error: Error }

export interface ScoreDeps {
  store: Store
  hub: EventHub
  validators: Validators
  now?: () => number
  newId?: () => string
  /** Told of the scores stored now (the metrics count them by name and source). */
  onStored?: (scores: readonly Score[]) => void
}

/** Why one score is not stored: the error a single request answers, and what a batch says of the item. */
class Rejection {
  constructor(
    readonly error: Error,
    readonly message: string = error.message,
  ) {}
}
const bad = (message: string) => new Rejection(new InvalidInput(message))
const notFound = (at: string, field: string, error: Error) => new Rejection(error, `${at}/${field}: ${error.message}`)

/** A score id that is the same whenever it is made of the same parts: a producer's re-send records its scores once. */
export function derivedScoreId(...parts: readonly (string | number)[]): string {
  return `sc_${createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32)}`
}

/** The cursor of GET /scores: the last score's created_at and id. */
const encodeCursor = (score: Score) =>
  Buffer.from(JSON.stringify([Date.parse(score.created_at), score.score_id])).toString('base64url')
function decodeCursor(cursor: string): { at: number; score_id: string } {
  try {
    const [at, score_id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as unknown[]
    if (typeof at === 'number' && Number.isFinite(at) && typeof score_id === 'string') return { at, score_id }
  } catch {}
  throw new InvalidInput('querystring/cursor is not a cursor this list gave')
}

/** Whether two scores say the same (a re-send): every field but created_at when the re-send named none. */
function sameScore(stored: Score, sent: Score, sentTime: boolean): boolean {
  return (Object.keys(stored) as (keyof Score)[]).every(
    (key) =>
      (key === 'created_at' && !sentTime) ||
      (key === 'metadata' ? isDeepStrictEqual(stored[key], sent[key]) : stored[key] === sent[key]),
  )
}

/** The data type a score's input names, or the one its value implies. */
function dataTypeOf(input: ScoreInput, config: ScoreConfig | null, at: string): ScoreDataType {
  if (input.data_type !== undefined) return input.data_type
  if (typeof input.value === 'boolean') return 'boolean'
  if (typeof input.value === 'string') return 'categorical'
  if (input.value === undefined && input.label != null) return 'categorical'
  if (input.value === undefined) throw bad(`${at} must have property 'value'`)
  return config?.data_type ?? 'numeric'
}

/** The value and label of a score of a data type, checked against its config. */
function valueAndLabel(
  input: ScoreInput,
  type: ScoreDataType,
  config: ScoreConfig | null,
  at: string,
): { value: number; label: string | null } {
  const { value, label } = input
  if (config && config.data_type !== type) {
    throw bad(`${at}/data_type must be '${config.data_type}', as the score config of '${config.name}' says`)
  }
  if (type === 'numeric') {
    if (typeof value !== 'number') throw bad(`${at}/value must be a number for a numeric score`)
    if (label != null) throw bad(`${at}/label must be absent for a numeric score`)
    if (config?.min != null && value < config.min) {
      throw bad(`${at}/value must be >= ${config.min}, as the score config of '${config.name}' says`)
    }
    if (config?.max != null && value > config.max) {
      throw bad(`${at}/value must be <= ${config.max}, as the score config of '${config.name}' says`)
    }
    return { value, label: null }
  }
  if (type === 'boolean') {
    const truth = value === true || value === 1 ? true : value === false || value === 0 ? false : null
    if (truth === null) throw bad(`${at}/value must be true or false (or 1 or 0) for a boolean score`)
    if (label != null && label !== String(truth)) throw bad(`${at}/label must be '${truth}' for this boolean score`)
    return { value: truth ? 1 : 0, label: String(truth) }
  }
  // categorical: the label is the category; the value its position in the config's categories, else as given (or 0).
  const category = typeof value === 'string' ? value : label
  if (category == null) throw bad(`${at}/label is required for a categorical score (or a category as value)`)
  if (typeof value === 'string' && label != null && label !== value) {
    throw bad(`${at}/label must equal value when value is a category`)
  }
  if (typeof value === 'boolean') throw bad(`${at}/value must be a category or a number for a categorical score`)
  if (config?.categories) {
    const index = config.categories.indexOf(category)
    if (index < 0) {
      throw bad(
        `${at}/label must be one of ${config.categories.map((c) => `'${c}'`).join(', ')}, as the score config of ` +
          `'${config.name}' says`,
      )
    }
    if (typeof value === 'number' && value !== index) {
      throw bad(`${at}/value must be ${index}, the position of '${category}' in the score config of '${config.name}'`)
    }
    return { value: index, label: category }
  }
  return { value: typeof value === 'number' ? value : 0, label: category }
}

export function createScoreService({
  store,
  hub,
  validators,
  now = Date.now,
  newId = uuidv7,
  onStored = () => {},
}: ScoreDeps): ScoreService {
  const checkInput = validators.body.compile(ScoreInputSchema)

  /** The configs of these names (one read when any is asked for). */
  async function configsOf(): Promise<Map<string, ScoreConfig>> {
    return new Map((await store.scores.listConfigs()).map((c) => [c.name, c]))
  }

  /** Everything about one input that needs no store: the score, but for what it takes from its trace or session. */
  function prepare(
    raw: unknown,
    at: string,
    writer: ScoreWriter,
    configs: Map<string, ScoreConfig>,
  ): { input: ScoreInput; score: Omit<Score, 'project_id' | 'session_id'>; sentTime: boolean } {
    if (!checkInput(raw)) throw bad(describeErrors(checkInput.errors ?? [], at))
    const input = raw as ScoreInput
    const source = input.source ?? writer.source ?? (writer.publicKey ? 'feedback' : 'api')
    if (writer.publicKey && source !== 'feedback') {
      throw new Rejection(new Forbidden(`${at}/source must be 'feedback': a public key may only send feedback scores`))
    }
    const config = configs.get(input.name) ?? null
    const type = dataTypeOf(input, config, at)
    const { value, label } = valueAndLabel(input, type, config, at)
    if (input.trace_id === undefined && input.step_index != null) throw bad(`${at}/step_index needs a trace_id`)
    if (input.trace_id === undefined && input.session_id == null) {
      throw bad(`${at} must have property 'trace_id' (or 'session_id' for a score of a session)`)
    }
    const metadata = input.metadata ?? {}
    if (Buffer.byteLength(JSON.stringify(metadata)) > SCORE_LIMITS.metadataBytes) {
      throw bad(`${at}/metadata must be at most ${SCORE_LIMITS.metadataBytes} bytes when serialized`)
    }
    const created = input.created_at === undefined ? now() : parseTimestamp(input.created_at)
    if (created === null) throw bad(`${at}/created_at must be an ISO 8601 timestamp or an epoch number`)
    return {
      input,
      sentTime: input.created_at !== undefined,
      score: {
        score_id: input.score_id ?? newId(),
        trace_id: input.trace_id ?? null,
        step_index: input.step_index ?? null,
        name: input.name,
        data_type: type,
        value,
        label,
        comment: input.comment ?? null,
        source,
        author: input.author ?? null,
        created_at: new Date(created).toISOString(),
        metadata,
      },
    }
  }

  /** What a score of a trace takes from it; 404 when it is not stored in the writer's scope (never a 403). */
  function ofTrace(
    prepared: ReturnType<typeof prepare>,
    target: ScoreTarget | undefined,
    writer: ScoreWriter,
    at: string,
  ): NewScore {
    const { input, score } = prepared
    const traceId = score.trace_id as string
    const named = input.project_id === undefined || input.project_id === target?.project_id
    if (!target || !inScope(writer.scope, target.project_id) || !named) {
      throw notFound(at, 'trace_id', new TraceNotFound(traceId))
    }
    if (score.step_index !== null && score.step_index >= target.step_count) {
      throw bad(
        target.step_count === 0
          ? `${at}/step_index must be absent: the trace has no steps`
          : `${at}/step_index must be below ${target.step_count}: the trace has ${target.step_count} step${target.step_count === 1 ? '' : 's'}`,
      )
    }
    if (input.session_id != null && input.session_id !== target.session_id) {
      throw bad(`${at}/session_id must be the trace's session (${JSON.stringify(target.session_id)}) or absent`)
    }
    return {
      score: { ...score, project_id: target.project_id, session_id: target.session_id },
      user_id: target.user_id,
    }
  }

  /** What a score of a session takes: its project (the writer's, the input's, else the session's latest). */
  async function ofSession(prepared: ReturnType<typeof prepare>, writer: ScoreWriter, at: string): Promise<NewScore> {
    const { input, score } = prepared
    const sessionId = input.session_id as string
    const named = writer.scope ?? input.project_id
    const missing = () => notFound(at, 'session_id', new SessionNotFound(sessionId))
    if (writer.scope !== null && input.project_id !== undefined && input.project_id !== writer.scope) throw missing()
    const session = await store.activity.getSession(sessionId, named, 1)
    if (!session) throw missing()
    return {
      score: { ...score, project_id: session.session.project_id, session_id: sessionId },
      user_id: session.session.user_id ?? null,
    }
  }

  /** Each input's outcome, in input order: the score stored (new or as it was), or why not. */
  async function record(
    inputs: readonly unknown[],
    writer: ScoreWriter,
    at: (index: number) => string,
  ): Promise<({ ok: true; created: boolean; score: Score } | { ok: false; error: Rejection })[]> {
    const configs = await configsOf()
    const prepared = inputs.map((raw, i) => {
      try {
        return prepare(raw, at(i), writer, configs)
      } catch (err) {
        if (err instanceof Rejection) return err
        throw err
      }
    })
    const traceIds = [
      ...new Set(
        prepared.flatMap((p) => (p instanceof Rejection || p.score.trace_id === null ? [] : [p.score.trace_id])),
      ),
    ]
    const targets = await store.scores.targets(traceIds)
    const resolved: (NewScore | Rejection)[] = []
    for (const [i, p] of prepared.entries()) {
      if (p instanceof Rejection) {
        resolved.push(p)
        continue
      }
      try {
        resolved.push(
          p.score.trace_id === null
            ? await ofSession(p, writer, at(i))
            : ofTrace(p, targets.get(p.score.trace_id), writer, at(i)),
        )
      } catch (err) {
        if (!(err instanceof Rejection)) throw err
        resolved.push(err)
      }
    }
    const valid = resolved.flatMap((r, i) => (r instanceof Rejection ? [] : [{ i, r }]))
    const outcomes = valid.length > 0 ? await store.scores.insert(valid.map((v) => v.r)) : []
    // Every valid input's result is set from its outcome below.
    const results: Awaited<ReturnType<typeof record>> = resolved.map((r) =>
      r instanceof Rejection ? { ok: false, error: r } : { ok: false, error: bad('not stored') },
    )
    const created: Score[] = []
    outcomes.forEach((outcome, k) => {
      const { i, r } = valid[k]!
      const sent = r.score
      if (outcome.kind === 'missing') {
        results[i] = { ok: false, error: notFound(at(i), 'trace_id', new TraceNotFound(sent.trace_id ?? '')) }
      } else if (outcome.kind === 'created') {
        created.push(outcome.score)
        results[i] = { ok: true, created: true, score: outcome.score }
      } else if (
        inScope(writer.scope, outcome.score.project_id) &&
        sameScore(outcome.score, sent, (prepared[i] as ReturnType<typeof prepare>).sentTime)
      ) {
        results[i] = { ok: true, created: false, score: outcome.score }
      } else {
        results[i] = { ok: false, error: notFound(at(i), 'score_id', new ScoreIdTaken(sent.score_id)) }
      }
    })
    if (created.length > 0) {
      onStored(created)
      hub.publishScores('score.created', created)
    }
    return results
  }

  return {
    async recordOne(input, writer) {
      const [result] = await record([input], writer, () => 'body')
      if (!result) throw new Error('a score input gave no outcome')
      if (!result.ok) throw result.error.error
      return { created: result.created, score: result.score }
    },

    async recordBatch(inputs, writer, at = (i) => `body/scores/${i}`) {
      const results = await record(inputs, writer, at)
      const rejected: BatchScoresResponse['rejected'] = []
      const items: BatchScoresResponse['items'] = []
      results.forEach((r, index) => {
        if (r.ok) items.push({ score_id: r.score.score_id, trace_id: r.score.trace_id })
        else rejected.push({ index, message: r.error.message })
      })
      return { accepted: items.length, rejected, items }
    },

    async recordEach(inputs, writer, at) {
      return (await record(inputs, writer, at)).map((r) => {
        if (r.ok) return r
        // The error answered alone names the field, as the rejection in a batch does.
        r.error.error.message = r.error.message
        return { ok: false, error: r.error.error }
      })
    },

    async check(inputs, writer) {
      if (inputs.length === 0) return []
      const configs = await configsOf()
      return inputs.map(({ input, target, at }) => {
        try {
          ofTrace(prepare(input, at, writer, configs), target, writer, at)
          return null
        } catch (err) {
          if (err instanceof Rejection) return err.message
          throw err
        }
      })
    },

    async list(query, scope) {
      const { limit = 50, cursor, since, until, project_id: _named, ...rest } = query
      const page = await store.scores.list(
        {
          ...rest,
          project_id: scope ?? undefined,
          since: since === undefined ? undefined : (parseTimestamp(since) ?? undefined),
          until: until === undefined ? undefined : (parseTimestamp(until) ?? undefined),
        },
        { limit, after: cursor === undefined ? undefined : decodeCursor(cursor) },
      )
      const last = page.items.at(-1)
      return { total: page.total, items: page.items, next_cursor: page.more && last ? encodeCursor(last) : null }
    },

    async get(scoreId, scope) {
      const score = await store.scores.get(scoreId)
      if (!score || !inScope(scope, score.project_id)) throw new ScoreNotFound(scoreId)
      return score
    },

    async remove(scoreId, scope) {
      const found = await store.scores.get(scoreId)
      if (!found || !inScope(scope, found.project_id)) throw new ScoreNotFound(scoreId)
      const deleted = await store.scores.delete(scoreId)
      if (!deleted) throw new ScoreNotFound(scoreId)
      hub.publishScores('score.deleted', [deleted])
      return deleted
    },

    analytics({ project_id, now: at }) {
      return store.scores.analytics(project_id, at)
    },

    listConfigs: () => store.scores.listConfigs(),

    async getConfig(name) {
      const config = await store.scores.getConfig(name)
      if (!config) throw new ScoreConfigNotFound(name)
      return config
    },

    async putConfig(name, input) {
      const { data_type, min = null, max = null, categories = null, description = null } = input
      if (data_type !== 'numeric' && (min !== null || max !== null)) {
        throw new InvalidInput(`body/${min !== null ? 'min' : 'max'} applies only to a numeric score config`)
      }
      if (min !== null && max !== null && min > max) throw new InvalidInput('body/max must be >= min')
      if (data_type === 'categorical' && categories === null) {
        throw new InvalidInput("body must have property 'categories' for a categorical score config")
      }
      if (data_type !== 'categorical' && categories !== null) {
        throw new InvalidInput('body/categories applies only to a categorical score config')
      }
      const stamp = new Date(now()).toISOString()
      const config: ScoreConfig = {
        name,
        data_type,
        min,
        max,
        categories,
        description,
        created_at: stamp,
        updated_at: stamp,
      }
      const created = await store.scores.putConfig(config)
      return { created, config: (await store.scores.getConfig(name)) ?? config }
    },

    async removeConfig(name) {
      if (!(await store.scores.deleteConfig(name))) throw new ScoreConfigNotFound(name)
    },
  }
}
