// Evaluators: checks run on traces, each writing a score. The built-in, deterministic kinds and their configs.
import { type Static, Type } from '@sinclair/typebox'
import { Literals } from './common.js'

/** The text of a trace a check reads: its prompt, its response, or its steps' inputs or outputs (as JSON text). */
export const EVALUATED_FIELDS = ['prompt', 'response', 'step_input', 'step_output'] as const
export type EvaluatedField = (typeof EVALUATED_FIELDS)[number]
const Field = Literals(EVALUATED_FIELDS, {
  description:
    "Which text is checked: the trace's `prompt` or `response`, or its steps' inputs (`step_input`) or outputs " +
    '(`step_output`), each step one line, a value that is not text as its JSON.',
})

/** The personal data the `pii` check looks for: the redaction detectors. */
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
