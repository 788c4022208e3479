// One evaluator rule run on one trace: its check (deterministic, or the judge asked with its template), and the score
// that verdict makes — what a dry run answers and what a run records through the score road.
import type { DeterministicCheck, EvaluatorInput, ScoreConfig, Trace } from '../../schemas/index.js'
import { createSchemaCompiler, runCheck, type SchemaCompiler } from './checks.js'
import { askJudge, type JudgeEndpoint, type JudgeOptions, type VerdictShape } from './judge.js'
import { renderTemplate } from './templates.js'

/** The score a verdict makes (the trace, its project and the ids are the caller's to add). */
export interface EvaluatedScore {
  name: string
  data_type: 'numeric' | 'boolean' | 'categorical'
  value: number
  label: string | null
  comment: string | null
  source: 'evaluator'
  author: string
  metadata: Record<string, unknown>
}

export interface Evaluation {
  score: EvaluatedScore | null
  error: string | null
  /** The judge's answer as it came. */
  raw: string | null
  /** The judge's tokens (llm_judge). */
  usage: { prompt_tokens: number; completion_tokens: number } | null
  /** The judge could not be asked (unreachable, 429, 5xx, timeouts): the evaluation is worth trying again later. */
  transient?: boolean
  /** How long the judge asked to be left alone, when it said. */
  retryAfterMs?: number | null
}

export interface EvaluateDeps {
  compileSchema: SchemaCompiler
  /** The server's judge (LOUPE_JUDGE_*): a rule's own model and base_url win. */
  judge: { baseUrl: string | null; apiKey: string | null; model: string | null; timeoutMs: number }
  judgeOptions?: JudgeOptions
}

/** What running rules needs, from the server's settings: a JSON Schema compiler, and the server's judge. */
export function evaluateDepsOf(
  config: {
    judgeBaseUrl: string | null
    judgeApiKey: string | null
    judgeModel: string | null
    judgeTimeoutMs: number
  },
  judgeOptions?: JudgeOptions,
): EvaluateDeps {
  return {
    compileSchema: createSchemaCompiler(),
    judge: {
      baseUrl: config.judgeBaseUrl,
      apiKey: config.judgeApiKey,
      model: config.judgeModel,
      timeoutMs: config.judgeTimeoutMs,
    },
    judgeOptions,
  }
}

/** What a judge's verdict must be: the score config of the rule's score name, else a number from 0 to 1. */
export function shapeOf(config: ScoreConfig | null): VerdictShape {
  if (config?.data_type === 'boolean') return { data_type: 'boolean' }
  if (config?.data_type === 'categorical' && config.categories) {
    return { data_type: 'categorical', categories: config.categories }
  }
  return { data_type: 'numeric', min: config?.min ?? 0, max: config?.max ?? 1 }
}

/** The judge a rule asks, or why there is none. */
export function endpointOf(rule: EvaluatorInput, deps: EvaluateDeps): JudgeEndpoint | string {
  const config = rule.config as { model?: string; base_url?: string }
  const baseUrl = config.base_url?.replace(/\/+$/, '') ?? deps.judge.baseUrl
  const model = config.model ?? deps.judge.model
  if (!baseUrl) return 'no judge is configured: set LOUPE_JUDGE_BASE_URL, or base_url in the evaluator’s config'
  if (!model) return 'no judge model is configured: set LOUPE_JUDGE_MODEL, or model in the evaluator’s config'
  // The server's key goes only to the server's judge, never to a URL a rule names.
  const apiKey = config.base_url === undefined ? deps.judge.apiKey : null
  return { baseUrl, model, apiKey, timeoutMs: deps.judge.timeoutMs }
}

/** Runs a (checked) rule on a trace; `scoreConfig` is the config of its score name, if any. */
export async function evaluate(
  rule: EvaluatorInput,
  trace: Trace,
  scoreConfig: ScoreConfig | null,
  deps: EvaluateDeps,
  expected: unknown = null,
): Promise<Evaluation> {
  const made = (fields: Pick<EvaluatedScore, 'data_type' | 'value' | 'label' | 'comment' | 'metadata'>) => ({
    name: rule.score_name,
    source: 'evaluator' as const,
    author: rule.name,
    ...fields,
  })
  if (rule.kind !== 'llm_judge') {
    const verdict = runCheck({ kind: rule.kind, config: rule.config } as DeterministicCheck, trace, deps.compileSchema)
    if ('error' in verdict) return { score: null, error: verdict.error, raw: null, usage: null }
    return {
      score: made({
        data_type: 'boolean',
        value: verdict.passed ? 1 : 0,
        label: String(verdict.passed),
        comment: verdict.comment,
        metadata: {},
      }),
      error: null,
      raw: null,
      usage: null,
    }
  }
  const endpoint = endpointOf(rule, deps)
  if (typeof endpoint === 'string') return { score: null, error: endpoint, raw: null, usage: null }
  const shape = shapeOf(scoreConfig)
  const { template } = rule.config as { template: string }
  const out = await askJudge(endpoint, renderTemplate(template, trace, expected), shape, deps.judgeOptions)
  if (!out.verdict) {
    return {
      score: null,
      error: out.error,
      raw: out.raw,
      usage: out.usage,
      transient: out.transient,
      retryAfterMs: out.retryAfterMs,
    }
  }
  const { score, reasoning } = out.verdict
  const metadata = { judge_model: endpoint.model, judge_usage: out.usage, judge_attempts: out.attempts }
  const fields =
    shape.data_type === 'categorical'
      ? { data_type: 'categorical' as const, value: shape.categories.indexOf(score as string), label: score as string }
      : shape.data_type === 'boolean'
        ? { data_type: 'boolean' as const, value: score ? 1 : 0, label: String(score) }
        : { data_type: 'numeric' as const, value: score as number, label: null }
  return { score: made({ ...fields, comment: reasoning, metadata }), error: null, raw: out.raw, usage: out.usage }
}
