// Evaluator rules: a rule checked as the API takes it (its kind's config, its trace filter), and run on a trace
// without storing anything (POST /evaluators/test) — the judge asked for real, the score it would write answered.
import { uuidv7 } from 'uuidv7'
import {
  EVALUATOR_CONFIGS,
  type Evaluator,
  type EvaluatorInput,
  type EvaluatorKind,
  type TestEvaluatorBody,
  type TestEvaluatorResponse,
  TraceFilterQuery,
} from '../../schemas/index.js'
import { EvaluatorNotFound, InvalidInput, ProjectNotFound, TraceNotFound } from '../errors.js'
import { createSchemaCompiler } from '../evaluators/checks.js'
import { type EvaluateDeps, evaluate } from '../evaluators/evaluate.js'
import type { JudgeOptions } from '../evaluators/judge.js'
import { inScope } from '../lib/access-policy.js'
import { describeErrors, type Validators } from '../lib/validation.js'
import type { EvaluatorRecord, Store } from '../store/types.js'

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
}

export interface EvaluatorDeps {
  store: Store
  validators: Validators
  /** The server's judge (LOUPE_JUDGE_*). */
  config: { judgeBaseUrl: string | null; judgeApiKey: string | null; judgeModel: string | null; judgeTimeoutMs: number }
  judgeOptions?: JudgeOptions
  now?: () => number
  newId?: () => string
}

const toEvaluator = (r: EvaluatorRecord): Evaluator => ({
  ...r,
  created_at: new Date(r.created_at).toISOString(),
  updated_at: new Date(r.updated_at).toISOString(),
})

export function createEvaluatorService({
  store,
  validators,
  config,
  judgeOptions,
  now = Date.now,
  newId = uuidv7,
}: EvaluatorDeps): EvaluatorService {
  const compileSchema = createSchemaCompiler()
  const configChecks = Object.fromEntries(
    Object.entries(EVALUATOR_CONFIGS).map(([kind, schema]) => [kind, validators.body.compile(schema)]),
  ) as Record<EvaluatorKind, ReturnType<Validators['body']['compile']>>
  const filterCheck = validators.query.compile(TraceFilterQuery)
  const deps: EvaluateDeps = {
    compileSchema,
    judge: {
      baseUrl: config.judgeBaseUrl,
      apiKey: config.judgeApiKey,
      model: config.judgeModel,
      timeoutMs: config.judgeTimeoutMs,
    },
    judgeOptions,
  }

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
    return { created, evaluator: toEvaluator(record) }
  }

  return {
    checkRule,

    async list() {
      return (await store.evaluators.list()).map(toEvaluator)
    },

    async get(evaluatorId) {
      const found = await store.evaluators.get(evaluatorId)
      if (!found) throw new EvaluatorNotFound(evaluatorId)
      return toEvaluator(found)
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
    },

    async test({ evaluator, trace_id }, scope) {
      const rule = checkRule(evaluator, 'body/evaluator')
      const trace = await store.traces.get(trace_id)
      if (!trace || !inScope(scope, trace.project_id)) throw new TraceNotFound(trace_id)
      const out = await evaluate(rule, trace, await store.scores.getConfig(rule.score_name), deps)
      return { score: out.score, error: out.error, raw: out.raw }
    },
  }
}
