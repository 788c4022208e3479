// The PostgreSQL tables. Same columns as SQLite's (src/store/sqlite/tables.ts), with PostgreSQL's types: epoch ms as
// bigint, latency as double precision, JSON as jsonb. Every table that grows with traffic has project_id first in its
// primary key, so it can later be distributed by project (Citus: `create_distributed_table(…, 'project_id')`);
// projects and api_keys are small and would be reference tables.
import { sql } from 'drizzle-orm'
import {
  bigint,
  boolean,
  customType,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core'
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

/**
 * Identifiers compare and sort byte by byte, as SQLite compares text, whatever the database's collation: list orders
 * and their tie-breaks (trace_id desc, project_id asc) come out identical on both stores, and the indexes serve them.
 */
const id = customType<{ data: string }>({ dataType: () => 'text collate "C"' })

/** A transaction id (64 bits, never wrapping around); read back as its decimal text. */
const xid8 = customType<{ data: string }>({ dataType: () => 'xid8' })

/** Epoch milliseconds: fits a double exactly, so it is read back as a number. */
const epochMs = (name: string) => bigint(name, { mode: 'number' })

export const projects = pgTable('projects', {
  project_id: id('project_id').primaryKey(),
  name: text('name').notNull(),
  description: text('description').notNull(),
  created_at: epochMs('created_at').notNull(),
})

export const apiKeys = pgTable(
  'api_keys',
  {
    key_id: id('key_id').primaryKey(),
    project_id: id('project_id')
      .notNull()
      .references(() => projects.project_id),
    key_hash: text('key_hash').notNull(),
    key_preview: text('key_preview').notNull(),
    environment: text('environment').$type<Environment>().notNull(),
    kind: text('kind').$type<ApiKeyKind>().notNull().default('secret'),
    created_at: epochMs('created_at').notNull(),
    last_used_at: epochMs('last_used_at'),
    revoked_at: epochMs('revoked_at'),
  },
  (t) => [uniqueIndex('api_keys_hash').on(t.key_hash), index('api_keys_project').on(t.project_id, t.created_at)],
)

/** A project's own retention (absent or null: the server's settings apply). */
export const projectRetention = pgTable('project_retention', {
  project_id: id('project_id')
    .primaryKey()
    .references(() => projects.project_id),
  retention_days: integer('retention_days'),
  retention_max_traces: bigint('retention_max_traces', { mode: 'number' }),
})

/** Alert rules; `state` is kept so that a restart neither fires again nor misses a resolution. */
export const alertRules = pgTable('alert_rules', {
  rule_id: id('rule_id').primaryKey(),
  name: text('name').notNull(),
  project_id: id('project_id'),
  metric: text('metric').$type<AlertMetric>().notNull(),
  score_name: text('score_name'),
  direction: text('direction').$type<AlertDirection>().notNull().default('above'),
  window_minutes: integer('window_minutes').notNull(),
  threshold: doublePrecision('threshold').notNull(),
  destination_type: text('destination_type').$type<AlertDestinationType>().notNull(),
  url: text('url').notNull(),
  secret: text('secret'),
  state: text('state').$type<AlertState>().notNull(),
  last_value: doublePrecision('last_value'),
  last_evaluated_at: epochMs('last_evaluated_at'),
  created_at: epochMs('created_at').notNull(),
})

/** Each firing and resolution of a rule, with how its delivery went. */
export const alertEvents = pgTable(
  'alert_events',
  {
    event_id: id('event_id').primaryKey(),
    rule_id: id('rule_id').notNull(),
    rule_name: text('rule_name').notNull(),
    project_id: id('project_id'),
    metric: text('metric').$type<AlertMetric>().notNull(),
    kind: text('kind').$type<AlertEventKind>().notNull(),
    value: doublePrecision('value').notNull(),
    threshold: doublePrecision('threshold').notNull(),
    at: epochMs('at').notNull(),
    delivery: text('delivery').$type<AlertDelivery>().notNull(),
    attempts: integer('attempts').notNull(),
    last_error: text('last_error'),
  },
  (t) => [index('alert_events_at').on(t.at, t.event_id), index('alert_events_rule').on(t.rule_id, t.at)],
)

export const traces = pgTable(
  'traces',
  {
    project_id: id('project_id').notNull(),
    trace_id: id('trace_id').notNull(),
    environment: text('environment').$type<Environment>().notNull(),
    name: text('name'),
    model: text('model'),
    prompt: text('prompt').notNull(),
    response: text('response'),
    latency: doublePrecision('latency').notNull(),
    // 64-bit: a trace may count up to 10^11 tokens (the steps allowed times what one step may use).
    token_count: bigint('token_count', { mode: 'number' }).notNull(),
    prompt_tokens: bigint('prompt_tokens', { mode: 'number' }),
    completion_tokens: bigint('completion_tokens', { mode: 'number' }),
    tokens_reported: boolean('tokens_reported').notNull().default(true),
    cost: doublePrecision('cost'),
    status: text('status').$type<TraceStatus>().notNull(),
    failure_reason: text('failure_reason'),
    retry_count: integer('retry_count').notNull(),
    session_id: text('session_id'),
    user_id: text('user_id'),
    experiment_id: text('experiment_id'),
    dataset_item_id: text('dataset_item_id'),
    tags: jsonb('tags').$type<string[]>().notNull(),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull(),
    created_at: epochMs('created_at').notNull(),
    steps: jsonb('steps').$type<Step[]>().notNull(),
    /** Order of storing (not part of the contract): what a replica catches up by after missing notifications. */
    seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity().notNull(),
    /** The costs the client reported (JSON of ReportedCosts, src/costs/pricing.ts), kept so a re-pricing keeps them. */
    reported_cost: text('reported_cost'),
    /**
     * The lower-cased searchable text (schemas/search.ts), indexed by pg_trgm for `q`: the GIN index
     * `traces_search` is written by hand in its migration (its operator class lives in the extension).
     */
    search_text: text('search_text'),
    /**
     * The transaction that stored the trace (null: stored before this column existed). Every trace of a transaction
     * older than a snapshot's xmin is in that snapshot for good, which seq cannot tell (a transaction holding a lower
     * seq may commit later): what kept search totals count up to (src/store/search-counts.ts). Its default is set
     * in the migration, so that adding the column did not rewrite the table.
     */
    xid: xid8('xid').default(sql`pg_current_xact_id()`),
  },
  // One index per filter and sort of GET /traces, /failures and /analytics, each ending in the list order. The two
  // newest-first walks also carry latency and token_count (as on SQLite), so a range filter is checked in the index.
  // The value sorts end in trace_id, their tie-break; an unpriced trace sorts as the cheapest (as SQLite's null does).
  (t) => [
    primaryKey({ columns: [t.project_id, t.trace_id] }),
    index('traces_created').on(t.created_at, t.trace_id, t.latency, t.token_count),
    index('traces_project_created').on(t.project_id, t.created_at, t.trace_id, t.latency, t.token_count),
    index('traces_status_created').on(t.status, t.created_at, t.trace_id),
    index('traces_project_status_created').on(t.project_id, t.status, t.created_at, t.trace_id),
    index('traces_model_created').on(t.model, t.created_at, t.trace_id),
    index('traces_environment_created').on(t.environment, t.created_at, t.trace_id),
    index('traces_session_created').on(t.session_id, t.created_at, t.trace_id),
    index('traces_user_created').on(t.user_id, t.created_at, t.trace_id),
    index('traces_latency').on(t.latency, t.trace_id),
    index('traces_project_latency').on(t.project_id, t.latency, t.trace_id),
    index('traces_tokens').on(t.token_count, t.trace_id),
    index('traces_project_tokens').on(t.project_id, t.token_count, t.trace_id),
    index('traces_cost').on(t.cost.asc().nullsFirst(), t.trace_id),
    index('traces_project_cost').on(t.project_id, t.cost.asc().nullsFirst(), t.trace_id),
    index('traces_retried_created').on(t.created_at, t.trace_id).where(sql`retry_count > 0`),
    index('traces_project_retried_created').on(t.project_id, t.created_at, t.trace_id).where(sql`retry_count > 0`),
    index('traces_seq').on(t.seq),
    index('traces_xid').on(t.xid),
    // An experiment's runs, read item by item: partial, so that the traces of no experiment cost it nothing.
    index('traces_experiment').on(t.experiment_id, t.dataset_item_id).where(sql`experiment_id is not null`),
  ],
)

/**
 * Which project holds a trace_id. trace_id is unique across projects (the 409 rule, GET /traces/{id}), but a unique
 * index on traces must include the distribution column once traces are distributed by project; this small table,
 * written in the same transaction, carries the rule instead (distributed by trace_id, or kept as is).
 */
export const traceIds = pgTable('trace_ids', {
  trace_id: id('trace_id').primaryKey(),
  project_id: id('project_id').notNull(),
})

// Rollups (see src/store/rollups.ts), written in the same transaction as the traces they count.

/** The exact sums of latency (µs), tokens and cost (nano-dollars), each in two integer columns (ExactSum in rollups.ts). */
const sumColumns = () => ({
  latency_hi: bigint('latency_hi', { mode: 'number' }).notNull().default(0),
  latency_lo: bigint('latency_lo', { mode: 'number' }).notNull().default(0),
  tokens_hi: bigint('tokens_hi', { mode: 'number' }).notNull().default(0),
  tokens_lo: bigint('tokens_lo', { mode: 'number' }).notNull().default(0),
  cost_hi: bigint('cost_hi', { mode: 'number' }).notNull().default(0),
  cost_lo: bigint('cost_lo', { mode: 'number' }).notNull().default(0),
})

export const rollupTotals = pgTable(
  'rollup_totals',
  {
    project_id: id('project_id').notNull(),
    environment: text('environment').notNull(),
    model: text('model').notNull(),
    status: text('status').notNull(),
    traces: bigint('traces', { mode: 'number' }).notNull(),
    retries: bigint('retries', { mode: 'number' }).notNull(),
    tokens_unreported: bigint('tokens_unreported', { mode: 'number' }).notNull().default(0),
    /** Traces without a cost. */
    unpriced: bigint('unpriced', { mode: 'number' }).notNull().default(0),
    ...sumColumns(),
  },
  (t) => [primaryKey({ columns: [t.project_id, t.environment, t.model, t.status] })],
)

export const rollupHourly = pgTable(
  'rollup_hourly',
  {
    project_id: id('project_id').notNull(),
    hour: epochMs('hour').notNull(),
    traces: bigint('traces', { mode: 'number' }).notNull(),
    ...sumColumns(),
  },
  (t) => [primaryKey({ columns: [t.project_id, t.hour] }), index('rollup_hourly_hour').on(t.hour)],
)

const histogram = (name: string) =>
  pgTable(
    name,
    {
      project_id: id('project_id').notNull(),
      bucket: integer('bucket').notNull(),
      traces: bigint('traces', { mode: 'number' }).notNull(),
    },
    (t) => [primaryKey({ columns: [t.project_id, t.bucket] })],
  )
export const latencyHistogram = histogram('latency_histogram')
export const tokenHistogram = histogram('token_histogram')
/** Priced traces by cost in nano-dollars. */
export const costHistogram = histogram('cost_histogram')

/** The totals of a group of traces: counts, activity span and exact sums (ActivityDelta in rollups.ts). */
const activityColumns = () => ({
  traces: bigint('traces', { mode: 'number' }).notNull(),
  unpriced: bigint('unpriced', { mode: 'number' }).notNull(),
  failed: bigint('failed', { mode: 'number' }).notNull(),
  warnings: bigint('warnings', { mode: 'number' }).notNull(),
  first_at: epochMs('first_at').notNull(),
  last_at: epochMs('last_at').notNull(),
  ...sumColumns(),
})

/** Per session (GET /sessions): newest activity first, overall, per project and per user. */
export const sessionTotals = pgTable(
  'session_totals',
  {
    project_id: id('project_id').notNull(),
    session_id: id('session_id').notNull(),
    user_id: id('user_id'),
    user_at: epochMs('user_at'),
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
export const userTotals = pgTable(
  'user_totals',
  {
    project_id: id('project_id').notNull(),
    user_id: id('user_id').notNull(),
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
export const traceCalls = pgTable(
  'trace_calls',
  {
    trace_id: id('trace_id').notNull(),
    project_id: id('project_id').notNull(),
    kind: text('kind').notNull(),
    name: id('name').notNull(),
    calls: integer('calls').notNull(),
    failures: integer('failures').notNull(),
    latency_micros: bigint('latency_micros', { mode: 'number' }).notNull(),
    timed: integer('timed').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.trace_id, t.kind, t.name] }),
    index('trace_calls_name').on(t.kind, t.name, t.project_id, t.trace_id),
  ],
)

/** Per agent and per tool of a project (/analytics' agent and tool breakdowns, GET /traces?agent= totals). */
export const callTotals = pgTable(
  'call_totals',
  {
    project_id: id('project_id').notNull(),
    kind: text('kind').notNull(),
    name: id('name').notNull(),
    /** Traces calling it. */
    traces: bigint('traces', { mode: 'number' }).notNull(),
    calls: bigint('calls', { mode: 'number' }).notNull(),
    failures: bigint('failures', { mode: 'number' }).notNull(),
    /** Σ latency of the calls that report one, µs, exact (ExactSum in rollups.ts). */
    latency_hi: bigint('latency_hi', { mode: 'number' }).notNull(),
    latency_lo: bigint('latency_lo', { mode: 'number' }).notNull(),
    /** Calls that report a latency. */
    timed: bigint('timed', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.project_id, t.kind, t.name] })],
)

