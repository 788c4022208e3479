// The one storage interface. Routes and services speak only this; each database has an implementation.
import type {
  AlertDelivery,
  AlertDestinationType,
  AlertDirection,
  AlertEventKind,
  AlertMetric,
  AlertState,
  ApiKey,
  ApiKeyCreated,
  ApiKeyKind,
  DatasetItemStatus,
  DeletedTrace,
  Environment,
  Evaluator,
  EvaluatorRunStatus,
  FailuresResponse,
  ListSessionsResponse,
  ListTracesQuery,
  ListUsersResponse,
  OtlpLogRecord,
  OtlpSpan,
  Project,
  RetentionSettings,
  Score,
  ScoreAnalytics,
  ScoreConfig,
  ScoreSource,
  ScoreSummary,
  SessionDetailResponse,
  SortOrder,
  Trace,
  TraceAnalytics,
  TraceSort,
  TraceSummary,
  UserDetailResponse,
} from '../../schemas/index.js'
import type { PriceRule, ReportedCosts } from '../costs/pricing.js'
import type { KeyContext } from '../lib/credentials.js'
import type { PricedTrace } from './reported-cost.js'

/** An operator's price for the model names matching a pattern, as stored (updated_at in epoch ms). */
export interface PriceRuleRecord extends PriceRule {
  updated_at: number
}

/** Works out a stored trace's costs again (src/costs/pricing.ts), from what its client reported and today's prices. */
export type Repricer = (trace: Trace, reported: ReportedCosts | null) => Trace

/** What a re-pricing did: traces read, and traces whose cost (or a step's) changed. */
export interface RepriceOutcome {
  scanned: number
  changed: number
}

/**
 * Filters of GET /traces (its query without the page, the order and the fields wanted), with `since`/`until` as
 * epoch ms, the costs rounded to nano-dollars (unpriced traces never match a cost range) and `q` as its lower-cased
 * words, each of which must occur in the trace's searchable text (schemas/search.ts).
 */
export type TraceFilter = Omit<
  ListTracesQuery,
  'limit' | 'offset' | 'since' | 'until' | 'fields' | 'sort' | 'order' | 'cursor' | 'q'
> & {
  q?: string[]
  since?: number
  until?: number
  /** Only traces with a score of this name, each read with its mean of it (`score_mean`): what a score order needs. */
  scored_by?: string
}

/** The orders of GET /traces (TRACE_SORTS): a trace column, each tie broken by trace_id in the same direction. */
export type { SortOrder, TraceSort }

/** An order of the read plan: a trace column, or `score`: the trace's mean of the filter's `scored_by` score. */
export type ReadSort = TraceSort | 'score'

/** Which sessions or users: of a project, of a user (sessions), active in a time range. */
export interface ActivityFilter {
  project_id?: string
  /** Sessions only: those whose user this is. */
  user_id?: string
  /** last_at ≥ since */
  since?: number
  /** first_at < until */
  until?: number
}

/** Where a page starts: after the trace with this sort value (null: an unpriced trace) and trace_id. */
export interface PageAfter {
  value: number | null
  trace_id: string
}

export interface Page {
  limit: number
  offset: number
  /** Default created_at, desc. An unpriced trace (cost null) sorts as the cheapest. */
  sort?: ReadSort
  order?: SortOrder
  /** Keyset paging: the page after this position (then offset counts from there). */
  after?: PageAfter
}

/** A page of traces: `total` counts every match; `more` tells whether traces follow this page. */
export interface TracePage<T = Trace> {
  total: number
  items: T[]
  more: boolean
}

/** What storing one trace did: stored now, already there for this project, or held by another project. */
export type InsertOutcome =
  | { kind: 'created'; trace: Trace }
  | { kind: 'exists'; trace: Trace }
  | { kind: 'conflict'; trace_id: string }

