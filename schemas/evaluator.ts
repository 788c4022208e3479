// Evaluators: checks run on traces, each writing a score. The built-in, deterministic kinds and their configs.
import { type Static, Type } from '@sinclair/typebox'
import { Literals, Nullable, Page, Ref, TimestampInput, TraceIdSchema, UtcTimestamp } from './common.js'
import {
  evaluatorExample,
  evaluatorInputExample,
  evaluatorRunBodyExample,
  evaluatorRunExample,
  evaluatorStatsExample,
  listEvaluatorRunsExample,
  listEvaluatorsExample,
  listJudgeTemplatesExample,
  testEvaluatorBodyExample,
  testEvaluatorResponseExample,
} from './examples.js'
import { ScoreDataTypeSchema, ScoreNameSchema } from './score.js'

/** The text of a trace a check reads: its prompt, its response, or its steps' inputs or outputs (as JSON text). */
export const EVALUATED_FIELDS = ['prompt', 'response', 'step_input', 'step_output'] as const
export type EvaluatedField = (typeof EVALUATED_FIELDS)[number]
const Field = Literals(EVALUATED_FIELDS, {
  description:
    "Which text is checked: the trace's `prompt` or `response`, or its steps' inputs (`step_input`) or outputs " +
    '(`step_output`), each step one line, a value that is not text as its JSON.',
})

/**
 * The kinds of personal data Loupe detects, in the order they run: what redaction (REDACT_DETECTORS) takes out and
 * what the `pii` evaluator looks for. A card number runs before the phone detector, which would cut it.
 */
export const PII_DETECTORS = ['api_key', 'email', 'card', 'phone'] as const

export const RegexConfigSchema = Type.Object(
  {
    field: Field,
    pattern: Type.String({ minLength: 1, maxLength: 1000, description: 'A JavaScript regular expression.' }),
    flags: Type.Optional(Type.String({ pattern: '^[imsu]*$', maxLength: 4, description: 'Regex flags: i, m, s, u.' })),
    expect: Literals(['match', 'no_match'] as const, {
      description: 'The check passes when the text does (not) match.',
    }),
  },
  { additionalProperties: false },
)

export const ContainsConfigSchema = Type.Object(
  {
    field: Field,
    words: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { minItems: 1, maxItems: 100 }),
    mode: Literals(['any', 'all', 'none'] as const, {
      description: '`any`: one of the words occurs; `all`: every word does; `none`: no word does.',
    }),
    case_sensitive: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
)

export const JsonConfigSchema = Type.Object({ field: Field }, { additionalProperties: false })

export const JsonSchemaConfigSchema = Type.Object(
  {
    field: Field,
    schema: Type.Record(Type.String(), Type.Unknown(), { description: 'The JSON Schema the text, parsed, must meet.' }),
  },
  { additionalProperties: false },
)

export const LengthConfigSchema = Type.Object(
  {
    field: Field,
    min: Type.Optional(Type.Integer({ minimum: 0, description: 'At least this many characters.' })),
    max: Type.Optional(Type.Integer({ minimum: 0, description: 'At most this many characters.' })),
  },
  { additionalProperties: false },
)

export const LatencyConfigSchema = Type.Object(
  { max_ms: Type.Number({ minimum: 0, description: 'Passes when the trace took at most this many ms.' }) },
  { additionalProperties: false },
)

export const CostConfigSchema = Type.Object(
  {
    max_usd: Type.Number({
      minimum: 0,
      description: 'Passes when the trace cost at most this many USD; an unpriced trace is not judged.',
    }),
  },
  { additionalProperties: false },
)

export const PiiConfigSchema = Type.Object(
  {
    field: Field,
    detectors: Type.Optional(
      Type.Array(Literals(PII_DETECTORS), {
        minItems: 1,
        uniqueItems: true,
        description: 'Which kinds of personal data to look for (default: all).',
      }),
    ),
  },
  { additionalProperties: false },
)

/** Each deterministic kind and its config. */
export const DETERMINISTIC_CONFIGS = {
  regex: RegexConfigSchema,
  contains: ContainsConfigSchema,
  json: JsonConfigSchema,
  json_schema: JsonSchemaConfigSchema,
  length: LengthConfigSchema,
  latency: LatencyConfigSchema,
  cost: CostConfigSchema,
  pii: PiiConfigSchema,
} as const
export type DeterministicKind = keyof typeof DETERMINISTIC_CONFIGS
export const DETERMINISTIC_KINDS = Object.keys(DETERMINISTIC_CONFIGS) as DeterministicKind[]

/** A deterministic check as a rule holds it: its kind and that kind's config. */
export type DeterministicCheck = {
  [K in DeterministicKind]: { kind: K; config: Static<(typeof DETERMINISTIC_CONFIGS)[K]> }
}[DeterministicKind]