/**
 * How many sessions and users each project has, kept with their rollup rows (a row created counts one, a row deleted
 * takes one away): the totals of GET /sessions and GET /users without counting every row of those rollups.
 */
export const activityCounts = pgTable('activity_counts', {
  project_id: id('project_id').primaryKey(),
  sessions: bigint('sessions', { mode: 'number' }).notNull(),
  users: bigint('users', { mode: 'number' }).notNull(),
})

/** Operators' prices per model-name pattern (src/costs/pricing.ts), ahead of the price database. */
export const modelPrices = pgTable('model_prices', {
  pattern: id('pattern').primaryKey(),
  input_price: doublePrecision('input_price').notNull(),
  output_price: doublePrecision('output_price').notNull(),
  cached_input_price: doublePrecision('cached_input_price'),
  updated_at: epochMs('updated_at').notNull(),
})

/**
 * Facts about the database itself. `rollups_stale` (set by a migration that changed how rollups are kept) makes the
 * store rebuild every rollup from the traces when it opens (src/store/rollup-rebuild.ts).
 */
export const loupeMeta = pgTable('loupe_meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
})

export type TraceRow = Omit<typeof traces.$inferSelect, 'seq' | 'reported_cost' | 'search_text' | 'xid'>
export type ProjectRow = typeof projects.$inferSelect
export type ApiKeyRow = typeof apiKeys.$inferSelect

