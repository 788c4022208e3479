// TraceSchema and everything the /traces routes accept and return.
import { type Static, type TSchema, Type } from '@sinclair/typebox'
import {
  BatchAnswer,
  BOUNDS,
  CostUsd,
  EnvironmentSchema,
  LatencyMs,
  LimitQuery,
  Literals,
  Nullable,
  OffsetQuery,
  Page,
  Ref,
  TimestampInput,
  TimestampQuery,
  TokenCount,
  TraceIdSchema,
  UtcTimestamp,
} from './common.js'
import {
  batchTracesBodyExample,
  batchTracesResponseExample,
  deleteTracesExample,
  exportCsvExample,
  exportNdjsonExample,
  listTracesExample,
  traceExample,
  traceInputExample,
  traceSummaryExample,
} from './examples.js'
import { InlineScoreInputSchema, SCORE_LIMITS, ScoreSchema, ScoreSummarySchema } from './score.js'
import { MAX_STEPS, StepInputSchema, StepSchema } from './step.js'

export const TRACE_STATUSES = ['success', 'warning', 'failed'] as const
export const TraceStatusSchema = Literals(TRACE_STATUSES, {
  description: 'Inferred at ingest from the steps, the failure reason and the retries; never taken from the client.',
})
export type TraceStatus = Static<typeof TraceStatusSchema>

/** Limits of the contract (docs/api.md, Traces and Limits). */
export const LIMITS = {
  textBytes: 256 * 1024,
  tags: 20,
  tagLength: 64,
  metadataBytes: 64 * 1024,
  steps: MAX_STEPS,
  batch: 1000,
} as const

const Text = (description: string) => Type.String({ maxLength: LIMITS.textBytes, description })
const Tags = Type.Array(Type.String({ maxLength: LIMITS.tagLength }), {
  maxItems: LIMITS.tags,
  description: `At most ${LIMITS.tags} tags of at most ${LIMITS.tagLength} characters.`,
})
const Metadata = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Free JSON object, at most 64 KiB serialized.',
})

export const TraceSchema = Type.Object(
  {
    trace_id: TraceIdSchema,
    project_id: Type.String({ description: 'Project the trace belongs to, resolved from the API key.' }),
    environment: EnvironmentSchema,
    name: Nullable(Type.String({ maxLength: 256, description: 'Operation or function name.' })),
    model: Nullable(Type.String({ maxLength: 256, description: 'Model name.' })),
    prompt: Text('Prompt text of the call.'),
    response: Nullable(Text('Completion or output text.')),
    latency: LatencyMs('Duration of the execution in milliseconds.'),
    token_count: TokenCount(BOUNDS.traceTokens, 'Tokens used by the trace.'),
    prompt_tokens: Nullable(TokenCount(BOUNDS.traceTokens, 'Input tokens.')),
    completion_tokens: Nullable(TokenCount(BOUNDS.traceTokens, 'Output tokens.')),
    tokens_reported: Type.Boolean({
      description:
        'Whether any token count was reported: by the client (`token_count`, `prompt_tokens`, ' +
        '`completion_tokens`), by a step, or by a span. When false, `token_count` is 0 because nothing was counted ' +
        '(a stream without usage, say), not because nothing was used.',
    }),
    cost: Nullable(
      CostUsd(
        'What the trace cost: the cost the client reported; else the sum of its priced steps; else the price of its ' +
          'model times its prompt and completion tokens; null when unpriced (never guessed).',
      ),
    ),
    status: TraceStatusSchema,
    failure_reason: Nullable(Type.String({ description: 'Why the trace failed.' })),
    retry_count: Type.Integer({
      minimum: 0,
      maximum: BOUNDS.retryCount,
      description: 'Steps naming a tool minus the distinct tools among them.',
    }),
    session_id: Nullable(Type.String({ maxLength: 256 })),
    user_id: Nullable(Type.String({ maxLength: 256 })),
    experiment_id: Nullable(Type.String({ maxLength: 128, description: 'The experiment this trace is a run of.' })),
    dataset_item_id: Nullable(
      Type.String({ maxLength: 128, description: 'The dataset item this trace ran (in its experiment).' }),
    ),
    tags: Tags,
    metadata: Metadata,
    created_at: UtcTimestamp,
    steps: Type.Array(Ref(StepSchema), { maxItems: LIMITS.steps, description: 'Ordered steps of the execution.' }),
    scores: Type.Optional(
      Type.Array(Ref(ScoreSchema), {
        description: 'The trace’s scores (and its steps’), oldest first: present when the trace is read by its id.',
      }),
    ),
  },
  {
    $id: 'TraceSchema',
    additionalProperties: false,
    description: 'One recorded execution of a language-model call.',
    examples: [traceExample],
  },
)
export type Trace = Static<typeof TraceSchema>

