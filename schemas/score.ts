// Scores: whether an answer was good — a number, a category or a yes/no about a trace, one of its steps, or a session,
// from the API, a user's feedback, a person annotating, or an evaluator. Score configs say what a name may hold.
import { type Static, Type } from '@sinclair/typebox'
import {
  BatchAnswer,
  LimitQuery,
  Literals,
  Nullable,
  Page,
  Ref,
  TimestampInput,
  TimestampQuery,
  TraceIdSchema,
  UtcTimestamp,
} from './common.js'
import {
  batchScoresBodyExample,
  batchScoresResponseExample,
  listScoreConfigsExample,
  listScoresExample,
  scoreAnalyticsExample,
  scoreConfigExample,
  scoreConfigInputExample,
  scoreExample,
  scoreInputExample,
} from './examples.js'

export const SCORE_DATA_TYPES = ['numeric', 'categorical', 'boolean'] as const
export type ScoreDataType = (typeof SCORE_DATA_TYPES)[number]
export const ScoreDataTypeSchema = Literals(SCORE_DATA_TYPES, {
  description: '`numeric`: a number; `categorical`: one of a list of labels; `boolean`: 1 (true) or 0 (false).',
})

export const SCORE_SOURCES = ['api', 'feedback', 'annotation', 'evaluator'] as const
export type ScoreSource = (typeof SCORE_SOURCES)[number]
export const ScoreSourceSchema = Literals(SCORE_SOURCES, {
  description:
    'Who gave the score: `api` (a client), `feedback` (an end user, through a public key), `annotation` (a person ' +
    'in the viewer), `evaluator` (an automatic check).',
})

/** The largest magnitude of a score's value: beyond any rating, percentage or count a score holds. */
export const SCORE_VALUE_BOUND = 1_000_000_000

export const SCORE_LIMITS = {
  batch: 1000,
  /** Scores inline on one trace. */
  inline: 100,
  /** A comment, in characters. */
  comment: 10_000,
  /** Serialized metadata, in bytes. */
  metadataBytes: 16 * 1024,
  /** A label, an author. */
  label: 256,
  author: 256,
} as const

/** A score's name: what it measures (`helpfulness`, `thumbs`). */
export const ScoreNameSchema = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^\\S(.*\\S)?$',
  description: 'What the score measures, 1–64 characters, no leading or trailing space (e.g. `helpfulness`).',
})

export const ScoreIdSchema = Type.String({
  pattern: '^[A-Za-z0-9._:-]+$',
  minLength: 1,
  maxLength: 128,
  description: '1–128 characters of `[A-Za-z0-9._:-]`; a UUIDv7 is generated when the client sends none.',
})

const ScoreMetadata = Type.Record(Type.String(), Type.Unknown(), {
  description: `Free JSON object, at most ${SCORE_LIMITS.metadataBytes / 1024} KiB serialized.`,
})

const ScoreValue = Type.Number({
  minimum: -SCORE_VALUE_BOUND,
  maximum: SCORE_VALUE_BOUND,
  description: `A finite number, at most ${SCORE_VALUE_BOUND} in magnitude; 1 or 0 for a boolean.`,
})

export const ScoreSchema = Type.Object(
  {
    score_id: ScoreIdSchema,
    project_id: Type.String({ description: 'The project of the trace or session scored.' }),
    trace_id: Nullable(Type.String({ description: 'The trace scored; null for a score of a whole session.' })),
    step_index: Nullable(Type.Integer({ minimum: 0, description: 'The step of the trace scored; null: the trace.' })),
    session_id: Nullable(Type.String({ description: 'The session scored, or the session of the trace scored.' })),
    name: ScoreNameSchema,
    data_type: ScoreDataTypeSchema,
    value: ScoreValue,
    label: Nullable(
      Type.String({ description: 'The category of a categorical score; `"true"` or `"false"` for a boolean.' }),
    ),
    comment: Nullable(Type.String({ description: 'Why this score.' })),
    source: ScoreSourceSchema,
    author: Nullable(Type.String({ description: 'Who gave it: an annotator, an evaluator, a user id.' })),
    created_at: UtcTimestamp,
    metadata: ScoreMetadata,
  },
  {
    $id: 'ScoreSchema',
    additionalProperties: false,
    description: 'A score of a trace, of one of its steps, or of a session.',
    examples: [scoreExample],
  },
)
export type Score = Static<typeof ScoreSchema>