// Never write a shape twice: the row must be exactly the Trace with created_at as a number.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const rowMatchesTrace: Same<TraceRow, Omit<Trace, 'created_at'> & { created_at: number }> = true
void rowMatchesTrace

/**
 * OTLP spans waiting for their trace (src/otlp/service.ts). `seq` keeps the order they arrived in; project_id leads
 * the primary key like every table that grows with traffic.
 */
export const otlpPendingSpans = pgTable(
  'otlp_pending_spans',
  {
    project_id: id('project_id').notNull(),
    trace_id: id('trace_id').notNull(),
    span_id: id('span_id').notNull(),
    environment: text('environment').$type<Environment>().notNull(),
    is_root: boolean('is_root').notNull(),
    received_at: epochMs('received_at').notNull(),
    seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity().notNull(),
    span: jsonb('span').$type<OtlpSpan | OtlpLogRecord>().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.project_id, t.trace_id, t.span_id] }),
    index('otlp_pending_spans_trace').on(t.trace_id, t.seq),
  ],
)

// Scores (src/store/score-writes.ts): the rows, their rollups, and what they are checked against.

/** Scores of traces, of their steps and of sessions; `user_id` is the scored trace's (users' means), never shown. */
export const scores = pgTable(
  'scores',
  {
    score_id: id('score_id').primaryKey(),
    project_id: id('project_id').notNull(),
    trace_id: id('trace_id'),
    step_index: integer('step_index'),
    session_id: id('session_id'),
    user_id: id('user_id'),
    name: id('name').notNull(),
    data_type: text('data_type').$type<ScoreDataType>().notNull(),
    value: doublePrecision('value').notNull(),
    label: id('label'),
    comment: text('comment'),
    source: text('source').$type<ScoreSource>().notNull(),
    author: text('author'),
    created_at: epochMs('created_at').notNull(),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull(),
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
export const scoreHourly = pgTable(
  'score_hourly',
  {
    project_id: id('project_id').notNull(),
    name: id('name').notNull(),
    data_type: text('data_type').notNull(),
    /** '' for a numeric score. */
    label: id('label').notNull(),
    hour: epochMs('hour').notNull(),
    scores: bigint('scores', { mode: 'number' }).notNull(),
    value_hi: bigint('value_hi', { mode: 'number' }).notNull(),
    value_lo: bigint('value_lo', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.project_id, t.name, t.data_type, t.label, t.hour] }),
    index('score_hourly_hour').on(t.hour),
  ],
)

