// Experiments: one run of a task over a dataset as it was at one time. Each item's run is an ordinary trace carrying
// `experiment_id` and `dataset_item_id`, so it is stored, priced, scored and evaluated as any trace; an experiment's
// answer gathers them, item by item, and a comparison puts runs side by side.
import { type Static, Type } from '@sinclair/typebox'
import { Nullable, Page, Ref, TimestampInput, UtcTimestamp } from './common.js'
import {
  compareExperimentsExample,
  experimentAggregatesExample,
  experimentDetailExample,
  experimentExample,
  experimentInputExample,
  experimentRunExample,
  listExperimentsExample,
} from './examples.js'
import { TraceStatusSchema } from './trace.js'

/** Experiments one comparison puts side by side. */
export const COMPARE_LIMIT = 3

const Metadata = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Free JSON object: the model, the prompt version, the commit…',
})

export const ExperimentSchema = Type.Object(
  {
    experiment_id: Type.String(),
    project_id: Type.String({ description: 'The dataset’s project: the project of the experiment’s traces.' }),
    dataset_id: Type.String(),
    name: Type.String({ description: 'What was tried (e.g. `gpt-4o prompt v7`); several runs may share a name.' }),
    as_of: UtcTimestamp,
    metadata: Metadata,
    created_at: UtcTimestamp,
  },
  {
    $id: 'ExperimentSchema',
    additionalProperties: false,
    description: 'A run of a task over a dataset, in the version it had at `as_of`.',
    examples: [experimentExample],
  },
)
export type Experiment = Static<typeof ExperimentSchema>

// POST /experiments
export const ExperimentInput = Type.Object(
  {
    dataset_id: Type.String({ minLength: 1, maxLength: 128, description: 'The dataset run over.' }),
    name: Type.String({ minLength: 1, maxLength: 128, pattern: '^\\S(.*\\S)?$', description: 'What is tried.' }),
    as_of: Type.Optional(TimestampInput),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false, examples: [experimentInputExample] },
)
export type ExperimentInput = Static<typeof ExperimentInput>

export const ExperimentParams = Type.Object({ experiment_id: Type.String({ minLength: 1, maxLength: 128 }) })

// GET /experiments
export const ListExperimentsQuery = Type.Object({
  project_id: Type.Optional(Type.String({ description: 'Only this project’s experiments.' })),
  dataset_id: Type.Optional(Type.String({ description: 'Only the runs of this dataset.' })),
  name: Type.Optional(Type.String({ minLength: 1, description: 'Only the runs of this name.' })),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'Experiments returned (1–1000).' }),
  ),
})
export type ListExperimentsQuery = Static<typeof ListExperimentsQuery>

export const ListExperimentsResponse = Page(
  Ref(ExperimentSchema),
  { items: 'Newest first.' },
  { examples: [listExperimentsExample] },
)
export type ListExperimentsResponse = Static<typeof ListExperimentsResponse>

/** Per score name, the mean of a trace's scores of it. */
const ScoreMeans = Type.Record(Type.String(), Type.Number(), {
  description: 'Per score name: the mean of the trace’s scores of that name (a boolean is 1 or 0).',
})

export const ExperimentRunSchema = Type.Object(
  {
    trace_id: Type.String({ description: 'The trace of the run (the newest, when the item was run more than once).' }),
    status: TraceStatusSchema,
    output: Nullable(Type.String({ description: 'The trace’s response.' })),
    error: Nullable(Type.String({ description: 'Why it failed (the trace’s failure reason).' })),
    latency: Type.Number({ description: 'ms' }),
    token_count: Type.Integer(),
    cost: Nullable(Type.Number({ description: 'USD; null: unpriced.' })),
    scores: ScoreMeans,
  },
  {
    $id: 'ExperimentRunSchema',
    additionalProperties: false,
    description: 'One item’s run: its trace, in short.',
    examples: [experimentRunExample],
  },
)
export type ExperimentRun = Static<typeof ExperimentRunSchema>