/** The bodies a trace summary leaves out: the largest fields of a trace, read only when one trace is opened. */
export const TRACE_BODY_FIELDS = ['prompt', 'response', 'metadata', 'steps'] as const

export const TraceSummarySchema = Type.Composite(
  [
    Type.Omit(TraceSchema, [...TRACE_BODY_FIELDS, 'scores']),
    Type.Object({
      step_count: Type.Integer({ minimum: 0, maximum: LIMITS.steps, description: 'Number of steps of the trace.' }),
      scores: Type.Optional(ScoreSummarySchema),
    }),
  ],
  {
    $id: 'TraceSummarySchema',
    additionalProperties: false,
    description: 'A trace without its bodies (prompt, response, metadata, steps), and its number of steps.',
    examples: [traceSummaryExample],
  },
)
export type TraceSummary = Static<typeof TraceSummarySchema>

const OptionalNullable = <T extends Parameters<typeof Nullable>[0]>(schema: T) => Type.Optional(Nullable(schema))
const NonNegativeNumber = (description: string) => OptionalNullable(LatencyMs(description))
const NonNegativeInteger = (description: string, max: number = BOUNDS.traceTokens) =>
  OptionalNullable(TokenCount(max, description))

/** A trace as a client sends it to `POST /traces`: loose, normalized before it is stored. */
export const TraceInputSchema = Type.Object(
  {
    trace_id: Type.Optional(TraceIdSchema),
    name: OptionalNullable(Type.String({ maxLength: 256 })),
    model: OptionalNullable(Type.String({ maxLength: 256 })),
    prompt: Text('Required; may be the empty string.'),
    response: OptionalNullable(Text('Completion or output text.')),
    latency: NonNegativeNumber('Milliseconds; when absent, the sum of the step latencies.'),
    latency_ms: NonNegativeNumber('Alias of `latency`.'),
    duration_ms: NonNegativeNumber('Alias of `latency`.'),
    token_count: NonNegativeInteger(
      'When absent: prompt_tokens + completion_tokens, else the sum of the step token counts.',
    ),
    total_tokens: NonNegativeInteger('Alias of `token_count`.'),
    prompt_tokens: NonNegativeInteger('Input tokens.'),
    completion_tokens: NonNegativeInteger('Output tokens.'),
    cost: OptionalNullable(CostUsd('What the call cost, when the client knows it; kept as sent.')),
    status: OptionalNullable(
      Type.String({ maxLength: 64, description: 'Only `failed`/`error` is read: it marks the trace failed.' }),
    ),
    failure_reason: OptionalNullable(Type.String({ maxLength: 8192 })),
    retry_count: NonNegativeInteger('Kept only when the trace has no steps.', BOUNDS.retryCount),
    session_id: OptionalNullable(Type.String({ maxLength: 256 })),
    user_id: OptionalNullable(Type.String({ maxLength: 256 })),
    experiment_id: OptionalNullable(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description: 'The experiment this trace is a run of (`POST /experiments`); with `dataset_item_id`.',
      }),
    ),
    dataset_item_id: OptionalNullable(
      Type.String({ minLength: 1, maxLength: 128, description: 'The dataset item the run was given.' }),
    ),
    tags: Type.Optional(Nullable(Tags)),
    metadata: Type.Optional(Nullable(Metadata)),
    created_at: Type.Optional(Nullable(TimestampInput)),
    steps: Type.Optional(Nullable(Type.Array(Ref(StepInputSchema), { maxItems: LIMITS.steps }))),
    scores: Type.Optional(
      Nullable(
        Type.Array(InlineScoreInputSchema, {
          maxItems: SCORE_LIMITS.inline,
          description:
            'Scores of this trace, checked with it before it is stored (a bad one rejects the trace), then recorded ' +
            'as `POST /scores` records them; never part of the stored trace. A score without `score_id` gets one made ' +
            'of the trace id and its position, so a re-sent trace records its scores once.',
        }),
      ),
    ),
  },
  {
    $id: 'TraceInputSchema',
    examples: [traceInputExample],
    description:
      'A trace as sent by client tooling. `project_id` and `environment` come from the API key; any such field in the body is ignored.',
  },
)
export type TraceInput = Static<typeof TraceInputSchema>