/** An API key as the store holds it: the hash of the secret, never the secret. */
export interface ApiKeyRecord {
  key_id: string
  key_hash: string
  key_preview: string
  project_id: string
  environment: Environment
  kind: ApiKeyKind
  created_at: number
}

/** The project context a presented key resolves to. */
export type { KeyContext }

export interface AnalyticsParams {
  project_id?: string
  now: number
  slowThresholdMs: number
}

export interface FailuresParams {
  project_id?: string
  limit: number
  slowThresholdMs: number
}

/**
 * An OTLP span kept until its trace is materialized; `is_root` when it has no parent, or a remote one. A GenAI log
 * record waits the same way, beside the spans of its trace (never a root): its `span_id` is `log:` + the span it
 * names + `:` + a digest of the record, so that a re-sent record is one row, and `span` holds the record.
 */
export interface PendingSpan {
  trace_id: string
  span_id: string
  project_id: string
  environment: Environment
  is_root: boolean
  received_at: number
  span: OtlpSpan | OtlpLogRecord
}

/**
 * What keeping one span did: `added`; `duplicate` (that trace_id + span_id is already pending); `stored` (its trace is
 * already stored for this project, so nothing was kept); `conflict` (the trace_id belongs to another project).
 */
export type PendingSpanOutcome = 'added' | 'duplicate' | 'stored' | 'conflict'

/** One trace's pending spans, summed up: when its root arrived (null: not yet) and when its latest span did. */
export interface PendingTrace {
  trace_id: string
  project_id: string
  environment: Environment
  root_received_at: number | null
  last_received_at: number
  spans: number
}

/** A trace that was deleted, as /ws announces it. */
export type { DeletedTrace }

/** Which traces a deletion takes: those matching the filter (and, when given, with one of these ids). */
export interface DeleteSelection {
  filter: TraceFilter
  trace_ids?: readonly string[]
  /** At most this many, oldest first. */
  limit: number
}

/** What deleting a project removed besides its traces. */
export interface ProjectRemoval {
  api_keys: number
  pending_spans: number
}

/** An alert rule as the store holds it (times in epoch ms; the secret, when any, in clear: it signs deliveries). */
export interface AlertRuleRecord {
  rule_id: string
  name: string
  project_id: string | null
  metric: AlertMetric
  /** The score of a `score_mean` rule; null for every other metric. */
  score_name: string | null
  direction: AlertDirection
  window_minutes: number
  threshold: number
  destination_type: AlertDestinationType
  url: string
  secret: string | null
  state: AlertState
  last_value: number | null
  last_evaluated_at: number | null
  created_at: number
}

/** An alert event as the store holds it (`at` in epoch ms). */
export interface AlertEventRecord {
  event_id: string
  rule_id: string
  rule_name: string
  project_id: string | null
  metric: AlertMetric
  kind: AlertEventKind
  value: number
  threshold: number
  at: number
  delivery: AlertDelivery
  attempts: number
  last_error: string | null
}

/** Alert rules, their events, and the window statistics the rules are evaluated on. */
export interface AlertStore {
  createRule(rule: AlertRuleRecord): Promise<void>
  listRules(): Promise<AlertRuleRecord[]>
  /** False when there is no such rule. Its events stay (they are history). */
  deleteRule(ruleId: string): Promise<boolean>
  /** A rule's new state and last value, and the event it gave (if any), in one transaction. */
  recordEvaluation(
    ruleId: string,
    update: Pick<AlertRuleRecord, 'state' | 'last_value' | 'last_evaluated_at'>,
    event: AlertEventRecord | null,
  ): Promise<void>
  /** Newest first. */
  listEvents(query: { rule_id?: string; limit: number }): Promise<AlertEventRecord[]>
  /** Events whose delivery is not finished (to resume after a restart). */
  pendingEvents(): Promise<AlertEventRecord[]>
  setDelivery(eventId: string, delivery: Pick<AlertEventRecord, 'delivery' | 'attempts' | 'last_error'>): Promise<void>
  /** Counts of the traces created at or after `since` (one project or all), for alert rules. */
  windowStats(params: WindowQuery): Promise<WindowStats>
}