/** An LLM-as-judge check: a prompt template, and where to ask when not the server's judge. */
export const LlmJudgeConfigSchema = Type.Object(
  {
    template: Type.String({
      minLength: 1,
      maxLength: 20_000,
      description:
        'What the judge is asked. `{{prompt}}`, `{{response}}`, `{{steps}}` (each step’s name, input and output), ' +
        '`{{metadata.<key>}}` and `{{expected}}` (a dataset item’s expected output) are filled in.',
    }),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Default: LOUPE_JUDGE_MODEL.' })),
    base_url: Type.Optional(
      Type.String({
        pattern: '^https?://',
        maxLength: 2048,
        description: 'An OpenAI-compatible API’s base URL; default: LOUPE_JUDGE_BASE_URL.',
      }),
    ),
  },
  { additionalProperties: false },
)

export const EVALUATOR_KINDS = [...DETERMINISTIC_KINDS, 'llm_judge'] as const
export type EvaluatorKind = (typeof EVALUATOR_KINDS)[number]

/** Every kind's config. */
export const EVALUATOR_CONFIGS = { ...DETERMINISTIC_CONFIGS, llm_judge: LlmJudgeConfigSchema } as const

/** A rule as a client sends it: which traces, how many of them, which check, which score it writes. */
export const EvaluatorInputSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128, description: 'The rule’s name: the `author` of its scores.' }),
    project_id: Type.Optional(Nullable(Type.String({ minLength: 1, description: 'null: every project.' }))),
    filter: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Which traces: parameters of `GET /traces` (`model`, `status`, `q`, …); default every trace.',
      }),
    ),
    sample_rate: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        default: 1,
        description: 'The share of matching traces evaluated, chosen by trace_id (the same traces on every run).',
      }),
    ),
    score_name: ScoreNameSchema,
    enabled: Type.Optional(Type.Boolean({ default: true })),
    kind: Literals(EVALUATOR_KINDS, {
      description: 'A built-in deterministic check (a boolean score, 1 when it passes) or `llm_judge`.',
    }),
    config: Type.Record(Type.String(), Type.Unknown(), { description: 'The kind’s settings (see docs/api.md).' }),
  },
  {
    $id: 'EvaluatorInputSchema',
    additionalProperties: false,
    examples: [evaluatorInputExample],
    description: 'An evaluator rule: a check run on traces, each result a score.',
  },
)
export type EvaluatorInput = Static<typeof EvaluatorInputSchema>

// POST /evaluators/test
export const TestEvaluatorBody = Type.Object(
  {
    evaluator: Ref(EvaluatorInputSchema),
    trace_id: TraceIdSchema,
  },
  { additionalProperties: false, examples: [testEvaluatorBodyExample] },
)
export type TestEvaluatorBody = Static<typeof TestEvaluatorBody>

export const TestEvaluatorResponse = Type.Object(
  {
    score: Nullable(
      Type.Object(
        {
          name: ScoreNameSchema,
          data_type: ScoreDataTypeSchema,
          value: Type.Number(),
          label: Nullable(Type.String()),
          comment: Nullable(Type.String()),
          source: Type.Literal('evaluator'),
          author: Type.String(),
          metadata: Type.Record(Type.String(), Type.Unknown()),
        },
        { description: 'The score the rule would write (nothing is stored); null when it gives no verdict.' },
      ),
    ),
    error: Nullable(Type.String({ description: 'Why there is no verdict (no text to check, the judge failed).' })),
    raw: Nullable(Type.String({ description: 'The judge’s answer as it came (llm_judge).' })),
  },
  { examples: [testEvaluatorResponseExample] },
)
export type TestEvaluatorResponse = Static<typeof TestEvaluatorResponse>

/** A judge template that ships: its text, and the score its verdicts fit. */
export const JudgeTemplateSchema = Type.Object(
  {
    id: Type.String(),
    description: Type.String(),
    template: Type.String({ description: 'An `llm_judge` config’s `template`.' }),
    score: Type.Union(
      [
        Type.Object({ data_type: Type.Literal('numeric'), min: Type.Number(), max: Type.Number() }),
        Type.Object({ data_type: Type.Literal('boolean') }),
      ],
      { description: 'The score config its verdicts fit (a score config of the rule’s score name wins).' },
    ),
  },
  { additionalProperties: false },
)
export type JudgeTemplate = Static<typeof JudgeTemplateSchema>

// GET /evaluators/templates
export const ListJudgeTemplatesResponse = Page(JudgeTemplateSchema, {}, { examples: [listJudgeTemplatesExample] })
export type ListJudgeTemplatesResponse = Static<typeof ListJudgeTemplatesResponse>

