// The SQLite tables. Column types are tied to the TypeBox contract: a Trace row is a Trace with
// created_at held as epoch milliseconds (a type-level check below fails the build if they drift).
import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import type {
  AlertDelivery,
  AlertDestinationType,
  AlertDirection,
  AlertEventKind,
  AlertMetric,
  AlertState,
  ApiKeyKind,
  DatasetItemStatus,
  Environment,
  EvaluatorKind,
  OtlpLogRecord,
  OtlpSpan,
  ScoreDataType,
  ScoreSource,
  Step,
  Trace,
  TraceStatus,
} from '../../../schemas/index.js'
import type { PendingSpan } from '../types.js'

export const projects = sqliteTable('projects', {
  project_id: text('project_id').primaryKey(),
  name: text('name').notNull(),
  description: text('description').notNull(),
  created_at: integer('created_at').notNull(),
})

export const apiKeys = sqliteTable(
  'api_keys',
  {
    key_id: text('key_id').primaryKey(),
    project_id: text('project_id')
      .notNull()
      .references(() => projects.project_id),
    key_hash: text('key_hash').notNull(),
    key_preview: text('key_preview').notNull(),
    environment: text('environment').$type<Environment>().notNull(),
    kind: text('kind').$type<ApiKeyKind>().notNull().default('secret'),
    created_at: integer('created_at').notNull(),
    last_used_at: integer('last_used_at'),
    revoked_at: integer('revoked_at'),
  },
  (t) => [uniqueIndex('api_keys_hash').on(t.key_hash), index('api_keys_project').on(t.project_id, t.created_at)],
)

/** A project's own retention (absent or null: the server's settings apply). */
export const projectRetention = sqliteTable('project_retention', {
  project_id: text('project_id')
    .primaryKey()
    .references(() => projects.project_id),
  retention_days: integer('retention_days'),
  retention_max_traces: integer('retention_max_traces'),
})

/** Alert rules; `state` is kept so that a restart neither fires again nor misses a resolution. */
export const alertRules = sqliteTable('alert_rules', {
  rule_id: text('rule_id').primaryKey(),
  name: text('name').notNull(),
  project_id: text('project_id'),
  metric: text('metric').$type<AlertMetric>().notNull(),
  score_name: text('score_name'),
  direction: text('direction').$type<AlertDirection>().notNull().default('above'),
  window_minutes: integer('window_minutes').notNull(),
  threshold: real('threshold').notNull(),
  destination_type: text('destination_type').$type<AlertDestinationType>().notNull(),
  url: text('url').notNull(),
  secret: text('secret'),
  state: text('state').$type<AlertState>().notNull(),
  last_value: real('last_value'),
  last_evaluated_at: integer('last_evaluated_at'),
  created_at: integer('created_at').notNull(),
})

/** Each firing and resolution of a rule, with how its delivery went. */
export const alertEvents = sqliteTable(
  'alert_events',
  {
    event_id: text('event_id').primaryKey(),
    rule_id: text('rule_id').notNull(),
    rule_name: text('rule_name').notNull(),
    project_id: text('project_id'),
    metric: text('metric').$type<AlertMetric>().notNull(),
    kind: text('kind').$type<AlertEventKind>().notNull(),
    value: real('value').notNull(),
    threshold: real('threshold').notNull(),
    at: integer('at').notNull(),
    delivery: text('delivery').$type<AlertDelivery>().notNull(),
    attempts: integer('attempts').notNull(),
    last_error: text('last_error'),
  },
  (t) => [index('alert_events_at').on(t.at, t.event_id), index('alert_events_rule').on(t.rule_id, t.at)],
)