export const ExperimentAggregatesSchema = Type.Object(
  {
    items: Type.Integer({ description: 'Items of the dataset as of the experiment’s `as_of`.' }),
    completed: Type.Integer({ description: 'Items with a run (a trace).' }),
    failed: Type.Integer({ description: 'Runs whose trace failed.' }),
    missing: Type.Integer({ description: 'Items without a run yet.' }),
    pass_rate: Type.Number({ description: 'Share of the items whose run did not fail (0–1; 0 without items).' }),
    latency_mean: Nullable(Type.Number({ description: 'Mean latency of the runs, ms; null without runs.' })),
    latency_p95: Nullable(Type.Number({ description: 'Nearest-rank p95 latency of the runs, ms.' })),
    total_tokens: Type.Integer(),
    total_cost: Type.Number({ description: 'USD, the priced runs’ sum.' }),
    unpriced: Type.Integer({ description: 'Runs without a cost.' }),
    scores: Type.Record(
      Type.String(),
      Type.Object({
        count: Type.Integer({ description: 'Runs with a score of the name.' }),
        mean: Type.Number({ description: 'Mean over those runs of each run’s mean.' }),
      }),
      { description: 'Per score name.' },
    ),
  },
  {
    $id: 'ExperimentAggregatesSchema',
    additionalProperties: false,
    description: 'An experiment’s figures.',
    examples: [experimentAggregatesExample],
  },
)
export type ExperimentAggregates = Static<typeof ExperimentAggregatesSchema>

export const ExperimentItemSchema = Type.Object(
  {
    dataset_item_id: Type.String(),
    version: Type.Integer({ description: 'The item’s version the experiment ran on.' }),
    input: Type.Unknown(),
    expected_output: Type.Unknown(),
    run: Nullable(Ref(ExperimentRunSchema)),
  },
  { additionalProperties: false },
)
export type ExperimentItem = Static<typeof ExperimentItemSchema>

// GET /experiments/{experiment_id}
export const ExperimentDetailResponse = Type.Object(
  {
    experiment: Ref(ExperimentSchema),
    aggregates: Ref(ExperimentAggregatesSchema),
    pending_evaluations: Type.Integer({
      minimum: 0,
      description: 'Evaluations of the experiment’s traces the server has yet to run (0: every score is in).',
    }),
    items: Type.Array(ExperimentItemSchema, { description: 'The dataset’s items as of `as_of`, in their order.' }),
  },
  { examples: [experimentDetailExample] },
)
export type ExperimentDetailResponse = Static<typeof ExperimentDetailResponse>

// GET /experiments/compare
export const CompareExperimentsQuery = Type.Object({
  ids: Type.String({
    minLength: 1,
    maxLength: 1000,
    description: `2–${COMPARE_LIMIT} experiment ids, comma-separated; the first is the baseline of every difference.`,
  }),
})

/** The figures a comparison takes the difference of: each run's minus the baseline's (null: either has none). */
export const ExperimentDeltaSchema = Type.Object(
  {
    latency: Nullable(Type.Number()),
    token_count: Nullable(Type.Number()),
    cost: Nullable(Type.Number()),
    scores: Type.Record(Type.String(), Type.Number(), { description: 'Per score name both runs have.' }),
  },
  {
    $id: 'ExperimentDeltaSchema',
    additionalProperties: false,
    description: 'This run minus the baseline’s.',
    examples: [{ latency: -120, token_count: 0, cost: 0, scores: { correctness: 0 } }],
  },
)
export type ExperimentDelta = Static<typeof ExperimentDeltaSchema>

export const CompareExperimentsResponse = Type.Object(
  {
    experiments: Type.Array(Ref(ExperimentSchema), { description: 'The columns, in the order asked.' }),
    aggregates: Type.Array(Ref(ExperimentAggregatesSchema), { description: 'Per experiment, in the same order.' }),
    aggregate_deltas: Type.Array(
      Type.Object({
        pass_rate: Type.Number(),
        latency_mean: Nullable(Type.Number()),
        total_tokens: Type.Number(),
        total_cost: Type.Number(),
        scores: Type.Record(Type.String(), Type.Number()),
      }),
      { description: 'Per experiment: its aggregates minus the baseline’s (the baseline’s own are zeros).' },
    ),
    items: Type.Array(
      Type.Object({
        dataset_item_id: Type.String(),
        input: Type.Unknown(),
        expected_output: Type.Unknown(),
        runs: Type.Array(Nullable(Ref(ExperimentRunSchema)), { description: 'Per experiment; null: not run.' }),
        deltas: Type.Array(Nullable(Ref(ExperimentDeltaSchema)), {
          description: 'Per experiment: its run minus the baseline’s; null when either is missing.',
        }),
      }),
      { description: 'Every item of any of the experiments, as rows, in dataset order.' },
    ),
  },
  { examples: [compareExperimentsExample] },
)
export type CompareExperimentsResponse = Static<typeof CompareExperimentsResponse>