/** The orders of GET /traces. */
export const TRACE_SORTS = ['created_at', 'latency', 'token_count', 'cost'] as const
export type TraceSort = (typeof TRACE_SORTS)[number]
/** `sort=score:<name>`: the traces with a score of this name, by their mean of it. */
export const SCORE_SORT_PREFIX = 'score:'
/** The directions of an order. */
export const SORT_ORDERS = ['desc', 'asc'] as const
export type SortOrder = (typeof SORT_ORDERS)[number]

// GET /traces
export const ListTracesQuery = Type.Object({
  status: Type.Optional(TraceStatusSchema),
  project_id: Type.Optional(Type.String({ description: 'Keep only traces of this project.' })),
  model: Type.Optional(Type.String({ description: 'Keep only traces of this model.' })),
  min_latency: Type.Optional(LatencyMs('Latency ≥ this many ms.')),
  max_latency: Type.Optional(LatencyMs('Latency ≤ this many ms.')),
  min_tokens: Type.Optional(TokenCount(BOUNDS.traceTokens, 'token_count ≥ this.')),
  max_tokens: Type.Optional(TokenCount(BOUNDS.traceTokens, 'token_count ≤ this.')),
  min_cost: Type.Optional(CostUsd('cost ≥ this (unpriced traces never match).')),
  max_cost: Type.Optional(CostUsd('cost ≤ this (unpriced traces never match).')),
  session_id: Type.Optional(Type.String()),
  user_id: Type.Optional(Type.String()),
  experiment_id: Type.Optional(Type.String({ description: 'Keep only the runs of this experiment.' })),
  dataset_item_id: Type.Optional(Type.String({ description: 'Keep only the runs of this dataset item.' })),
  agent: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'Keep only traces with a step invoking the agent of this name (a step of type `agent` so named).',
    }),
  ),
  environment: Type.Optional(EnvironmentSchema),
  since: Type.Optional(TimestampQuery('created_at ≥ since.')),
  until: Type.Optional(TimestampQuery('created_at < until.')),
  score_name: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'Keep only traces with a score of this name that matches `min_score`/`max_score` or `score_label` (any ' +
        'score of it when neither is given): a trace matches when one of its scores of that name does.',
    }),
  ),
  min_score: Type.Optional(
    Type.Number({ description: 'With `score_name`: a score of that name with value ≥ this (a boolean is 1 or 0).' }),
  ),
  max_score: Type.Optional(
    Type.Number({ description: 'With `score_name`: a score of that name with value ≤ this (a boolean is 1 or 0).' }),
  ),
  score_label: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'With `score_name`: a score of that name with this label (categorical; `true`/`false` boolean).',
    }),
  ),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 256,
      description:
        'Full-text search: traces whose name, prompt, response, failure reason or step inputs, outputs and errors ' +
        'contain every word of q (split on spaces), as a substring, whatever the case — in any language.',
    }),
  ),
  sort: Type.Optional(
    Type.Union(
      [
        ...TRACE_SORTS.map((s) => Type.Literal(s)),
        Type.String({ pattern: `^${SCORE_SORT_PREFIX}\\S(.*\\S)?$`, maxLength: 70 }),
      ],
      {
        default: 'created_at',
        description:
          'The order: by this field, ties broken by trace_id. An unpriced trace sorts as the cheapest. ' +
          '`score:<name>`: by the trace’s mean of its scores of that name; only traces with such a score are listed.',
      },
    ),
  ),
  order: Type.Optional(Literals(SORT_ORDERS, { default: 'desc' })),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'The `next_cursor` of the previous page (same filters, sort and order): the page after it, in constant time ' +
        'however deep. Not with a non-zero `offset`.',
    }),
  ),
  limit: Type.Optional(LimitQuery),
  offset: Type.Optional(OffsetQuery),
  fields: Type.Optional(
    Type.Union([Type.Literal('full'), Type.Literal('summary')], {
      default: 'full',
      description:
        '`summary`: each item is a TraceSummary — the trace without prompt, response, metadata and steps, with ' +
        '`step_count` — a page of 50 is a few KB. `full` (default): whole traces.',
    }),
  ),
})
export type ListTracesQuery = Static<typeof ListTracesQuery>

/** A page of GET /traces, of whole traces or of summaries. */
const TracePage = <T extends TSchema>(item: T, description: string) =>
  Page(
    item,
    {
      total: 'Number of traces matching the filters (not just this page).',
      items: 'In the order asked for; by default newest first (created_at desc, trace_id desc).',
    },
    { description },
    {
      next_cursor: Nullable(
        Type.String({ description: 'Pass as `cursor` for the next page; null when this page is the last.' }),
      ),
    },
  )

