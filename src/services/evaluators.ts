// Evaluator rules: a rule checked as the API takes it (its kind's config, its trace filter), and run on a trace
// without storing anything (POST /evaluators/test) — the judge asked for real, the score it would write answered.
import { uuidv7 } from 'uuidv7'
import {
  type CreateEvaluatorRunBody,
  EVALUATOR_CONFIGS,
  type Evaluator,
  type EvaluatorInput,
  type EvaluatorKind,
  type EvaluatorRun,
  type TestEvaluatorBody,
  type TestEvaluatorResponse,
  type Trace,
  TraceFilterQuery,
} from '../../schemas/index.js'
import { EvaluatorNotFound, EvaluatorRunNotFound, InvalidInput, ProjectNotFound, TraceNotFound } from '../errors.js'
import { evaluate, evaluateDepsOf } from '../evaluators/evaluate.js'
import type { JudgeOptions } from '../evaluators/judge.js'
import { inScope } from '../lib/access-policy.js'
import { parseTimestamp } from '../lib/time.js'
import { describeErrors, type Validators } from '../lib/validation.js'
import type { EvaluatorRecord, EvaluatorRunRecord, EvaluatorStatsRecord, Store } from '../store/types.js'

export interface EvaluatorService {
  list(): Promise<Evaluator[]>
  get(evaluatorId: string): Promise<Evaluator>
  create(input: EvaluatorInput): Promise<Evaluator>
  /** Replaces a rule; 201 semantics (`created`) when the id was new. */
  replace(evaluatorId: string, input: EvaluatorInput): Promise<{ created: boolean; evaluator: Evaluator }>
  remove(evaluatorId: string): Promise<void>
  /** A rule as the API takes it, checked (400 naming the field under `at`), its defaults filled in. */
  checkRule(input: EvaluatorInput, at: string): EvaluatorInput
  /** Runs a rule on one trace of the scope, storing nothing. */
  test(body: TestEvaluatorBody, scope: string | null): Promise<TestEvaluatorResponse>
  /** The rules as they are now (enabled or not), kept a moment: what ingest and the worker read for every trace. */
  rules(): Promise<readonly EvaluatorRecord[]>
  /** One rule as it is now (null: deleted), from the same copy. */
  rule(evaluatorId: string): Promise<EvaluatorRecord | null>
  /** Starts a backfill of a rule over past traces of the scope (202). */
  startRun(evaluatorId: string, body: CreateEvaluatorRunBody, scope: string | null): Promise<EvaluatorRun>
  listRuns(evaluatorId: string, scope: string | null): Promise<EvaluatorRun[]>
  getRun(runId: string, scope: string | null): Promise<EvaluatorRun>
  /** Cancels a running backfill (its waiting jobs go); a finished one is answered as it is. */
  cancelRun(runId: string, scope: string | null): Promise<EvaluatorRun>
}