/** Which traces an alert rule looks at: those created at or after `since`, of one project or all. */
export interface WindowQuery {
  project_id?: string
  since: number
  slowThresholdMs: number
}

/** The figures of traces created since a time, for alert rules. */
export interface WindowStats {
  traces: number
  failed: number
  slow: number
  /** Nearest-rank p95 of latency (ms); 0 without traces. */
  p95_latency: number
  /** What the traces cost, in USD (summed in whole nano-dollars); unpriced traces add nothing. */
  cost: number
}

/** What /metrics reports of the store. */
export interface StoreStats {
  traces: number
  bytes: number
  /** Searches whose exact total this instance counted in full, no count it kept being usable, since it started. */
  search_full_counts: number
}

/** What the database itself answers (each dialect's lifecycle.ts, which opens it): whether it runs, its size, its end. */
export interface LifecycleStore {
  readonly dialect: string
  /**
   * Whether queries run on the event loop (SQLite): a long write then holds every request, not only other writes to
   * the rows it locks. Long jobs (deletion) size their transactions by it.
   */
  readonly blocksEventLoop: boolean
  /** Throws when the database cannot answer. */
  ping(): Promise<void>
  /**
   * Writes a row of PROBE_BYTES and removes it, in one transaction: throws (SQLITE_FULL, 53100, …) when the
   * database cannot take a write that needs space. What the health check tries while writes fail (write-health.ts).
   */
  probeWrite(): Promise<void>
  close(): Promise<void>
  /** How many traces are stored (from the rollups), and the bytes the database takes on disk. */
  stats(): Promise<StoreStats>
  /**
   * Gives some of the space of deleted rows back to the file system (SQLite), in one short step; true while more is
   * left to give back. A no-op (false) where the database does it itself.
   */
  reclaimSpace(): Promise<boolean>
  /**
   * Follows the traces that other processes on the same database (other replicas) store, so that they are announced
   * here too: `listener` gets each of them once, in the order its replica stored them, and after a lost connection
   * the ones committed meanwhile. A store private to one process (SQLite) has nothing to follow and never calls it.
   * Resolves, once following, to the function that stops.
   */
  followReplicas(listener: (traces: readonly Trace[]) => void): Promise<() => Promise<void>>
}

/** Traces: stored with their rollups and search text, read through the shared plan (trace-reads.ts). */
export interface TraceStore {
  /**
   * Stores the traces in one transaction, each idempotent on trace_id, its reported costs in a column of their own;
   * outcomes in input order.
   */
  insert(traces: PricedTrace[]): Promise<InsertOutcome[]>
  get(traceId: string): Promise<Trace | null>
  list(filter: TraceFilter, page: Page): Promise<TracePage>
  /** The same list as summaries: no prompt, response, metadata or steps, and each trace's step count. */
  listSummaries(filter: TraceFilter, page: Page): Promise<TracePage<TraceSummary>>
  analytics(params: AnalyticsParams): Promise<TraceAnalytics>
  failures(params: FailuresParams): Promise<FailuresResponse>
  /**
   * Every trace matching a filter, newest first, in chunks of at most `chunk` (each one indexed read): constant
   * memory however many match. Traces stored after the walk began are not included; one deleted meanwhile may be.
   * Each chunk holds what `each` made of its traces: each trace is handed to it as it is read, and need not be kept.
   */
  walk<T>(filter: TraceFilter, chunk: number, each: (trace: Trace) => T): AsyncIterable<T[]>
  /**
   * Deletes up to `limit` matching traces, oldest first, in one transaction with their rollups (each decremented by
   * exactly what the trace added), so every figure stays equal to a recount. Returns what was deleted.
   */
  delete(selection: DeleteSelection): Promise<DeletedTrace[]>
  /**
   * Prices stored traces again (created_at ≥ since; all when undefined), oldest first, in chunks: each chunk's changed
   * traces and their rollups in one transaction, so every figure stays exact at every moment.
   */
  reprice(since: number | undefined, reprice: Repricer): Promise<RepriceOutcome>
}