export const traces = sqliteTable(
  'traces',
  {
    trace_id: text('trace_id').primaryKey(),
    project_id: text('project_id').notNull(),
    environment: text('environment').$type<Environment>().notNull(),
    name: text('name'),
    model: text('model'),
    prompt: text('prompt').notNull(),
    response: text('response'),
    latency: real('latency').notNull(),
    token_count: integer('token_count').notNull(),
    prompt_tokens: integer('prompt_tokens'),
    completion_tokens: integer('completion_tokens'),
    tokens_reported: integer('tokens_reported', { mode: 'boolean' }).notNull().default(true),
    cost: real('cost'),
    status: text('status').$type<TraceStatus>().notNull(),
    failure_reason: text('failure_reason'),
    retry_count: integer('retry_count').notNull(),
    session_id: text('session_id'),
    user_id: text('user_id'),
    experiment_id: text('experiment_id'),
    dataset_item_id: text('dataset_item_id'),
    tags: text('tags', { mode: 'json' }).$type<string[]>().notNull(),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    created_at: integer('created_at').notNull(),
    steps: text('steps', { mode: 'json' }).$type<Step[]>().notNull(),
    /** The costs the client reported (JSON of ReportedCosts, src/costs/pricing.ts), kept so a re-pricing keeps them. */
    reported_cost: text('reported_cost'),
  },
  // One index per filter and sort of GET /traces, /failures and /analytics, each ending in the list order. The two
  // newest-first walks also carry latency and token_count, so a range filter is checked in the index and only the
  // rows of the page are read. The value sorts (latency, token_count, cost) end in trace_id, their tie-break, and are
  // kept per project only: an order over every project merges the projects' walks (src/store/sqlite/traces.ts), so a
  // trace written updates three random places in the value indexes, not six.
  (t) => [
    index('traces_created').on(t.created_at, t.trace_id, t.latency, t.token_count),
    index('traces_project_created').on(t.project_id, t.created_at, t.trace_id, t.latency, t.token_count),
    index('traces_status_created').on(t.status, t.created_at, t.trace_id),
    index('traces_project_status_created').on(t.project_id, t.status, t.created_at, t.trace_id),
    index('traces_model_created').on(t.model, t.created_at, t.trace_id),
    index('traces_environment_created').on(t.environment, t.created_at, t.trace_id),
    index('traces_session_created').on(t.session_id, t.created_at, t.trace_id),
    index('traces_user_created').on(t.user_id, t.created_at, t.trace_id),
    index('traces_project_latency').on(t.project_id, t.latency, t.trace_id),
    index('traces_project_tokens').on(t.project_id, t.token_count, t.trace_id),
    index('traces_project_cost').on(t.project_id, t.cost, t.trace_id),
    index('traces_retried_created').on(t.created_at, t.trace_id).where(sql`retry_count > 0`),
    index('traces_project_retried_created').on(t.project_id, t.created_at, t.trace_id).where(sql`retry_count > 0`),
    // An experiment's runs, read item by item: partial, so that the traces of no experiment cost it nothing.
    index('traces_experiment').on(t.experiment_id, t.dataset_item_id).where(sql`experiment_id is not null`),
  ],
)

// Rollups (see src/store/rollups.ts), written in the same transaction as the traces they count.

/** The exact sums of latency (µs), tokens and cost (nano-dollars), each in two integer columns (ExactSum in rollups.ts). */
const sumColumns = () => ({
  latency_hi: integer('latency_hi').notNull().default(0),
  latency_lo: integer('latency_lo').notNull().default(0),
  tokens_hi: integer('tokens_hi').notNull().default(0),
  tokens_lo: integer('tokens_lo').notNull().default(0),
  cost_hi: integer('cost_hi').notNull().default(0),
  cost_lo: integer('cost_lo').notNull().default(0),
})

export const rollupTotals = sqliteTable(
  'rollup_totals',
  {
    project_id: text('project_id').notNull(),
    environment: text('environment').notNull(),
    model: text('model').notNull(),
    status: text('status').notNull(),
    traces: integer('traces').notNull(),
    retries: integer('retries').notNull(),
    tokens_unreported: integer('tokens_unreported').notNull().default(0),
    /** Traces without a cost. */
    unpriced: integer('unpriced').notNull().default(0),
    ...sumColumns(),
  },
  (t) => [primaryKey({ columns: [t.project_id, t.environment, t.model, t.status] })],
)

export const rollupHourly = sqliteTable(
  'rollup_hourly',
  {
    project_id: text('project_id').notNull(),
    hour: integer('hour').notNull(),
    traces: integer('traces').notNull(),
    ...sumColumns(),
  },
  (t) => [primaryKey({ columns: [t.project_id, t.hour] }), index('rollup_hourly_hour').on(t.hour)],
)

const histogram = (name: string) =>
  sqliteTable(
    name,
    {
      project_id: text('project_id').notNull(),
      bucket: integer('bucket').notNull(),
      traces: integer('traces').notNull(),
    },
    (t) => [primaryKey({ columns: [t.project_id, t.bucket] })],
  )