export interface EvaluatorDeps {
  store: Store
  validators: Validators
  /** The server's judge (LOUPE_JUDGE_*). */
  config: { judgeBaseUrl: string | null; judgeApiKey: string | null; judgeModel: string | null; judgeTimeoutMs: number }
  judgeOptions?: JudgeOptions
  now?: () => number
  newId?: () => string
  /** A backfill run was created (its enumeration may start now). */
  runCreated?: () => void
  /** The expected output of an experiment's trace (a dataset item's), for a judge's `{{expected}}`. */
  expected?: (trace: Trace) => Promise<unknown>
  /** How long the rules read are used before they are read again (changes made here are seen at once). */
  rulesTtlMs?: number
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

const toEvaluator = (r: EvaluatorRecord, stats: EvaluatorStatsRecord | undefined): Evaluator => ({
  ...r,
  created_at: new Date(r.created_at).toISOString(),
  updated_at: new Date(r.updated_at).toISOString(),
  stats: {
    evaluated: stats?.evaluated ?? 0,
    errors: stats?.errors ?? 0,
    pending: stats?.pending ?? 0,
    last_error: stats?.last_error ?? null,
    last_error_at: iso(stats?.last_error_at ?? null),
    last_evaluated_at: iso(stats?.last_evaluated_at ?? null),
    judge_tokens: { prompt: stats?.prompt_tokens ?? 0, completion: stats?.completion_tokens ?? 0 },
    judge_cost: stats?.cost ?? 0,
  },
})

const toRun = (r: EvaluatorRunRecord): EvaluatorRun => ({
  run_id: r.run_id,
  evaluator_id: r.evaluator_id,
  status: r.status,
  since: iso(r.since),
  until: iso(r.until),
  total: r.total,
  enumerated: r.enumerated,
  done: r.done,
  errors: r.errors,
  cost: r.cost,
  last_error: r.last_error,
  created_at: new Date(r.created_at).toISOString(),
  finished_at: iso(r.finished_at),
})

export function createEvaluatorService({
  store,
  validators,
  config,
  judgeOptions,
  now = Date.now,
  newId = uuidv7,
  runCreated = () => {},
  expected = async () => undefined,
  rulesTtlMs = 2000,
}: EvaluatorDeps): EvaluatorService {
  let cached: { rules: Promise<EvaluatorRecord[]>; at: number } | null = null
  const rules = () => {
    if (!cached || now() - cached.at > rulesTtlMs) {
      const read = store.evaluators.list()
      cached = { rules: read, at: now() }
      // A failed read is not kept.
      read.catch(() => {
        if (cached?.rules === read) cached = null
      })
    }
    return cached.rules
  }
  const changed = () => {
    cached = null
  }
  /** A rule of the scope, or 404 (a rule of another project is never revealed). */
  async function ruleInScope(evaluatorId: string, scope: string | null): Promise<EvaluatorRecord> {
    const found = await store.evaluators.get(evaluatorId)
    if (!found || (found.project_id !== null && !inScope(scope, found.project_id))) {
      throw new EvaluatorNotFound(evaluatorId)
    }
    return found
  }
  async function runInScope(runId: string, scope: string | null): Promise<EvaluatorRunRecord> {
    const run = await store.evaluations.getRun(runId)
    if (!run || (scope !== null && run.project_id !== scope)) throw new EvaluatorRunNotFound(runId)
    return run
  }
  const deps = evaluateDepsOf(config, judgeOptions)
  const compileSchema = deps.compileSchema
  const configChecks = Object.fromEntries(
    Object.entries(EVALUATOR_CONFIGS).map(([kind, schema]) => [kind, validators.body.compile(schema)]),
  ) as Record<EvaluatorKind, ReturnType<Validators['body']['compile']>>
  const filterCheck = validators.query.compile(TraceFilterQuery)

  function checkRule(input: EvaluatorInput, at: string): EvaluatorInput {
    // PostgreSQL text and jsonb cannot hold U+0000; a rule has no use for it.
    if (JSON.stringify(input).includes('\\u0000')) throw new InvalidInput(`${at} must not contain U+0000`)
    const check = configChecks[input.kind]
    if (!check(input.config)) throw new InvalidInput(describeErrors(check.errors ?? [], `${at}/config`))
    const config = input.config as Record<string, unknown>
    if (input.kind === 'regex') {
      try {
        new RegExp(config.pattern as string, (config.flags as string | undefined) ?? '')
      } catch (err) {
        throw new InvalidInput(`${at}/config/pattern is not a usable regex: ${(err as Error).message}`)
      }
    }
    if (input.kind === 'json_schema') {
      try {
        compileSchema(config.schema as object)
      } catch (err) {
        throw new InvalidInput(`${at}/config/schema is not a usable JSON Schema: ${(err as Error).message}`)
      }
    }
    const filter = structuredClone(input.filter ?? {})
    const unknown = Object.keys(filter).find((key) => !Object.hasOwn(TraceFilterQuery.properties, key))
    if (unknown !== undefined) {
      throw new InvalidInput(`${at}/filter/${unknown} is not a filter of GET /traces`)
    }
    if (!filterCheck(filter)) throw new InvalidInput(describeErrors(filterCheck.errors ?? [], `${at}/filter`))
    return {
      ...input,
      project_id: input.project_id ?? null,
      filter,
      sample_rate: input.sample_rate ?? 1,
      enabled: input.enabled ?? true,
    }
  }

  /** A rule stored (new or replacing one), as answered. */
  async function store_(evaluatorId: string, input: EvaluatorInput, created_at: number) {
    const rule = checkRule(input, 'body')
    const record: EvaluatorRecord = {
      evaluator_id: evaluatorId,
      name: rule.name,
      project_id: rule.project_id ?? null,
      filter: rule.filter ?? {},
      sample_rate: rule.sample_rate ?? 1,
      score_name: rule.score_name,
      enabled: rule.enabled ?? true,
      kind: rule.kind,
      config: rule.config,
      created_at,
      updated_at: now(),
    }
    if (record.project_id !== null && !(await store.projects.get(record.project_id))) {
      throw new ProjectNotFound(record.project_id)
    }
    const created = await store.evaluators.put(record)
    changed()
    return { created, evaluator: toEvaluator(record, (await store.evaluations.stats()).get(evaluatorId)) }
  }

  return {
    checkRule,

    rules,

    async rule(evaluatorId) {
      return (await rules()).find((r) => r.evaluator_id === evaluatorId) ?? null
    },

    async list() {
      const stats = await store.evaluations.stats()
      return (await store.evaluators.list()).map((r) => toEvaluator(r, stats.get(r.evaluator_id)))
    },

    async get(evaluatorId) {
      const found = await store.evaluators.get(evaluatorId)
      if (!found) throw new EvaluatorNotFound(evaluatorId)
      return toEvaluator(found, (await store.evaluations.stats()).get(evaluatorId))
    },

    async create(input) {
      return (await store_(newId(), input, now())).evaluator
    },

    async replace(evaluatorId, input) {
      const found = await store.evaluators.get(evaluatorId)
      return store_(evaluatorId, input, found?.created_at ?? now())
    },

    async remove(evaluatorId) {
      if (!(await store.evaluators.delete(evaluatorId))) throw new EvaluatorNotFound(evaluatorId)
      changed()
      await store.evaluations.forget(evaluatorId, now())
    },

    async startRun(evaluatorId, body, scope) {
      const rule = await ruleInScope(evaluatorId, scope)
      const since = body.since === undefined ? null : parseTimestamp(body.since)
      const until = body.until === undefined ? null : parseTimestamp(body.until)
      if (since === null && body.since !== undefined) throw new InvalidInput('body/since must be a timestamp')
      if (until === null && body.until !== undefined) throw new InvalidInput('body/until must be a timestamp')
      if (since !== null && until !== null && until <= since) throw new InvalidInput('body/until must be after since')
      const run: EvaluatorRunRecord = {
        run_id: newId(),
        evaluator_id: rule.evaluator_id,
        project_id: scope ?? rule.project_id,
        since,
        until,
        status: 'running',
        total: 0,
        done: 0,
        errors: 0,
        cost: 0,
        cursor: null,
        enumerated: false,
        lease_until: null,
        last_error: null,
        created_at: now(),
        finished_at: null,
      }
      await store.evaluations.createRun(run)
      runCreated()
      return toRun(run)
    },

    async listRuns(evaluatorId, scope) {
      await ruleInScope(evaluatorId, scope)
      const runs = await store.evaluations.listRuns(evaluatorId)
      return runs.filter((r) => scope === null || r.project_id === scope).map(toRun)
    },

    async getRun(runId, scope) {
      return toRun(await runInScope(runId, scope))
    },

    async cancelRun(runId, scope) {
      await runInScope(runId, scope)
      await store.evaluations.endRun(runId, 'cancelled', null, now())
      return toRun(await runInScope(runId, scope))
    },

    async test({ evaluator, trace_id }, scope) {
      const rule = checkRule(evaluator, 'body/evaluator')
      const trace = await store.traces.get(trace_id)
      if (!trace || !inScope(scope, trace.project_id)) throw new TraceNotFound(trace_id)
      const expectedOutput = (await expected(trace)) ?? null
      const out = await evaluate(rule, trace, await store.scores.getConfig(rule.score_name), deps, expectedOutput)
      return { score: out.score, error: out.error, raw: out.raw }
    },
  }
}