/** Sessions and users, from their rollups. */
export interface ActivityStore {
  /** Sessions, newest activity first (from their rollup). */
  listSessions(filter: ActivityFilter, page: Page): Promise<ListSessionsResponse>
  /** A session (of the project given, else the most recently active with this id) and its traces, oldest first. */
  getSession(sessionId: string, projectId: string | undefined, limit: number): Promise<SessionDetailResponse | null>
  /** Users, newest activity first (from their rollup); `user_id` of the filter is not used. */
  listUsers(filter: ActivityFilter, page: Page): Promise<ListUsersResponse>
  /** A user (of the project given, else the most recently active with this id) and its sessions, newest first. */
  getUser(userId: string, projectId: string | undefined, limit: number): Promise<UserDetailResponse | null>
}

/** Projects, their API keys and their own retention settings. */
export interface ProjectStore {
  /** Stores a project with its first key in one transaction; false when the project_id is taken. */
  create(project: Project, key: ApiKeyRecord): Promise<boolean>
  list(): Promise<Project[]>
  get(projectId: string): Promise<Project | null>
  /**
   * Deletes a project that has no traces left (delete them first, in batches), with its keys and pending OTLP spans,
   * in one transaction. `has-traces` (and nothing changed) when a trace of it is still stored.
   */
  delete(projectId: string): Promise<ProjectRemoval | 'not-found' | 'has-traces'>

  createApiKey(key: ApiKeyRecord): Promise<void>
  listApiKeys(projectId?: string): Promise<ApiKey[]>
  /** The live (not revoked) key with this hash. */
  findApiKey(keyHash: string): Promise<KeyContext | null>
  touchApiKey(keyId: string, at: number): Promise<void>
  /** Revokes (idempotently) and returns the key; null when unknown. */
  revokeApiKey(keyId: string, at: number): Promise<ApiKey | null>

  /** Every project's own retention settings (projects without any are absent). */
  listRetention(): Promise<(RetentionSettings & { project_id: string })[]>
  /** Sets a project's own retention (null fields follow the server's); false when there is no such project. */
  setRetention(projectId: string, settings: RetentionSettings): Promise<boolean>
}

/** The operator's price overrides. */
export interface PriceStore {
  /** Every price override, pattern ascending. */
  list(): Promise<PriceRuleRecord[]>
  /** Adds or replaces the override of a pattern; true when it was new. */
  put(rule: PriceRuleRecord): Promise<boolean>
  /** Removes the override of a pattern; false when there was none. */
  delete(pattern: string): Promise<boolean>
}

/** OTLP spans waiting for their trace (src/otlp/service.ts). */
export interface PendingSpanStore {
  /** Keeps spans in one transaction, each idempotent on (trace_id, span_id); outcomes in input order. */
  add(spans: PendingSpan[]): Promise<PendingSpanOutcome[]>
  /** Every trace that has pending spans. */
  listTraces(): Promise<PendingTrace[]>
  /** The pending spans of one trace, in the order they arrived (exporters send spans in the order they ended). */
  get(traceId: string): Promise<PendingSpan[]>
  /**
   * Forgets these pending spans of these traces (once they are materialized), in one transaction; spans that arrived
   * since stay.
   */
  delete(spans: readonly { trace_id: string; span_ids: readonly string[] }[]): Promise<void>
}

/** A score to store, with the user of the trace it scores (kept for users' means, never shown). */
export interface NewScore {
  score: Score
  user_id: string | null
}

/**
 * What storing one score did: `created`; `exists` (a score of that id is stored: the stored one, whatever it holds);
 * `missing` (its trace is gone: deleted since it was looked up).
 */