export const latencyHistogram = histogram('latency_histogram')
export const tokenHistogram = histogram('token_histogram')
/** Priced traces by cost in nano-dollars. */
export const costHistogram = histogram('cost_histogram')

/** The totals of a group of traces: counts, activity span and exact sums (ActivityDelta in rollups.ts). */
const activityColumns = () => ({
  traces: integer('traces').notNull(),
  unpriced: integer('unpriced').notNull(),
  failed: integer('failed').notNull(),
  warnings: integer('warnings').notNull(),
  first_at: integer('first_at').notNull(),
  last_at: integer('last_at').notNull(),
  ...sumColumns(),
})

/** Per session (GET /sessions): newest activity first, overall, per project and per user. */
export const sessionTotals = sqliteTable(
  'session_totals',
  {
    project_id: text('project_id').notNull(),
    session_id: text('session_id').notNull(),
    user_id: text('user_id'),
    user_at: integer('user_at'),
    ...activityColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.project_id, t.session_id] }),
    index('session_totals_last').on(t.last_at, t.session_id),
    index('session_totals_project_last').on(t.project_id, t.last_at, t.session_id),
    // A user's sessions newest first; with project_id, also how many a user has in a project (from the index alone).
    index('session_totals_user_last').on(t.user_id, t.last_at, t.session_id, t.project_id),
    // GET /sessions/{id} without a project: the most recently active session of that id, one index seek.
    index('session_totals_session_last').on(t.session_id, t.last_at, t.project_id),
  ],
)

/** Per user (GET /users): newest activity first, overall and per project. */
export const userTotals = sqliteTable(
  'user_totals',
  {
    project_id: text('project_id').notNull(),
    user_id: text('user_id').notNull(),
    ...activityColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.project_id, t.user_id] }),
    index('user_totals_last').on(t.last_at, t.user_id),
    index('user_totals_project_last').on(t.project_id, t.last_at, t.user_id),
    // GET /users/{id} without a project: the most recently active user of that id, one index seek.
    index('user_totals_user_last').on(t.user_id, t.last_at, t.project_id),
  ],
)

/**
 * Each trace's calls of each agent and tool it calls (src/store/rollups.ts, traceCallRows), written with the trace:
 * what GET /traces?agent= finds traces through, and what a deletion subtracts from call_totals.
 */
export const traceCalls = sqliteTable(
  'trace_calls',
  {
    trace_id: text('trace_id').notNull(),
    project_id: text('project_id').notNull(),
    kind: text('kind').notNull(),
    name: text('name').notNull(),
    calls: integer('calls').notNull(),
    failures: integer('failures').notNull(),
    latency_micros: integer('latency_micros').notNull(),
    timed: integer('timed').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.trace_id, t.kind, t.name] }),
    index('trace_calls_name').on(t.kind, t.name, t.project_id, t.trace_id),
  ],
)

/** Per agent and per tool of a project (/analytics' agent and tool breakdowns, GET /traces?agent= totals). */
export const callTotals = sqliteTable(
  'call_totals',
  {
    project_id: text('project_id').notNull(),
    kind: text('kind').notNull(),
    name: text('name').notNull(),
    /** Traces calling it. */
    traces: integer('traces').notNull(),
    calls: integer('calls').notNull(),
    failures: integer('failures').notNull(),
    /** Σ latency of the calls that report one, µs, exact (ExactSum in rollups.ts). */
    latency_hi: integer('latency_hi').notNull(),
    latency_lo: integer('latency_lo').notNull(),
    /** Calls that report a latency. */
    timed: integer('timed').notNull(),
  },
  (t) => [primaryKey({ columns: [t.project_id, t.kind, t.name] })],
)

/** Operators' prices per model-name pattern (src/costs/pricing.ts), ahead of the price database. */
export const modelPrices = sqliteTable('model_prices', {
  pattern: text('pattern').primaryKey(),
  input_price: real('input_price').notNull(),
  output_price: real('output_price').notNull(),
  cached_input_price: real('cached_input_price'),
  updated_at: integer('updated_at').notNull(),
})

/**
 * Facts about the database itself. `rollups_stale` (set by a migration that changed how rollups are kept) makes the
 * store rebuild every rollup from the traces when it opens (src/store/rollup-rebuild.ts).
 */