/** Per trace and score name: how many scores and their mean (the light list's summary, the order by a score). */
export const traceScores = pgTable(
  'trace_scores',
  {
    trace_id: id('trace_id').notNull(),
    name: id('name').notNull(),
    project_id: id('project_id').notNull(),
    scores: bigint('scores', { mode: 'number' }).notNull(),
    value_hi: bigint('value_hi', { mode: 'number' }).notNull(),
    value_lo: bigint('value_lo', { mode: 'number' }).notNull(),
    /** value_hi and value_lo as a mean, kept beside them for the order. */
    mean: doublePrecision('mean').notNull(),
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
export const scoreValues = pgTable(
  'score_values',
  {
    name: id('name').notNull(),
    value: doublePrecision('value').notNull(),
    /** '' for a score without a label. */
    label: id('label').notNull(),
    project_id: id('project_id').notNull(),
    scores: bigint('scores', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.name, t.value, t.label, t.project_id] })],
)

/** What a score name may hold (GET/PUT /score-configs). */
export const scoreConfigs = pgTable('score_configs', {
  name: id('name').primaryKey(),
  data_type: text('data_type').$type<ScoreDataType>().notNull(),
  min: doublePrecision('min'),
  max: doublePrecision('max'),
  categories: jsonb('categories').$type<string[]>(),
  description: text('description'),
  created_at: epochMs('created_at').notNull(),
  updated_at: epochMs('updated_at').notNull(),
})