export type ScoreInsertOutcome =
  | { kind: 'created'; score: Score }
  | { kind: 'exists'; score: Score }
  | { kind: 'missing' }

/** Which scores GET /scores lists (times in epoch ms). */
export interface ScoreFilter {
  project_id?: string
  trace_id?: string
  session_id?: string
  name?: string
  source?: ScoreSource
  author?: string
  since?: number
  until?: number
}

/** Where a page of scores starts: after this (created_at, score_id), newest first. */
export interface ScorePageAfter {
  at: number
  score_id: string
}

export interface ScorePage {
  total: number
  items: Score[]
  more: boolean
}

/** What a score of a trace takes from it: its project, session and user, and how many steps it has. */
export interface ScoreTarget {
  project_id: string
  session_id: string | null
  user_id: string | null
  step_count: number
}

/** Scores, their rollups (per hour, per trace) and the configs they are checked against. */
export interface ScoreStore {
  /** The traces of these ids that are stored, as scores of them need them (one indexed read). */
  targets(traceIds: readonly string[]): Promise<Map<string, ScoreTarget>>
  /**
   * Stores scores in one transaction, each idempotent on score_id, with every rollup they change; a score of a trace
   * is stored only while its trace is (the trace row is locked until commit). Outcomes in input order.
   */
  insert(scores: readonly NewScore[]): Promise<ScoreInsertOutcome[]>
  get(scoreId: string): Promise<Score | null>
  /** Newest first (created_at desc, score_id desc). */
  list(filter: ScoreFilter, page: { limit: number; after?: ScorePageAfter }): Promise<ScorePage>
  /** A trace's scores, oldest first. */
  ofTrace(traceId: string): Promise<Score[]>
  /** The scores of each of these traces, oldest first (traces without scores are absent). */
  ofTraces(traceIds: readonly string[]): Promise<Map<string, Score[]>>
  /** Per trace of these, its scores per name in short (traces without scores are absent). */
  summaries(traceIds: readonly string[]): Promise<Map<string, ScoreSummary>>
  /** Per trace of these with scores of this name, its exact mean of them (what `sort=score:<name>` orders by). */
  means(name: string, traceIds: readonly string[]): Promise<Map<string, number>>
  /** Deletes a score with what it added to the rollups, in one transaction; the deleted score, or null. */
  delete(scoreId: string): Promise<Score | null>
  /** How many scores of a name were given since `since` (of one project or all), and their mean (null: none). */
  windowMean(
    name: string,
    projectId: string | undefined,
    since: number,
  ): Promise<{ count: number; mean: number | null }>
  /** Per (name, data type), of one project or all: counts, mean, labels, and the per-hour means since `since`. */
  analytics(projectId: string | undefined, since: number): Promise<ScoreAnalytics[]>

  listConfigs(): Promise<ScoreConfig[]>
  getConfig(name: string): Promise<ScoreConfig | null>
  /** Adds or replaces the config of a name; true when it was new. */
  putConfig(config: ScoreConfig): Promise<boolean>
  deleteConfig(name: string): Promise<boolean>
}

/** A dataset as the store holds it (times in epoch ms). */
export interface DatasetRecord {
  dataset_id: string
  project_id: string
  name: string
  description: string
  metadata: Record<string, unknown>
  created_at: number
  updated_at: number
}

/**
 * One version of a dataset item (times in epoch ms): it holds from `valid_from` until `valid_to` (null: the current
 * version). `created_at` is the item's first version's.
 */
export interface DatasetItemRecord {
  item_id: string
  version: number
  dataset_id: string
  status: DatasetItemStatus
  input: unknown
  expected_output: unknown
  metadata: Record<string, unknown>
  source_trace_id: string | null
  created_at: number
  valid_from: number
  valid_to: number | null
}