export const loupeMeta = sqliteTable('loupe_meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
})

export type TraceRow = Omit<typeof traces.$inferSelect, 'reported_cost'>
export type ProjectRow = typeof projects.$inferSelect
export type ApiKeyRow = typeof apiKeys.$inferSelect

// Never write a shape twice: the row must be exactly the Trace with created_at as a number.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const rowMatchesTrace: Same<TraceRow, Omit<Trace, 'created_at'> & { created_at: number }> = true
void rowMatchesTrace

/**
 * OTLP spans waiting for their trace to be materialized (see src/otlp/service.ts): kept here, not in memory, so a
 * restart loses none. One row per (trace_id, span_id): a re-sent span is the same row.
 */
export const otlpPendingSpans = sqliteTable(
  'otlp_pending_spans',
  {
    trace_id: text('trace_id').notNull(),
    span_id: text('span_id').notNull(),
    project_id: text('project_id').notNull(),
    environment: text('environment').$type<Environment>().notNull(),
    is_root: integer('is_root', { mode: 'boolean' }).notNull(),
    received_at: integer('received_at').notNull(),
    span: text('span', { mode: 'json' }).$type<OtlpSpan | OtlpLogRecord>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.trace_id, t.span_id] })],
)

export type PendingSpanRow = typeof otlpPendingSpans.$inferSelect
const rowMatchesPendingSpan: Same<PendingSpanRow, PendingSpan> = true
void rowMatchesPendingSpan

// Scores (src/store/score-writes.ts): the rows, their rollups, and what they are checked against.

/** Scores of traces, of their steps and of sessions; `user_id` is the scored trace's (users' means), never shown. */
export const scores = sqliteTable(
  'scores',
  {
    score_id: text('score_id').primaryKey(),
    project_id: text('project_id').notNull(),
    trace_id: text('trace_id'),
    step_index: integer('step_index'),
    session_id: text('session_id'),
    user_id: text('user_id'),
    name: text('name').notNull(),
    data_type: text('data_type').$type<ScoreDataType>().notNull(),
    value: real('value').notNull(),
    label: text('label'),
    comment: text('comment'),
    source: text('source').$type<ScoreSource>().notNull(),
    author: text('author'),
    created_at: integer('created_at').notNull(),
    metadata: text('metadata').notNull(),
  },
  (t) => [
    // A trace's scores (read whole and sorted, a trace holding few), and whether one of them of a name lies in a
    // range: a list's score filter probing each trace it walks, and the count's correction for the traces with several
    // scores of the name — each reads only that trace's scores of that name, however many others it has.
    index('scores_trace').on(t.trace_id, t.name, t.value),
    index('scores_created').on(t.created_at, t.score_id),
    index('scores_project_created').on(t.project_id, t.created_at, t.score_id),
    index('scores_session').on(t.session_id, t.project_id),
    index('scores_user').on(t.user_id, t.project_id),
    // GET /traces?score_name=…&min_score=…: the traces one of whose scores of a name lies in a range.
    index('scores_name_value').on(t.name, t.value, t.trace_id),
    index('scores_name_label').on(t.name, t.label, t.trace_id),
  ],
)

/** Per (project, name, data type, label, hour): how many scores, and their values' exact sum (micro-units). */
export const scoreHourly = sqliteTable(
  'score_hourly',
  {
    project_id: text('project_id').notNull(),
    name: text('name').notNull(),
    data_type: text('data_type').notNull(),
    /** '' for a numeric score. */
    label: text('label').notNull(),
    hour: integer('hour').notNull(),
    scores: integer('scores').notNull(),
    value_hi: integer('value_hi').notNull(),
    value_lo: integer('value_lo').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.project_id, t.name, t.data_type, t.label, t.hour] }),
    index('score_hourly_hour').on(t.hour),
  ],
)

/** Per trace and score name: how many scores and their mean (the light list's summary, the order by a score). */
export const traceScores = sqliteTable(
  'trace_scores',
  {
    trace_id: text('trace_id').notNull(),
    name: text('name').notNull(),
    project_id: text('project_id').notNull(),
    scores: integer('scores').notNull(),
    value_hi: integer('value_hi').notNull(),
    value_lo: integer('value_lo').notNull(),
    /** value_hi and value_lo as a mean, kept beside them for the order. */
    mean: real('mean').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.trace_id, t.name] }),
    index('trace_scores_name_mean').on(t.name, t.mean, t.trace_id),
    // The few traces with more than one score of a name: what an exact count of traces by a score takes away from
    // the count of matching scores (read-queries.ts, scoredCountSql).
    index('trace_scores_multi').on(t.name, t.trace_id).where(sql`${t.scores} > 1`),
  ],
)