export const ScoreInputSchema = Type.Object(
  {
    score_id: Type.Optional(ScoreIdSchema),
    trace_id: Type.Optional(TraceIdSchema),
    step_index: Type.Optional(
      Nullable(Type.Integer({ minimum: 0, maximum: 999, description: 'A step of the trace (0-based).' })),
    ),
    session_id: Type.Optional(
      Nullable(Type.String({ minLength: 1, maxLength: 256, description: 'A session (without `trace_id`).' })),
    ),
    project_id: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'The project of a session score (a trace score takes its trace’s); a project key implies its own.',
      }),
    ),
    name: ScoreNameSchema,
    data_type: Type.Optional(ScoreDataTypeSchema),
    value: Type.Optional(
      Type.Union(
        [
          ScoreValue,
          Type.Boolean(),
          Type.String({ minLength: 1, maxLength: SCORE_LIMITS.label, description: 'A category.' }),
        ],
        {
          description:
            'A number (numeric), true/false (boolean) or a category (categorical); `data_type`, when omitted, is ' +
            'inferred from it.',
        },
      ),
    ),
    label: Type.Optional(
      Nullable(
        Type.String({ minLength: 1, maxLength: SCORE_LIMITS.label, description: 'A categorical score’s label.' }),
      ),
    ),
    comment: Type.Optional(Nullable(Type.String({ maxLength: SCORE_LIMITS.comment }))),
    source: Type.Optional(ScoreSourceSchema),
    author: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: SCORE_LIMITS.author }))),
    created_at: Type.Optional(TimestampInput),
    metadata: Type.Optional(Nullable(ScoreMetadata)),
  },
  {
    $id: 'ScoreInputSchema',
    additionalProperties: false,
    description:
      'A score to record: of a trace (`trace_id`, optionally `step_index`) or of a session (`session_id` alone). ' +
      'Give `value` (or, for a categorical score, `label`).',
    examples: [scoreInputExample],
  },
)
export type ScoreInput = Static<typeof ScoreInputSchema>

/** A score as a trace's input may carry it inline: of that trace, so without ids of its own. */
export const InlineScoreInputSchema = Type.Omit(ScoreInputSchema, ['trace_id', 'session_id', 'project_id'], {
  additionalProperties: false,
  examples: [{ name: 'json_valid', value: true, source: 'evaluator', author: 'ci' }],
  description: 'A score of this trace (or of one of its steps), recorded once the trace is stored.',
})

// POST /scores/batch
export const BatchScoresBody = Type.Object(
  {
    scores: Type.Array(Ref(ScoreInputSchema), {
      minItems: 1,
      maxItems: SCORE_LIMITS.batch,
      description: 'Each score is checked on its own: valid ones are stored even when others are rejected.',
    }),
  },
  { examples: [batchScoresBodyExample] },
)

export const BatchScoresResponse = BatchAnswer(
  'scores',
  'Scores',
  Type.Object({ score_id: Type.String(), trace_id: Nullable(Type.String()) }),
  { examples: [batchScoresResponseExample] },
)
export type BatchScoresResponse = Static<typeof BatchScoresResponse>

// GET /scores
export const ListScoresQuery = Type.Object({
  project_id: Type.Optional(Type.String({ description: 'Only scores of this project.' })),
  trace_id: Type.Optional(Type.String({ description: 'Only scores of this trace (and its steps).' })),
  session_id: Type.Optional(Type.String({ description: 'Only scores of this session (and of its traces).' })),
  name: Type.Optional(Type.String({ description: 'Only scores of this name.' })),
  source: Type.Optional(ScoreSourceSchema),
  author: Type.Optional(Type.String({ description: 'Only scores by this author.' })),
  since: Type.Optional(TimestampQuery('created_at ≥ since.')),
  until: Type.Optional(TimestampQuery('created_at < until.')),
  limit: Type.Optional(LimitQuery),
  cursor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 512, description: 'The `next_cursor` of the previous page.' }),
  ),
})
export type ListScoresQuery = Static<typeof ListScoresQuery>

export const ListScoresResponse = Page(
  Ref(ScoreSchema),
  { total: 'Scores matching the filters (not just this page).', items: 'Newest first (created_at, then score_id).' },
  { examples: [listScoresExample] },
  { next_cursor: Nullable(Type.String({ description: 'Pass as `cursor` for the next page; null on the last.' })) },
)
export type ListScoresResponse = Static<typeof ListScoresResponse>

