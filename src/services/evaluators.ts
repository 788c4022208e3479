// Evaluator rules: a rule checked as the API takes it (its kind's config, its trace filter), and run on a trace
// without storing anything (POST /evaluators/test) — the judge asked for real, the score it would write answered.
import {
  EVALUATOR_CONFIGS,
  type EvaluatorInput,
  type EvaluatorKind,
  type TestEvaluatorBody,
  type TestEvaluatorResponse,
  TraceFilterQuery,
} from '../../schemas/index.js'
import { InvalidInput, TraceNotFound } from '../errors.js'
import { createSchemaCompiler } from '../evaluators/checks.js'
import { type EvaluateDeps, evaluate } from '../evaluators/evaluate.js'
import type { JudgeOptions } from '../evaluators/judge.js'
import { inScope } from '../lib/access-policy.js'
import { describeErrors, type Validators } from '../lib/validation.js'
import type { Store } from '../store/types.js'

export interface EvaluatorService {
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
}

export function createEvaluatorService({ store, validators, config, judgeOptions }: EvaluatorDeps): EvaluatorService {
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

  return {
    checkRule,

    async test({ evaluator, trace_id }, scope) {
      const rule = checkRule(evaluator, 'body/evaluator')
      const trace = await store.traces.get(trace_id)
      if (!trace || !inScope(scope, trace.project_id)) throw new TraceNotFound(trace_id)
      const out = await evaluate(rule, trace, await store.scores.getConfig(rule.score_name), deps)
      return { score: out.score, error: out.error, raw: out.raw }
    },
  }
}