/**
 * Per (name, value, label, project) of the scores of traces: how many. The exact count of the traces a score filter
 * matches sums the rows of its range (as many as the distinct values in it, where the scores index holds a row per
 * score), less what the few traces with several scores of the name count more than once (read-queries.ts,
 * scoredCountSql).
 */
export const scoreValues = sqliteTable(
  'score_values',
  {
    name: text('name').notNull(),
    value: real('value').notNull(),
    /** '' for a score without a label. */
    label: text('label').notNull(),
    project_id: text('project_id').notNull(),
    scores: integer('scores').notNull(),
  },
  (t) => [primaryKey({ columns: [t.name, t.value, t.label, t.project_id] })],
)

/** What a score name may hold (GET/PUT /score-configs). */
export const scoreConfigs = sqliteTable('score_configs', {
  name: text('name').primaryKey(),
  data_type: text('data_type').$type<ScoreDataType>().notNull(),
  min: real('min'),
  max: real('max'),
  categories: text('categories', { mode: 'json' }).$type<string[]>(),
  description: text('description'),
  created_at: integer('created_at').notNull(),
  updated_at: integer('updated_at').notNull(),
})

/** Annotation queues: a project's traces of a filter, to be scored with some score configs. */
export const annotationQueues = sqliteTable('annotation_queues', {
  queue_id: text('queue_id').primaryKey(),
  name: text('name').notNull(),
  project_id: text('project_id').notNull(),
  description: text('description'),
  filter: text('filter', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  score_names: text('score_names', { mode: 'json' }).$type<string[]>().notNull(),
  created_at: integer('created_at').notNull(),
})

/** A queue's traces someone opened: held for one person until `held_until`, or done. */
export const annotationItems = sqliteTable(
  'annotation_items',
  {
    queue_id: text('queue_id').notNull(),
    trace_id: text('trace_id').notNull(),
    held_by: text('held_by'),
    held_until: integer('held_until'),
    done_by: text('done_by'),
    done_at: integer('done_at'),
  },
  (t) => [primaryKey({ columns: [t.queue_id, t.trace_id] }), index('annotation_items_done').on(t.queue_id, t.done_at)],
)

/** Evaluator rules (GET/POST/PUT/DELETE /evaluators): a check run on traces, each result a score. */
export const evaluators = sqliteTable('evaluators', {
  evaluator_id: text('evaluator_id').primaryKey(),
  name: text('name').notNull(),
  project_id: text('project_id'),
  filter: text('filter', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  sample_rate: real('sample_rate').notNull(),
  score_name: text('score_name').notNull(),
  enabled: integer('enabled', { mode: 'boolean' }).notNull(),
  kind: text('kind').$type<EvaluatorKind>().notNull(),
  config: text('config', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  created_at: integer('created_at').notNull(),
  updated_at: integer('updated_at').notNull(),
})

/**
 * Evaluations waiting to run: one per (rule, trace), written with the trace (live) or by a backfill run. A worker
 * claims a job by moving its `due_at` past its lease; the job is deleted when its verdict (a score or an error) is
 * recorded. Ids are never reused (AUTOINCREMENT), so a worker whose lease ran out can never finish another's job.
 */
export const evaluationJobs = sqliteTable(
  'evaluation_jobs',
  {
    job_id: integer('job_id').primaryKey({ autoIncrement: true }),
    project_id: text('project_id').notNull(),
    evaluator_id: text('evaluator_id').notNull(),
    trace_id: text('trace_id').notNull(),
    run_id: text('run_id'),
    attempts: integer('attempts').notNull().default(0),
    due_at: integer('due_at').notNull(),
    /** The worker that holds it (its lease: due_at); null when none does. */
    claimed_by: text('claimed_by'),
    last_error: text('last_error'),
    created_at: integer('created_at').notNull(),
  },
  (t) => [
    // The next jobs due, in order (the claim).
    index('evaluation_jobs_due').on(t.due_at, t.job_id),
    // One job per rule and trace (a backfill skips a trace already waiting); a rule's jobs (pending counts, deletion,
    // an experiment's evaluations still to come).
    uniqueIndex('evaluation_jobs_rule_trace').on(t.evaluator_id, t.trace_id),
    // A run's jobs (cancel, the end of a run): live jobs, the most, are not in it.
    index('evaluation_jobs_run').on(t.run_id).where(sql`run_id is not null`),
  ],
)

/** Backfill runs (POST /evaluators/{id}/runs): past traces enumerated into jobs, and how far they have got. */
export const evaluatorRuns = sqliteTable(
  'evaluator_runs',
  {
    run_id: text('run_id').primaryKey(),
    evaluator_id: text('evaluator_id').notNull(),
    project_id: text('project_id'),
    since: integer('since'),
    until: integer('until'),
    status: text('status').$type<'running' | 'done' | 'cancelled' | 'failed'>().notNull(),
    total: integer('total').notNull().default(0),
    done: integer('done').notNull().default(0),
    errors: integer('errors').notNull().default(0),
    cost: real('cost').notNull().default(0),
    /** Where the enumeration of past traces stands (a list cursor); null once every trace is enqueued. */
    cursor: text('cursor'),
    enumerated: integer('enumerated', { mode: 'boolean' }).notNull().default(false),
    /** Until when a replica enumerates it; another takes over after. */
    lease_until: integer('lease_until'),
    last_error: text('last_error'),
    created_at: integer('created_at').notNull(),
    finished_at: integer('finished_at'),
  },
  (t) => [index('evaluator_runs_rule').on(t.evaluator_id, t.created_at)],
)

/** What each rule has done: verdicts, errors (and the last one), and the judge's tokens and cost. */
export const evaluatorStats = sqliteTable('evaluator_stats', {
  evaluator_id: text('evaluator_id').primaryKey(),
  evaluated: integer('evaluated').notNull().default(0),
  errors: integer('errors').notNull().default(0),
  last_error: text('last_error'),
  last_error_at: integer('last_error_at'),
  last_evaluated_at: integer('last_evaluated_at'),
  prompt_tokens: integer('prompt_tokens').notNull().default(0),
  completion_tokens: integer('completion_tokens').notNull().default(0),
  cost: real('cost').notNull().default(0),
})
/** Datasets (/datasets): a project's named collections of cases. */
export const datasets = sqliteTable(
  'datasets',
  {
    dataset_id: text('dataset_id').primaryKey(),
    project_id: text('project_id').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull(),
    metadata: text('metadata').notNull(),
    created_at: integer('created_at').notNull(),
    updated_at: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('datasets_project_name').on(t.project_id, t.name)],
)

/**
 * Dataset items, one row per version: a version holds from `valid_from` until the next one's (`valid_to`; null: the
 * current one), so the dataset as it was at a time is the versions holding then. Values are JSON text.
 */
export const datasetItems = sqliteTable(
  'dataset_items',
  {
    item_id: text('item_id').notNull(),
    version: integer('version').notNull(),
    dataset_id: text('dataset_id').notNull(),
    status: text('status').$type<DatasetItemStatus>().notNull(),
    input: text('input').notNull(),
    expected_output: text('expected_output'),
    metadata: text('metadata').notNull(),
    source_trace_id: text('source_trace_id'),
    created_at: integer('created_at').notNull(),
    valid_from: integer('valid_from').notNull(),
    valid_to: integer('valid_to'),
  },
  (t) => [
    primaryKey({ columns: [t.item_id, t.version] }),
    index('dataset_items_dataset').on(t.dataset_id, t.item_id, t.version),
  ],
)

/** Experiments (/experiments): runs of a task over a dataset as of a time; their traces carry experiment_id. */
export const experiments = sqliteTable(
  'experiments',
  {
    experiment_id: text('experiment_id').primaryKey(),
    project_id: text('project_id').notNull(),
    dataset_id: text('dataset_id').notNull(),
    name: text('name').notNull(),
    as_of: integer('as_of').notNull(),
    metadata: text('metadata').notNull(),
    created_at: integer('created_at').notNull(),
  },
  (t) => [
    index('experiments_dataset').on(t.dataset_id, t.created_at),
    index('experiments_project').on(t.project_id, t.created_at),
  ],
)