export const ScoreParams = Type.Object({ score_id: Type.String() })

/** Per score name, some scores in short (`description` says whose). */
export const scoreSummary = (description: string) =>
  Type.Record(
    Type.String(),
    Type.Object({
      count: Type.Integer(),
      mean: Type.Number({ description: 'Mean value (for a categorical score, of the values it was given).' }),
    }),
    { description },
  )

/** Per score name, a trace's scores in short: in the light list of traces. */
export const ScoreSummarySchema = scoreSummary('Per score name: how many scores the trace has and their mean value.')
export type ScoreSummary = Static<typeof ScoreSummarySchema>

// Score configs: what a score name may hold.
export const ScoreConfigSchema = Type.Object(
  {
    name: ScoreNameSchema,
    data_type: ScoreDataTypeSchema,
    min: Nullable(Type.Number({ description: 'Numeric: the smallest value allowed (null: none).' })),
    max: Nullable(Type.Number({ description: 'Numeric: the largest value allowed (null: none).' })),
    categories: Nullable(
      Type.Array(Type.String({ minLength: 1, maxLength: SCORE_LIMITS.label }), {
        description: 'Categorical: the labels allowed, in order (a score’s value is its label’s position).',
      }),
    ),
    description: Nullable(Type.String({ maxLength: 2000 })),
    created_at: UtcTimestamp,
    updated_at: UtcTimestamp,
  },
  {
    $id: 'ScoreConfigSchema',
    additionalProperties: false,
    description: 'What a score name may hold: scores of this name are checked against it.',
    examples: [scoreConfigExample],
  },
)
export type ScoreConfig = Static<typeof ScoreConfigSchema>

export const ScoreConfigInput = Type.Object(
  {
    name: ScoreNameSchema,
    data_type: ScoreDataTypeSchema,
    min: Type.Optional(Nullable(ScoreValue)),
    max: Type.Optional(Nullable(ScoreValue)),
    categories: Type.Optional(
      Nullable(
        Type.Array(Type.String({ minLength: 1, maxLength: SCORE_LIMITS.label }), {
          minItems: 1,
          maxItems: 100,
          uniqueItems: true,
        }),
      ),
    ),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  },
  { additionalProperties: false, examples: [scoreConfigInputExample] },
)
export type ScoreConfigInput = Static<typeof ScoreConfigInput>

/** PUT /score-configs/{name}: the config without its name (the path says it). */
export const PutScoreConfigBody = Type.Omit(ScoreConfigInput, ['name'], {
  additionalProperties: false,
  examples: [{ data_type: 'categorical', categories: ['rude', 'neutral', 'friendly'], description: 'The tone.' }],
})

export const ScoreConfigParams = Type.Object({ name: ScoreNameSchema })
export const ListScoreConfigsResponse = Page(
  Ref(ScoreConfigSchema),
  { items: 'Name ascending.' },
  { examples: [listScoreConfigsExample] },
)
export type ListScoreConfigsResponse = Static<typeof ListScoreConfigsResponse>

/** One score name (and data type) in /analytics: every score of it, and its last 24 hours hour by hour. */
export const ScoreAnalyticsSchema = Type.Object(
  {
    name: ScoreNameSchema,
    data_type: ScoreDataTypeSchema,
    count: Type.Integer({ description: 'Scores of this name and data type.' }),
    mean: Nullable(Type.Number({ description: 'Mean value (numeric and boolean); null for a categorical score.' })),
    labels: Type.Array(Type.Object({ label: Type.String(), count: Type.Integer() }), {
      description: 'Categorical and boolean: how many scores have each label, most first, then label ascending.',
    }),
    series: Type.Array(
      Type.Object({
        timestamp: Type.String({ description: 'The start of the hour (UTC).' }),
        count: Type.Integer(),
        mean: Nullable(Type.Number({ description: 'Null for a categorical score or an hour without scores.' })),
      }),
      { description: 'The last 24 hours (by when each score was given), 1-hour UTC buckets, oldest first.' },
    ),
  },
  {
    $id: 'ScoreAnalyticsSchema',
    additionalProperties: false,
    description: 'The scores of one name, counted from rollups kept with every write and delete.',
    examples: [scoreAnalyticsExample],
  },
)
export type ScoreAnalytics = Static<typeof ScoreAnalyticsSchema>