export const ListTracesResponse = TracePage(Ref(TraceSchema), 'Whole traces.')
export type ListTracesResponse = Static<typeof ListTracesResponse>

export const ListTraceSummariesResponse = TracePage(Ref(TraceSummarySchema), 'Trace summaries (`fields=summary`).')

/** GET /traces answers either list, as `fields` asks (the examples sit here: OpenAPI 3.0 takes them at the top). */
export const ListTracesOrSummariesResponse = Type.Union([ListTracesResponse, ListTraceSummariesResponse], {
  description: 'Whole traces (`fields=full`, the default) or trace summaries (`fields=summary`).',
  examples: [listTracesExample],
})
export type ListTraceSummariesResponse = Static<typeof ListTraceSummariesResponse>

/** The filters of GET /traces alone (no paging, order or fields): what export and delete-by-filter take. */
export const TraceFilterQuery = Type.Omit(ListTracesQuery, ['limit', 'offset', 'fields', 'sort', 'order', 'cursor'])
export type TraceFilterQuery = Static<typeof TraceFilterQuery>

// GET /traces/export
export const EXPORT_FORMATS = ['ndjson', 'csv'] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

/**
 * The columns of a CSV export, in order: every field of a trace but its steps and scores, how many steps it has, then
 * its scores in short (the light list's summary, as JSON).
 */
export const CSV_COLUMNS = [
  ...Object.keys(TraceSchema.properties).filter((k) => k !== 'steps' && k !== 'scores'),
  'step_count',
  'scores',
] as readonly string[]

export const ExportTracesQuery = Type.Composite([
  TraceFilterQuery,
  Type.Object({
    format: Type.Optional(
      Type.Union(
        EXPORT_FORMATS.map((f) => Type.Literal(f)),
        {
          default: 'ndjson',
          description:
            '`ndjson`: one trace a line, exactly as `GET /traces/{trace_id}` answers it (with its `scores`). `csv` ' +
            '(RFC 4180): a header, then one row per trace with its flat fields (tags and metadata as JSON, no steps ' +
            'but `step_count`, and `scores` as the JSON of its per-name summary, `{name: {count, mean}}`).',
        },
      ),
    ),
  }),
])
export type ExportTracesQuery = Static<typeof ExportTracesQuery>

/** The media type of each export format. */
export const EXPORT_MEDIA_TYPES: Record<ExportFormat, string> = {
  ndjson: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
}

export const ExportTracesResponse = {
  description: 'Every matching trace, newest first, streamed.',
  content: {
    [EXPORT_MEDIA_TYPES.ndjson]: {
      schema: Type.String({ description: 'One Trace (JSON) a line.' }),
      example: exportNdjsonExample,
    },
    [EXPORT_MEDIA_TYPES.csv]: {
      schema: Type.String({ description: `Columns: ${CSV_COLUMNS.join(', ')}.` }),
      example: exportCsvExample,
    },
  },
}

// DELETE /traces
export const DeleteTracesQuery = Type.Composite([
  TraceFilterQuery,
  Type.Object({
    all: Type.Optional(
      Type.Boolean({
        description: 'Must be true to delete with no filter at all (every trace the credential can reach).',
      }),
    ),
  }),
])
export type DeleteTracesQuery = Static<typeof DeleteTracesQuery>

export const DeleteTracesResponse = Type.Object(
  { deleted: Type.Integer({ minimum: 0, description: 'Traces deleted.' }) },
  { examples: [deleteTracesExample] },
)
export type DeleteTracesResponse = Static<typeof DeleteTracesResponse>

// GET /traces/{trace_id}
export const TraceParams = Type.Object({ trace_id: Type.String() })

// POST /traces/batch
export const BatchTracesBody = Type.Object(
  {
    traces: Type.Array(Ref(TraceInputSchema), {
      minItems: 1,
      maxItems: LIMITS.batch,
      description: 'Each trace is validated on its own: valid ones are stored even when others are rejected.',
    }),
  },
  { examples: [batchTracesBodyExample] },
)
export type BatchTracesBody = Static<typeof BatchTracesBody>

export const BatchTracesResponse = BatchAnswer(
  'traces',
  'Traces',
  Type.Object({ trace_id: Type.String(), status: TraceStatusSchema }),
  { examples: [batchTracesResponseExample] },
  'The traces not stored, and the inline scores of stored traces found unrecordable once their trace was ' +
    '(a `score_id` taken by a different score): those traces are in `items` too.',
)
export type BatchTracesResponse = Static<typeof BatchTracesResponse>