/** Which items of a dataset: as of a time (default: now), archived ones or not, the page after an item id. */
export interface DatasetItemSelection {
  dataset_id: string
  as_of?: number
  include_archived: boolean
  after?: string
  limit: number
}

/** An experiment as the store holds it (times in epoch ms). */
export interface ExperimentRecord {
  experiment_id: string
  project_id: string
  dataset_id: string
  name: string
  as_of: number
  metadata: Record<string, unknown>
  created_at: number
}

/** A trace of an experiment, in short: what its answer shows of each item's run. */
export interface ExperimentTraceRow {
  trace_id: string
  dataset_item_id: string | null
  status: Trace['status']
  response: string | null
  failure_reason: string | null
  latency: number
  token_count: number
  cost: number | null
  created_at: number
}

/** Datasets, their versioned items, and the experiments run over them. */
export interface DatasetStore {
  /** False when the project has a dataset of that name. */
  create(dataset: DatasetRecord): Promise<boolean>
  /** Name ascending. */
  list(filter: { project_id?: string; name?: string }): Promise<DatasetRecord[]>
  get(datasetId: string): Promise<DatasetRecord | null>
  /** Its new name, description, metadata and updated_at. */
  update(dataset: DatasetRecord): Promise<'updated' | 'missing' | 'name-taken'>
  /** The dataset, its items (every version) and its experiments; false when there was none. */
  delete(datasetId: string): Promise<boolean>
  /** Per dataset, its current items that are not archived. */
  itemCounts(datasetIds: readonly string[]): Promise<Map<string, number>>
  /** Adds new items (each version 1), in one transaction. */
  addItems(items: readonly DatasetItemRecord[]): Promise<void>
  /** A page of items, in the order they were added (item_id ascending), and how many there are in all. */
  listItems(selection: DatasetItemSelection): Promise<{ total: number; items: DatasetItemRecord[]; more: boolean }>
  /** The version of an item of this dataset holding at `asOf` (default: the current one), archived or not. */
  getItem(datasetId: string, itemId: string, asOf?: number): Promise<DatasetItemRecord | null>
  /** Every version of an item, oldest first. */
  itemVersions(datasetId: string, itemId: string): Promise<DatasetItemRecord[]>
  /**
   * Adds `next` as the item's new version, ending the current one at `next.valid_from`, in one transaction; false
   * (nothing changed) when the current version is not `next.version - 1` (another edit came first).
   */
  putVersion(next: DatasetItemRecord): Promise<boolean>
  /** The source traces of the dataset's current items (archived ones included). */
  sourceTraceIds(datasetId: string): Promise<Set<string>>

  createExperiment(experiment: ExperimentRecord): Promise<void>
  getExperiment(experimentId: string): Promise<ExperimentRecord | null>
  /** Newest first. */
  listExperiments(filter: {
    project_id?: string
    dataset_id?: string
    name?: string
    limit: number
  }): Promise<{ total: number; items: ExperimentRecord[] }>
  /** The traces of an experiment (of its project), oldest first. */
  experimentTraces(experiment: ExperimentRecord): Promise<ExperimentTraceRow[]>
}

/** An evaluator rule as the store holds it (times in epoch ms). */
export type EvaluatorRecord = Omit<Evaluator, 'created_at' | 'updated_at' | 'stats'> & {
  created_at: number
  updated_at: number
}

/** Evaluator rules. */
export interface EvaluatorStore {
  /** Oldest first. */
  list(): Promise<EvaluatorRecord[]>
  get(evaluatorId: string): Promise<EvaluatorRecord | null>
  /** Adds or replaces a rule; true when it was new. */
  put(rule: EvaluatorRecord): Promise<boolean>
  delete(evaluatorId: string): Promise<boolean>
}