/** Annotation queues: a project's traces of a filter, to be scored with some score configs. */
export const annotationQueues = pgTable('annotation_queues', {
  queue_id: id('queue_id').primaryKey(),
  name: text('name').notNull(),
  project_id: id('project_id').notNull(),
  description: text('description'),
  filter: jsonb('filter').$type<Record<string, unknown>>().notNull(),
  score_names: jsonb('score_names').$type<string[]>().notNull(),
  created_at: epochMs('created_at').notNull(),
})

/** A queue's traces someone opened: held for one person until `held_until`, or done. */
export const annotationItems = pgTable(
  'annotation_items',
  {
    queue_id: id('queue_id').notNull(),
    trace_id: id('trace_id').notNull(),
    held_by: text('held_by'),
    held_until: epochMs('held_until'),
    done_by: text('done_by'),
    done_at: epochMs('done_at'),
  },
  (t) => [primaryKey({ columns: [t.queue_id, t.trace_id] }), index('annotation_items_done').on(t.queue_id, t.done_at)],
)

/** Evaluator rules (GET/POST/PUT/DELETE /evaluators): a check run on traces, each result a score. */
export const evaluators = pgTable('evaluators', {
  evaluator_id: id('evaluator_id').primaryKey(),
  name: text('name').notNull(),
  project_id: id('project_id'),
  filter: jsonb('filter').$type<Record<string, unknown>>().notNull(),
  sample_rate: doublePrecision('sample_rate').notNull(),
  score_name: id('score_name').notNull(),
  enabled: boolean('enabled').notNull(),
  kind: text('kind').$type<EvaluatorKind>().notNull(),
  config: jsonb('config').$type<Record<string, unknown>>().notNull(),
  created_at: epochMs('created_at').notNull(),
  updated_at: epochMs('updated_at').notNull(),
})

/**
 * Evaluations waiting to run: one per (rule, trace), written with the trace (live) or by a backfill run. A worker
 * claims jobs with `for update skip locked`, moving their `due_at` past its lease, so replicas never share one; the
 * job is deleted when its verdict (a score or an error) is recorded.
 */