/** What a rule has done (every replica's work, kept in the database). */
export const EvaluatorStatsSchema = Type.Object(
  {
    evaluated: Type.Integer({ description: 'Verdicts recorded as scores.' }),
    errors: Type.Integer({
      description:
        'Evaluations that gave no verdict: the judge’s answer unusable twice, no text to check, no judge configured.',
    }),
    pending: Type.Integer({ description: 'Evaluations waiting to run (live traces and backfills).' }),
    last_error: Nullable(
      Type.String({ description: 'The last evaluation error, or the last failure to reach the judge.' }),
    ),
    last_error_at: Nullable(UtcTimestamp),
    last_evaluated_at: Nullable(UtcTimestamp),
    judge_tokens: Type.Object(
      { prompt: Type.Integer(), completion: Type.Integer() },
      { description: 'The judge’s own tokens (llm_judge).' },
    ),
    judge_cost: Type.Number({ description: 'The judge’s own cost in USD, at the prices in force when it answered.' }),
  },
  { $id: 'EvaluatorStatsSchema', additionalProperties: false, examples: [evaluatorStatsExample] },
)
export type EvaluatorStats = Static<typeof EvaluatorStatsSchema>

/** An evaluator rule as stored and answered. */
export const EvaluatorSchema = Type.Object(
  {
    evaluator_id: Type.String(),
    name: Type.String(),
    project_id: Nullable(Type.String({ description: 'null: every project.' })),
    filter: Type.Record(Type.String(), Type.Unknown(), { description: 'Parameters of `GET /traces`.' }),
    sample_rate: Type.Number({ minimum: 0, maximum: 1 }),
    score_name: ScoreNameSchema,
    enabled: Type.Boolean(),
    kind: Literals(EVALUATOR_KINDS),
    config: Type.Record(Type.String(), Type.Unknown()),
    created_at: UtcTimestamp,
    updated_at: UtcTimestamp,
    stats: Ref(EvaluatorStatsSchema),
  },
  {
    $id: 'EvaluatorSchema',
    additionalProperties: false,
    examples: [evaluatorExample],
    description: 'An evaluator rule.',
  },
)
export type Evaluator = Static<typeof EvaluatorSchema>

// GET /evaluators
export const ListEvaluatorsResponse = Page(
  Ref(EvaluatorSchema),
  { items: 'Oldest first.' },
  { examples: [listEvaluatorsExample] },
)
export type ListEvaluatorsResponse = Static<typeof ListEvaluatorsResponse>
export const EvaluatorParams = Type.Object({ evaluator_id: Type.String() })

export const EVALUATOR_RUN_STATUSES = ['running', 'done', 'cancelled', 'failed'] as const
export type EvaluatorRunStatus = (typeof EVALUATOR_RUN_STATUSES)[number]

// POST /evaluators/{evaluator_id}/runs
export const CreateEvaluatorRunBody = Type.Object(
  {
    since: Type.Optional(TimestampInput),
    until: Type.Optional(TimestampInput),
  },
  {
    additionalProperties: false,
    examples: [evaluatorRunBodyExample],
    description:
      'Which past traces: created_at ≥ since and < until (default: every trace), within the rule’s project, filter ' +
      'and sample rate.',
  },
)
export type CreateEvaluatorRunBody = Static<typeof CreateEvaluatorRunBody>

/** A backfill: a rule run on past traces, and how far it has got. */
export const EvaluatorRunSchema = Type.Object(
  {
    run_id: Type.String(),
    evaluator_id: Type.String(),
    status: Literals(EVALUATOR_RUN_STATUSES, {
      description:
        '`running` until every enqueued trace is evaluated (then `done`); `cancelled` by DELETE; `failed` when the ' +
        'traces could not be enumerated.',
    }),
    since: Nullable(UtcTimestamp),
    until: Nullable(UtcTimestamp),
    total: Type.Integer({ description: 'Traces enqueued (final once `enumerated`).' }),
    enumerated: Type.Boolean({ description: 'Every matching trace is enqueued: `total` will not grow.' }),
    done: Type.Integer({ description: 'Traces evaluated (a score or an error).' }),
    errors: Type.Integer({ description: 'Of those, evaluations that gave no verdict.' }),
    cost: Type.Number({ description: 'The judge’s cost so far, in USD.' }),
    last_error: Nullable(Type.String()),
    created_at: UtcTimestamp,
    finished_at: Nullable(UtcTimestamp),
  },
  { $id: 'EvaluatorRunSchema', additionalProperties: false, examples: [evaluatorRunExample] },
)
export type EvaluatorRun = Static<typeof EvaluatorRunSchema>

// GET /evaluators/{evaluator_id}/runs
export const ListEvaluatorRunsResponse = Page(
  Ref(EvaluatorRunSchema),
  { items: 'Newest first.' },
  { examples: [listEvaluatorRunsExample] },
)
export type ListEvaluatorRunsResponse = Static<typeof ListEvaluatorRunsResponse>
export const EvaluatorRunParams = Type.Object({ run_id: Type.String({ maxLength: 64 }) })