/** One rule to run on one trace (times in epoch ms). */
export interface EvaluationJob {
  job_id: number
  project_id: string
  evaluator_id: string
  trace_id: string
  /** The backfill run it belongs to; null: a live trace's. */
  run_id: string | null
  /** Times it was claimed (a claim that ends unattempted, for the judge's budget, gives its attempt back). */
  attempts: number
  /** When it is due; while a worker holds it, when that worker's lease runs out. */
  due_at: number
  /** The worker holding it; null when none does. */
  claimed_by: string | null
  last_error: string | null
  created_at: number
}
export type NewEvaluationJob = Omit<EvaluationJob, 'job_id' | 'attempts' | 'claimed_by' | 'last_error'>

/** What running a job came to: a score recorded, an evaluation error, or nothing to do (its rule or trace is gone). */
export type JobVerdict =
  | ({ kind: 'scored'; cost: number } & JudgeTokens)
  | ({ kind: 'error'; error: string; cost: number } & JudgeTokens)
  | { kind: 'dropped' }
type JudgeTokens = { prompt_tokens: number; completion_tokens: number }

/** A rule's figures as the store keeps them (times in epoch ms). */
export interface EvaluatorStatsRecord extends JudgeTokens {
  evaluator_id: string
  evaluated: number
  errors: number
  pending: number
  last_error: string | null
  last_error_at: number | null
  last_evaluated_at: number | null
  cost: number
}

/** A backfill run as the store keeps it (times in epoch ms). */
export interface EvaluatorRunRecord {
  run_id: string
  evaluator_id: string
  /** The scope it was started in (null: every project the rule covers). */
  project_id: string | null
  since: number | null
  until: number | null
  status: EvaluatorRunStatus
  total: number
  done: number
  errors: number
  cost: number
  /** Where its enumeration of past traces stands (a list cursor; null before the first page and once enumerated). */
  cursor: string | null
  enumerated: boolean
  lease_until: number | null
  last_error: string | null
  created_at: number
  finished_at: number | null
}

/** Evaluation jobs, backfill runs and each rule's figures (src/store/evaluation-jobs.ts). */
export interface EvaluationStore {
  /** Adds jobs, skipping a (rule, trace) already waiting: how many were added. */
  enqueue(jobs: readonly NewEvaluationJob[]): Promise<number>
  /**
   * Up to `limit` jobs due at `now`, each leased to `worker` until `now + leaseMs`; none of the rules `skip` (those
   * whose turn has not come: the judge's budget is spent).
   */
  claim(limit: number, now: number, leaseMs: number, worker: string, skip?: readonly string[]): Promise<EvaluationJob[]>
  /**
   * Jobs held by `worker` (null: by any worker — SQLite at start, where no other process can hold one) are due again
   * at `now`: how many.
   */
  release(worker: string | null, now: number): Promise<number>
  /** A job's verdict: the job deleted and counted for its rule and run; false when it was finished already. */
  finish(job: EvaluationJob, verdict: JobVerdict, now: number): Promise<boolean>
  /**
   * A job put back until `dueAt`: after failing to reach the judge (`error`; the tokens and cost it spent are counted
   * for its rule), or unattempted (`error` null).
   */
  retry(
    job: EvaluationJob,
    dueAt: number,
    error: string | null,
    now: number,
    spent: JudgeTokens & { cost: number },
  ): Promise<void>
  /** When the next job is due (a leased one: when its lease runs out); null when none waits. */
  nextDue(): Promise<number | null>
  /** Jobs waiting, in all. */
  pending(): Promise<number>
  /** Jobs waiting for the traces of an experiment (of a project). */
  pendingOfExperiment(experimentId: string, projectId: string): Promise<number>
  /** Each rule's figures, with its jobs waiting (rules that did nothing yet are absent). */
  stats(): Promise<Map<string, EvaluatorStatsRecord>>
  /** A deleted rule's jobs and figures go; its running backfills are cancelled. */
  forget(evaluatorId: string, now: number): Promise<void>
  createRun(run: EvaluatorRunRecord): Promise<void>
  getRun(runId: string): Promise<EvaluatorRunRecord | null>
  /** A rule's runs, newest first. */
  listRuns(evaluatorId: string): Promise<EvaluatorRunRecord[]>
  /** The oldest running run still enumerating whose lease ran out (or never was), leased to the caller. */
  leaseRun(now: number, leaseMs: number): Promise<EvaluatorRunRecord | null>
  /**
   * A page of a run's traces enqueued and its position kept (`cursor` null: the last page), its lease extended to
   * `leaseUntil`: the jobs added (0 when the run is no longer running).
   */
  advanceRun(
    runId: string,
    jobs: readonly NewEvaluationJob[],
    cursor: string | null,
    now: number,
    leaseUntil: number,
  ): Promise<number>
  /** Ends a running run (cancelled by a person, or failed) and drops its waiting jobs; false when it was not running. */
  endRun(runId: string, status: 'cancelled' | 'failed', error: string | null, now: number): Promise<boolean>
}