export const evaluationJobs = pgTable(
  'evaluation_jobs',
  {
    project_id: id('project_id').notNull(),
    job_id: bigint('job_id', { mode: 'number' }).generatedAlwaysAsIdentity().notNull(),
    evaluator_id: id('evaluator_id').notNull(),
    trace_id: id('trace_id').notNull(),
    run_id: id('run_id'),
    attempts: integer('attempts').notNull().default(0),
    due_at: epochMs('due_at').notNull(),
    /** The worker that holds it (its lease: due_at); null when none does. */
    claimed_by: text('claimed_by'),
    last_error: text('last_error'),
    created_at: epochMs('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.project_id, t.job_id] }),
    index('evaluation_jobs_due').on(t.due_at, t.job_id),
    uniqueIndex('evaluation_jobs_rule_trace').on(t.evaluator_id, t.trace_id),
    // A run's jobs (cancel, the end of a run): live jobs, the most, are not in it.
    index('evaluation_jobs_run').on(t.run_id).where(sql`run_id is not null`),
  ],
)

/** Backfill runs (POST /evaluators/{id}/runs): past traces enumerated into jobs, and how far they have got. */
export const evaluatorRuns = pgTable(
  'evaluator_runs',
  {
    run_id: id('run_id').primaryKey(),
    evaluator_id: id('evaluator_id').notNull(),
    project_id: id('project_id'),
    since: epochMs('since'),
    until: epochMs('until'),
    status: text('status').$type<'running' | 'done' | 'cancelled' | 'failed'>().notNull(),
    total: integer('total').notNull().default(0),
    done: integer('done').notNull().default(0),
    errors: integer('errors').notNull().default(0),
    cost: doublePrecision('cost').notNull().default(0),
    cursor: text('cursor'),
    enumerated: boolean('enumerated').notNull().default(false),
    lease_until: epochMs('lease_until'),
    last_error: text('last_error'),
    created_at: epochMs('created_at').notNull(),
    finished_at: epochMs('finished_at'),
  },
  (t) => [index('evaluator_runs_rule').on(t.evaluator_id, t.created_at)],
)

/** What each rule has done: verdicts, errors (and the last one), and the judge's tokens and cost. */
export const evaluatorStats = pgTable('evaluator_stats', {
  evaluator_id: id('evaluator_id').primaryKey(),
  evaluated: bigint('evaluated', { mode: 'number' }).notNull().default(0),
  errors: bigint('errors', { mode: 'number' }).notNull().default(0),
  last_error: text('last_error'),
  last_error_at: epochMs('last_error_at'),
  last_evaluated_at: epochMs('last_evaluated_at'),
  prompt_tokens: bigint('prompt_tokens', { mode: 'number' }).notNull().default(0),
  completion_tokens: bigint('completion_tokens', { mode: 'number' }).notNull().default(0),
  cost: doublePrecision('cost').notNull().default(0),
})
/** Datasets (/datasets): a project's named collections of cases. */
export const datasets = pgTable(
  'datasets',
  {
    dataset_id: id('dataset_id').primaryKey(),
    project_id: id('project_id').notNull(),
    name: id('name').notNull(),
    description: text('description').notNull(),
    metadata: jsonb('metadata').notNull(),
    created_at: epochMs('created_at').notNull(),
    updated_at: epochMs('updated_at').notNull(),
  },
  (t) => [uniqueIndex('datasets_project_name').on(t.project_id, t.name)],
)

/**
 * Dataset items, one row per version: a version holds from `valid_from` until the next one's (`valid_to`; null: the
 * current one), so the dataset as it was at a time is the versions holding then.
 */
export const datasetItems = pgTable(
  'dataset_items',
  {
    item_id: id('item_id').notNull(),
    version: integer('version').notNull(),
    dataset_id: id('dataset_id').notNull(),
    status: text('status').$type<DatasetItemStatus>().notNull(),
    input: jsonb('input').notNull(),
    expected_output: jsonb('expected_output'),
    metadata: jsonb('metadata').notNull(),
    source_trace_id: id('source_trace_id'),
    created_at: epochMs('created_at').notNull(),
    valid_from: epochMs('valid_from').notNull(),
    valid_to: epochMs('valid_to'),
  },
  (t) => [
    primaryKey({ columns: [t.item_id, t.version] }),
    index('dataset_items_dataset').on(t.dataset_id, t.item_id, t.version),
  ],
)

/** Experiments (/experiments): runs of a task over a dataset as of a time; their traces carry experiment_id. */
export const experiments = pgTable(
  'experiments',
  {
    experiment_id: id('experiment_id').primaryKey(),
    project_id: id('project_id').notNull(),
    dataset_id: id('dataset_id').notNull(),
    name: text('name').notNull(),
    as_of: epochMs('as_of').notNull(),
    metadata: jsonb('metadata').notNull(),
    created_at: epochMs('created_at').notNull(),
  },
  (t) => [
    index('experiments_dataset').on(t.dataset_id, t.created_at),
    index('experiments_project').on(t.project_id, t.created_at),
  ],
)