/** An annotation queue as the store holds it (created_at in epoch ms; the filter as GET /traces takes it). */
export interface AnnotationQueueRecord {
  queue_id: string
  name: string
  project_id: string
  description: string | null
  filter: Record<string, unknown>
  score_names: string[]
  created_at: number
}

/** A trace of a queue someone opened: who holds it and until when (epoch ms), or who marked it done. */
export interface AnnotationItemRecord {
  trace_id: string
  held_by: string | null
  held_until: number | null
  done_by: string | null
  done_at: number | null
}

/** Annotation queues and the traces of them people hold or marked done. */
export interface AnnotationStore {
  createQueue(queue: AnnotationQueueRecord): Promise<void>
  /** Newest first; of one project, or all. */
  listQueues(projectId?: string): Promise<AnnotationQueueRecord[]>
  getQueue(queueId: string): Promise<AnnotationQueueRecord | null>
  /** Replaces the name, description, filter and score names; false when there is no such queue. */
  updateQueue(queue: AnnotationQueueRecord): Promise<boolean>
  /** Deletes a queue with its items, in one transaction; false when there is no such queue. */
  deleteQueue(queueId: string): Promise<boolean>
  /** Per queue of these, how many of its items are done. */
  doneCounts(queueIds: readonly string[]): Promise<Map<string, number>>
  /** The items of these traces in a queue (traces nobody opened are absent). */
  items(queueId: string, traceIds: readonly string[]): Promise<Map<string, AnnotationItemRecord>>
  /** The traces this annotator holds in a queue at `now` (not done, hold not expired), oldest hold first. */
  heldBy(queueId: string, annotator: string, now: number): Promise<string[]>
  /**
   * Holds a trace of a queue for an annotator until `until`, in one atomic statement: only while it is not done and
   * not held by someone else whose hold is still running at `now`. True when it is now theirs.
   */
  claim(queueId: string, traceId: string, annotator: string, now: number, until: number): Promise<boolean>
  /**
   * Marks a trace done by an annotator (and ends any hold), unless someone else holds it at `now`: the item, or
   * null when another holds it.
   */
  markDone(queueId: string, traceId: string, annotator: string, now: number): Promise<AnnotationItemRecord | null>
  /** Ends an annotator's hold of a trace; false when they did not hold it. */
  release(queueId: string, traceId: string, annotator: string): Promise<boolean>
}

/** The store the app is given: the database's lifecycle, and one sub-store per domain. */
export interface Store extends LifecycleStore {
  readonly traces: TraceStore
  readonly activity: ActivityStore
  readonly projects: ProjectStore
  readonly prices: PriceStore
  readonly pending: PendingSpanStore
  readonly alerts: AlertStore
  readonly scores: ScoreStore
  readonly evaluators: EvaluatorStore
  readonly evaluations: EvaluationStore
  readonly datasets: DatasetStore
  readonly annotation: AnnotationStore
}

export type { ApiKeyCreated }
