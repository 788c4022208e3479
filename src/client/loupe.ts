// The Loupe client: `trace()` records a call of the app and queues it for delivery; the read methods call the REST
// API; `subscribe()` follows the live stream. Recording never throws into the app and never waits on the network.
import type {
  AddDatasetItemsResponse,
  AlertRule,
  AlertRuleInput,
  AnalyticsQuery,
  AnalyticsResponse,
  AnnotationItem,
  AnnotationQueue,
  AnnotationQueueInput,
  ApiKey,
  ApiKeyCreated,
  BatchScoresResponse,
  CompareExperimentsResponse,
  CreateApiKeyInput,
  CreateEvaluatorRunBody,
  CreateProjectInput,
  CreateProjectResponse,
  Dataset,
  DatasetFormat,
  DatasetInput,
  DatasetItem,
  DatasetItemInput,
  DeleteProjectResponse,
  DeleteTracesQuery,
  DeleteTracesResponse,
  Evaluator,
  EvaluatorInput,
  EvaluatorRun,
  Experiment,
  ExperimentDetailResponse,
  ExperimentInput,
  ExportTracesQuery,
  FailuresQuery,
  FailuresResponse,
  FromTracesBody,
  FromTracesResponse,
  HealthResponse,
  ListAlertEventsQuery,
  ListAlertEventsResponse,
  ListAlertRulesResponse,
  ListAnnotationQueuesResponse,
  ListApiKeysResponse,
  ListDatasetItemsQuery,
  ListDatasetItemsResponse,
  ListDatasetsQuery,
  ListDatasetsResponse,
  ListEvaluatorRunsResponse,
  ListEvaluatorsResponse,
  ListExperimentsQuery,
  ListExperimentsResponse,
  ListJudgeTemplatesResponse,
  ListModelPricesResponse,
  ListProjectsResponse,
  ListScoreConfigsResponse,
  ListScoresQuery,
  ListScoresResponse,
  ListSessionsQuery,
  ListSessionsResponse,
  ListTraceSummariesResponse,
  ListTracesQuery,
  ListTracesResponse,
  ListUsersQuery,
  ListUsersResponse,
  ModelPrice,
  NextAnnotationItemBody,
  ProjectRetention,
  PutAnnotationQueueBody,
  PutDatasetBody,
  PutModelPriceBody,
  RecomputeCostsBody,
  RecomputeCostsResponse,
  RetentionSettings,
  Score,
  ScoreConfig,
  ScoreConfigInput,
  ScoreInput,
  SessionDetailResponse,
  SessionQuery,
  TestEvaluatorBody,
  TestEvaluatorResponse,
  Trace,
  UserDetailResponse,
  UserQuery,
} from '../../schemas/index.js'
import { type ExperimentSummary, type RunExperimentOptions, runExperiment } from './experiment.js'
import { createHttp, type Http, LoupeError, normalizeBaseUrl } from './http.js'
import { CLIENT_LIMITS, errorMessage, safeStringify } from './json.js'
import { TraceRecorder } from './recorder.js'
import { Sender } from './sender.js'
import { openSubscription, type SubscribeOptions, type Subscription } from './subscribe.js'
import type { ListApiKeysParams, LoupeStats, TraceContext, TraceOptions } from './types.js'
import { uuidv7 } from './uuid.js'

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000'

export interface LoupeOptions {
  /** Where Loupe runs. Default: `LOUPE_BASE_URL`, else http://127.0.0.1:3000. */
  baseUrl?: string
  /**
   * A project API key (`loupe_sk_…`), needed to record traces; also sent on reads and /ws. Default: `LOUPE_API_KEY`.
   * For reading only, the admin token of a protected server works too.
   */
  apiKey?: string
  /** A batch is sent as soon as this many traces wait (1–1000, default 100); a backlog goes in requests of up to 1000. */
  batchSize?: number
  /** Largest request body in bytes (default 512 KiB; the server's default limit is 1 MiB). */
  maxBatchBytes?: number
  /** How long a trace may wait for its batch to fill, in ms (default 1000). */
  flushIntervalMs?: number
  /** Traces kept in memory while the server cannot be reached; past it the oldest are dropped (default 100000). */
  maxQueueSize?: number
  /** The same cap in bytes of serialized traces (default 64 MiB). */
  maxQueueBytes?: number
  /** Timeout of one HTTP request in ms (default 10000). */
  requestTimeoutMs?: number
  /** How long `flush()`, `shutdown()` and the exit hook keep trying, in ms (default 30000). */
  flushTimeoutMs?: number
  /** Retry backoff: first wait (default 250 ms), doubling with jitter up to `maxDelayMs` (default 5000 ms). */
  baseDelayMs?: number
  maxDelayMs?: number
  /** Deliver what is queued when the process is about to exit (`beforeExit`; default true). */
  flushOnExit?: boolean
  /** false: run the app's code but record nothing (default true). */
  enabled?: boolean
  /** Where the SDK's warnings go (default: console.warn with a `loupe:` prefix). */
  onWarning?: (message: string) => void
  /** The fetch to use (default: Node's global fetch). */
  fetch?: typeof fetch
}

const positive = (value: number | undefined, fallback: number, max = Number.POSITIVE_INFINITY): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.min(value, max) : fallback

export class Loupe {
  /** The server's base URL, with a trailing slash. */
  readonly baseUrl: string
  readonly #http: Http
  /** Sent with every call (Bearer) and on /ws (`?token=`): a project key, or in protected mode the admin token. */
  readonly #credential: string | undefined
  readonly #sender: Sender | undefined
  readonly #flushTimeoutMs: number
  readonly #warn: (message: string) => void
  readonly #subscriptions = new Set<Subscription>()
  #closed = false
  #closing: Promise<boolean> | undefined
  #exitDeadline: number | undefined
  #warnedClosed = false
  /** Why trace() records nothing, if it does not: turned off, or no key (said once, at the first trace). */
  #recordsNothing: 'disabled' | 'no-key' | null = null
  /** Traces lost (rejected or dropped) up to the last flush that reported on them. */
  #lossesReported = 0
  /** Scores of recorded traces (`t.score()`) on their way: flush() and shutdown() wait for them. */
  readonly #scoring = new Set<Promise<void>>()

  constructor(options: LoupeOptions = {}) {
    const warn = options.onWarning ?? ((message: string) => console.warn(`loupe: ${message}`))
    this.#warn = (message) => {
      try {
        warn(message)
      } catch {
        // a throwing warning handler must not break the app either
      }
    }
    const env = typeof process === 'object' ? process.env : {}
    const requestTimeoutMs = positive(options.requestTimeoutMs, 10_000)
    const fetchFn = options.fetch ?? globalThis.fetch
    const apiKey = options.apiKey ?? (env.LOUPE_API_KEY || undefined)
    // A malformed address is a mistake in the app's setup, not a network condition: it fails here, at once, rather
    // than sending somewhere else.
    const baseUrl = normalizeBaseUrl(options.baseUrl ?? (env.LOUPE_BASE_URL || DEFAULT_BASE_URL))
    this.baseUrl = baseUrl
    this.#credential = apiKey
    this.#flushTimeoutMs = positive(options.flushTimeoutMs, 30_000)
    this.#http = createHttp({ baseUrl, credential: apiKey, timeoutMs: requestTimeoutMs, fetch: fetchFn })

    // Without a key this is a read-only client: no warning unless the app records a trace (#finish).
    if (options.enabled === false || !apiKey) {
      this.#recordsNothing = options.enabled === false ? 'disabled' : 'no-key'
      return
    }
    this.#sender = new Sender({
      endpoint: new URL('traces/batch', baseUrl).href,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      batchSize: Math.floor(positive(options.batchSize, 100, CLIENT_LIMITS.batch)),
      maxBatchSize: CLIENT_LIMITS.batch,
      maxBatchBytes: positive(options.maxBatchBytes, 512 * 1024),
      flushIntervalMs: positive(options.flushIntervalMs, 1000),
      maxQueueSize: Math.floor(positive(options.maxQueueSize, 100_000)),
      maxQueueBytes: positive(options.maxQueueBytes, 64 * 1024 * 1024),
      requestTimeoutMs,
      baseDelayMs: positive(options.baseDelayMs, 250),
      maxDelayMs: positive(options.maxDelayMs, 5000),
      fetch: fetchFn,
      warn: this.#warn,
    })
    if (options.flushOnExit !== false && typeof process === 'object') process.on('beforeExit', this.#onBeforeExit)
  }

  /**
   * Runs `fn` and records it as one trace: latency, the return value as the response, a thrown error as the
   * failure reason (the error is rethrown unchanged), and the steps `fn` adds through `t.step()`.
   * Resolves to what `fn` returns; the trace is sent in the background.
   */
  async trace<T>(options: TraceOptions, fn: (t: TraceContext) => T | Promise<T>): Promise<T> {
    const recorder = this.#start(options)
    let result: T
    try {
      result = await fn(recorder)
    } catch (err) {
      this.#finish(recorder, { error: err, failed: true })
      throw err
    }
    this.#finish(recorder, { result, failed: false })
    return result
  }

  /**
   * Delivers every trace recorded so far. True only when every trace since the last flush was accepted by the server;
   * false when one was rejected or dropped, or `timeoutMs` passed first.
   */
  async flush(options: { timeoutMs?: number } = {}): Promise<boolean> {
    if (!this.#sender) return true
    const timeoutMs = positive(options.timeoutMs, this.#flushTimeoutMs)
    const deadline = Date.now() + timeoutMs
    const settled = await this.#sender.flush(timeoutMs)
    return this.#accepted(settled && (await this.#scoresSent(deadline - Date.now())))
  }

  /** Whether the scores of recorded traces under way now are all answered within `timeoutMs`. */
  async #scoresSent(timeoutMs: number): Promise<boolean> {
    if (this.#scoring.size === 0) return true
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(0, timeoutMs))
    })
    const done = Promise.all([...this.#scoring]).then(() => true as const)
    return Promise.race([done, late]).finally(() => clearTimeout(timer))
  }

  /** Whether the traces since the last report all arrived: every one settled and none rejected or dropped. */
  #accepted(settled: boolean): boolean {
    const { rejected, dropped } = this.stats()
    const lost = rejected + dropped - this.#lossesReported
    this.#lossesReported = rejected + dropped
    return settled && lost === 0
  }

  /** Delivers what is queued, closes live streams and stops the SDK. Call it before `process.exit()`. */
  shutdown(options: { timeoutMs?: number } = {}): Promise<boolean> {
    this.#closing ??= (async () => {
      this.#closed = true
      if (typeof process === 'object') process.off('beforeExit', this.#onBeforeExit)
      for (const subscription of this.#subscriptions) subscription.close()
      this.#subscriptions.clear()
      if (!this.#sender) return true
      const timeoutMs = positive(options.timeoutMs, this.#flushTimeoutMs)
      const deadline = Date.now() + timeoutMs
      const settled = await this.#sender.flush(timeoutMs)
      const scored = await this.#scoresSent(deadline - Date.now())
      this.#sender.stop()
      if (!settled) this.#warn(`shut down with ${this.#sender.pending} trace(s) undelivered`)
      if (!scored) this.#warn('shut down with scores of traces still unanswered')
      return this.#accepted(settled && scored)
    })()
    return this.#closing
  }

  /** What the SDK did with the traces it recorded. */
  stats(): LoupeStats {
    const s = this.#sender
    return s
      ? { ...s.stats, pending: s.pending }
      : { queued: 0, delivered: 0, rejected: 0, dropped: 0, pending: 0, requests: 0, retries: 0 }
  }

  // Read client: each method is one REST call and throws a LoupeError when it fails.

  /** GET /health */
  health(): Promise<HealthResponse> {
    return this.#http('GET', 'health')
  }

  /** GET /traces: newest first, with the contract's filters; whole traces. */
  listTraces(query: Omit<ListTracesQuery, 'fields'> = {}): Promise<ListTracesResponse> {
    return this.#http('GET', 'traces', { query })
  }

  /** GET /traces?fields=summary: the same list without the traces' bodies, each with its step count. */
  listTraceSummaries(query: Omit<ListTracesQuery, 'fields'> = {}): Promise<ListTraceSummariesResponse> {
    return this.#http('GET', 'traces', { query: { ...query, fields: 'summary' } })
  }

  /** GET /traces/{trace_id} */
  getTrace(traceId: string): Promise<Trace> {
    return this.#http('GET', `traces/${encodeURIComponent(traceId)}`)
  }

  /** DELETE /traces/{trace_id} */
  deleteTrace(traceId: string): Promise<void> {
    return this.#http('DELETE', `traces/${encodeURIComponent(traceId)}`)
  }

  /** DELETE /traces: every trace matching the filters (with none, only when `all` is true). */
  deleteTraces(query: DeleteTracesQuery): Promise<DeleteTracesResponse> {
    return this.#http('DELETE', 'traces', { query, longRunning: true })
  }

  /** GET /traces/export: every match as NDJSON or CSV, read as it arrives (no time limit: it may be long). */
  exportTraces(query: ExportTracesQuery = {}): Promise<ReadableStream<Uint8Array>> {
    return this.#http.stream('GET', 'traces/export', { query })
  }

  /** GET /analytics */
  analytics(query: AnalyticsQuery = {}): Promise<AnalyticsResponse> {
    return this.#http('GET', 'analytics', { query })
  }

  /** GET /failures */
  failures(query: FailuresQuery = {}): Promise<FailuresResponse> {
    return this.#http('GET', 'failures', { query })
  }

  /**
   * POST /scores: records a score of a trace, one of its steps or a session (201 or, re-sent, 200: the stored score).
   * A trace this client recorded and has not delivered yet is delivered first.
   */
  async score(score: ScoreInput): Promise<Score> {
    await this.#deliverFirst([score])
    return this.#http('POST', 'scores', { body: score })
  }

  /** Scores and score configs. */
  readonly scores = {
    /** POST /scores/batch: each score checked on its own (`accepted`, `rejected` with index and reason, `items`). */
    batch: async (scores: ScoreInput[]): Promise<BatchScoresResponse> => {
      await this.#deliverFirst(scores)
      return this.#http('POST', 'scores/batch', { body: { scores } })
    },
    /** GET /scores: newest first, with filters. */
    list: (query: ListScoresQuery = {}): Promise<ListScoresResponse> => this.#http('GET', 'scores', { query }),
    /** GET /scores/{score_id} */
    get: (scoreId: string): Promise<Score> => this.#http('GET', `scores/${encodeURIComponent(scoreId)}`),
    /** DELETE /scores/{score_id} */
    delete: (scoreId: string): Promise<void> => this.#http('DELETE', `scores/${encodeURIComponent(scoreId)}`),
    /** The configs that scores of a name are checked against (writes: admin). */
    configs: {
      /** GET /score-configs */
      list: (): Promise<ListScoreConfigsResponse> => this.#http('GET', 'score-configs'),
      /** GET /score-configs/{name} */
      get: (name: string): Promise<ScoreConfig> => this.#http('GET', `score-configs/${encodeURIComponent(name)}`),
      /** POST /score-configs: a new name (409 when it has a config). */
      create: (config: ScoreConfigInput): Promise<ScoreConfig> => this.#http('POST', 'score-configs', { body: config }),
      /** PUT /score-configs/{name}: creates or replaces. */
      set: (name: string, config: Omit<ScoreConfigInput, 'name'>): Promise<ScoreConfig> =>
        this.#http('PUT', `score-configs/${encodeURIComponent(name)}`, { body: config }),
      /** DELETE /score-configs/{name} */
      delete: (name: string): Promise<void> => this.#http('DELETE', `score-configs/${encodeURIComponent(name)}`),
    },
  }

  /** Delivers now the traces these scores name that this client still holds, so that the server knows them. */
  async #deliverFirst(scores: ScoreInput[]): Promise<void> {
    const ids = new Set(scores.map((s) => s?.trace_id).filter((id): id is string => typeof id === 'string'))
    if (this.#sender && ids.size > 0 && this.#sender.holds(ids)) await this.flush()
  }

  /** Sends scores given to a recorded trace once the trace (queued at `seq`) is settled; a refusal is a warning. */
  #sendTraceScores(traceId: string, seq: number, scores: ScoreInput[]): void {
    const sender = this.#sender
    if (!sender) return
    if (this.#closed) {
      this.#warn(`score() after shutdown(): ${scores.length} score(s) of trace ${traceId} not sent`)
      return
    }
    const sending = (async () => {
      if (!(await sender.whenSettled(seq))) {
        this.#warn(`${scores.length} score(s) of trace ${traceId} not sent: the trace was not delivered`)
        return
      }
      try {
        const answer: BatchScoresResponse = await this.#http('POST', 'scores/batch', { body: { scores } })
        for (const { index, message } of answer.rejected) {
          this.#warn(`the server rejected score '${scores[index]?.name}' of trace ${traceId}: ${message}`)
        }
      } catch (err) {
        this.#warn(`could not send ${scores.length} score(s) of trace ${traceId}: ${errorMessage(err)}`)
      }
    })()
    this.#scoring.add(sending)
    void sending.finally(() => this.#scoring.delete(sending))
  }

  readonly sessions = {
    /** GET /sessions: newest activity first. */
    list: (query: ListSessionsQuery = {}): Promise<ListSessionsResponse> => this.#http('GET', 'sessions', { query }),
    /** GET /sessions/{session_id}: the session and its traces, oldest first. */
    get: (sessionId: string, query: SessionQuery = {}): Promise<SessionDetailResponse> =>
      this.#http('GET', `sessions/${encodeURIComponent(sessionId)}`, { query }),
  }

  readonly users = {
    /** GET /users: newest activity first. */
    list: (query: ListUsersQuery = {}): Promise<ListUsersResponse> => this.#http('GET', 'users', { query }),
    /** GET /users/{user_id}: the user and its sessions, newest activity first. */
    get: (userId: string, query: UserQuery = {}): Promise<UserDetailResponse> =>
      this.#http('GET', `users/${encodeURIComponent(userId)}`, { query }),
  }

  /** Model prices: operators' overrides of the price database, and re-pricing stored traces (admin). */
  readonly costs = {
    /** GET /models: every override, pattern ascending. */
    list: (): Promise<ListModelPricesResponse> => this.#http('GET', 'models'),
    /** GET /models/{pattern}: one override. */
    get: (pattern: string): Promise<ModelPrice> => this.#http('GET', `models/${encodeURIComponent(pattern)}`),
    /** PUT /models/{pattern}: prices the matching models' traces from now on. */
    set: (pattern: string, price: PutModelPriceBody): Promise<ModelPrice> =>
      this.#http('PUT', `models/${encodeURIComponent(pattern)}`, { body: price }),
    /** DELETE /models/{pattern} */
    remove: (pattern: string): Promise<void> => this.#http('DELETE', `models/${encodeURIComponent(pattern)}`),
    /** POST /costs/recompute: prices stored traces again (created at or after `since`, else all). */
    recompute: (body: RecomputeCostsBody = {}): Promise<RecomputeCostsResponse> =>
      this.#http('POST', 'costs/recompute', { body, longRunning: true }),
  }

  readonly projects = {
    /** GET /projects: oldest first. */
    list: (): Promise<ListProjectsResponse> => this.#http('GET', 'projects'),
    /** POST /projects: the project and its first API key — the only time the key is shown. */
    create: (input: CreateProjectInput): Promise<CreateProjectResponse> =>
      this.#http('POST', 'projects', { body: input }),
    /** DELETE /projects/{project_id}: the project with its traces, keys and pending spans (admin). */
    delete: (projectId: string): Promise<DeleteProjectResponse> =>
      this.#http('DELETE', `projects/${encodeURIComponent(projectId)}`, { longRunning: true }),
    /** GET /projects/{project_id}/retention: its own settings and what applies. */
    retention: (projectId: string): Promise<ProjectRetention> =>
      this.#http('GET', `projects/${encodeURIComponent(projectId)}/retention`),
    /** PUT /projects/{project_id}/retention (admin; null follows the server, 0 keeps everything). */
    setRetention: (projectId: string, settings: RetentionSettings): Promise<ProjectRetention> =>
      this.#http('PUT', `projects/${encodeURIComponent(projectId)}/retention`, { body: settings }),
  }

  /** Evaluator rules: checks and LLM judges whose results are scores (writes are admin-only when protected). */
  readonly evaluators = {
    /** GET /evaluators */
    list: (): Promise<ListEvaluatorsResponse> => this.#http('GET', 'evaluators'),
    /** GET /evaluators/{evaluator_id} */
    get: (evaluatorId: string): Promise<Evaluator> =>
      this.#http('GET', `evaluators/${encodeURIComponent(evaluatorId)}`),
    /** POST /evaluators */
    create: (rule: EvaluatorInput): Promise<Evaluator> => this.#http('POST', 'evaluators', { body: rule }),
    /** PUT /evaluators/{evaluator_id}: creates or replaces. */
    set: (evaluatorId: string, rule: EvaluatorInput): Promise<Evaluator> =>
      this.#http('PUT', `evaluators/${encodeURIComponent(evaluatorId)}`, { body: rule }),
    /** DELETE /evaluators/{evaluator_id}: the scores it wrote stay. */
    delete: (evaluatorId: string): Promise<void> =>
      this.#http('DELETE', `evaluators/${encodeURIComponent(evaluatorId)}`),
    /** POST /evaluators/test: the score a rule would write on one trace; nothing is stored. */
    test: (body: TestEvaluatorBody): Promise<TestEvaluatorResponse> => this.#http('POST', 'evaluators/test', { body }),
    /** GET /evaluators/templates: the judge templates that ship. */
    templates: (): Promise<ListJudgeTemplatesResponse> => this.#http('GET', 'evaluators/templates'),
    /** POST /evaluators/{evaluator_id}/runs: evaluates past traces in the background (a backfill). */
    startRun: (evaluatorId: string, body: CreateEvaluatorRunBody = {}): Promise<EvaluatorRun> =>
      this.#http('POST', `evaluators/${encodeURIComponent(evaluatorId)}/runs`, { body }),
    /** GET /evaluators/{evaluator_id}/runs: newest first. */
    runs: (evaluatorId: string): Promise<ListEvaluatorRunsResponse> =>
      this.#http('GET', `evaluators/${encodeURIComponent(evaluatorId)}/runs`),
    /** GET /evaluator-runs/{run_id}: a backfill's status and progress. */
    getRun: (runId: string): Promise<EvaluatorRun> => this.#http('GET', `evaluator-runs/${encodeURIComponent(runId)}`),
    /** DELETE /evaluator-runs/{run_id}: cancels a backfill (the scores written stay). */
    cancelRun: (runId: string): Promise<EvaluatorRun> =>
      this.#http('DELETE', `evaluator-runs/${encodeURIComponent(runId)}`),
  }

  /** Annotation queues: a project's traces of a filter, walked by people, each trace held for one at a time. */
  readonly annotationQueues = {
    /** GET /annotation-queues */
    list: (query: { project_id?: string } = {}): Promise<ListAnnotationQueuesResponse> =>
      this.#http('GET', 'annotation-queues', { query }),
    /** GET /annotation-queues/{queue_id}: with its progress. */
    get: (queueId: string): Promise<AnnotationQueue> =>
      this.#http('GET', `annotation-queues/${encodeURIComponent(queueId)}`),
    /** POST /annotation-queues */
    create: (queue: AnnotationQueueInput): Promise<AnnotationQueue> =>
      this.#http('POST', 'annotation-queues', { body: queue }),
    /** PUT /annotation-queues/{queue_id} */
    set: (queueId: string, queue: PutAnnotationQueueBody): Promise<AnnotationQueue> =>
      this.#http('PUT', `annotation-queues/${encodeURIComponent(queueId)}`, { body: queue }),
    /** DELETE /annotation-queues/{queue_id}: with its items. */
    delete: (queueId: string): Promise<void> =>
      this.#http('DELETE', `annotation-queues/${encodeURIComponent(queueId)}`),
    /** POST /annotation-queues/{queue_id}/next: the next trace, held for the annotator; null when none is left. */
    next: (queueId: string, body: NextAnnotationItemBody): Promise<AnnotationItem | null> =>
      this.#http('POST', `annotation-queues/${encodeURIComponent(queueId)}/next`, { body }),
    /** POST …/items/{trace_id}/done */
    done: (queueId: string, traceId: string, annotator: string): Promise<AnnotationItem> =>
      this.#http('POST', `annotation-queues/${encodeURIComponent(queueId)}/items/${encodeURIComponent(traceId)}/done`, {
        body: { annotator },
      }),
    /** POST …/items/{trace_id}/release: gives the trace back to the queue. */
    release: (queueId: string, traceId: string, annotator: string): Promise<AnnotationItem> =>
      this.#http(
        'POST',
        `annotation-queues/${encodeURIComponent(queueId)}/items/${encodeURIComponent(traceId)}/release`,
        { body: { annotator } },
      ),
  }

  /** Datasets: a project's cases (input, expected output), versioned, to run experiments over. */
  readonly datasets = {
    /** GET /datasets: name ascending. */
    list: (query: ListDatasetsQuery = {}): Promise<ListDatasetsResponse> => this.#http('GET', 'datasets', { query }),
    /** GET /datasets/{dataset_id} */
    get: (datasetId: string): Promise<Dataset> => this.#http('GET', `datasets/${encodeURIComponent(datasetId)}`),
    /** POST /datasets */
    create: (dataset: DatasetInput): Promise<Dataset> => this.#http('POST', 'datasets', { body: dataset }),
    /** PUT /datasets/{dataset_id}: its name, description and metadata. */
    set: (datasetId: string, body: PutDatasetBody): Promise<Dataset> =>
      this.#http('PUT', `datasets/${encodeURIComponent(datasetId)}`, { body }),
    /** DELETE /datasets/{dataset_id}: with its items and experiments. */
    delete: (datasetId: string): Promise<void> => this.#http('DELETE', `datasets/${encodeURIComponent(datasetId)}`),
    /**
     * The dataset of this id, or else the one of this name (GET /datasets?name=): a 404 LoupeError when none is, or
     * when several projects have a dataset of that name (then name it by its id).
     */
    find: async (idOrName: string): Promise<Dataset> => {
      try {
        return await this.datasets.get(idOrName)
      } catch (err) {
        if (!(err instanceof LoupeError) || err.status !== 404) throw err
      }
      const found = await this.datasets.list({ name: idOrName })
      const [only] = found.items
      if (!only || found.total > 1) {
        throw new LoupeError(
          found.total > 1
            ? `several datasets are named '${idOrName}': name it by its dataset_id`
            : `no dataset has the id or name '${idOrName}'`,
          { status: 404, url: new URL('datasets', this.baseUrl).href },
        )
      }
      return only
    },
    /** The items of a dataset. */
    items: {
      /** POST /datasets/{dataset_id}/items: one item or several, all or none. */
      add: (datasetId: string, items: DatasetItemInput | DatasetItemInput[]): Promise<AddDatasetItemsResponse> =>
        this.#http('POST', `datasets/${encodeURIComponent(datasetId)}/items`, {
          body: Array.isArray(items) ? { items } : items,
        }),
      /** GET /datasets/{dataset_id}/items: a page, now or `as_of` a time. */
      list: (datasetId: string, query: ListDatasetItemsQuery = {}): Promise<ListDatasetItemsResponse> =>
        this.#http('GET', `datasets/${encodeURIComponent(datasetId)}/items`, { query }),
      /** GET /datasets/{dataset_id}/items/{item_id} */
      get: (datasetId: string, itemId: string, query: { as_of?: string } = {}): Promise<DatasetItem> =>
        this.#http('GET', `datasets/${encodeURIComponent(datasetId)}/items/${encodeURIComponent(itemId)}`, { query }),
      /** GET /datasets/{dataset_id}/items/{item_id}/versions: oldest first. */
      versions: (datasetId: string, itemId: string): Promise<{ total: number; items: DatasetItem[] }> =>
        this.#http('GET', `datasets/${encodeURIComponent(datasetId)}/items/${encodeURIComponent(itemId)}/versions`),
      /** PUT /datasets/{dataset_id}/items/{item_id}: a new version. */
      set: (datasetId: string, itemId: string, item: DatasetItemInput): Promise<DatasetItem> =>
        this.#http('PUT', `datasets/${encodeURIComponent(datasetId)}/items/${encodeURIComponent(itemId)}`, {
          body: item,
        }),
      /** DELETE /datasets/{dataset_id}/items/{item_id}: archived (a new version), never lost. */
      archive: (datasetId: string, itemId: string): Promise<DatasetItem> =>
        this.#http('DELETE', `datasets/${encodeURIComponent(datasetId)}/items/${encodeURIComponent(itemId)}`),
      /** POST /datasets/{dataset_id}/items/from-traces: by `trace_ids` or a `filter` of GET /traces. */
      fromTraces: (datasetId: string, body: FromTracesBody): Promise<FromTracesResponse> =>
        this.#http('POST', `datasets/${encodeURIComponent(datasetId)}/items/from-traces`, { body, longRunning: true }),
      /** GET /datasets/{dataset_id}/items/export: JSONL or CSV, read as it arrives. */
      export: (datasetId: string, query: { format?: DatasetFormat; as_of?: string } = {}) =>
        this.#http.stream('GET', `datasets/${encodeURIComponent(datasetId)}/items/export`, { query }),
      /** POST /datasets/{dataset_id}/items/import: JSONL or CSV text, every line checked before any is added. */
      import: (datasetId: string, format: DatasetFormat, text: string): Promise<{ added: number }> =>
        this.#http('POST', `datasets/${encodeURIComponent(datasetId)}/items/import`, {
          text: { contentType: format === 'csv' ? 'text/csv' : 'application/x-ndjson', body: text },
          longRunning: true,
        }),
    },
  }

  /** Experiments: runs of a task over a dataset (their traces carry the experiment's id), and runs compared. */
  readonly experiments = {
    /** GET /experiments: newest first. */
    list: (query: ListExperimentsQuery = {}): Promise<ListExperimentsResponse> =>
      this.#http('GET', 'experiments', { query }),
    /** POST /experiments: fixes the dataset's version; its id goes on each run's trace. */
    create: (body: ExperimentInput): Promise<Experiment> => this.#http('POST', 'experiments', { body }),
    /** GET /experiments/{experiment_id}: item by item, and the aggregates. */
    get: (experimentId: string): Promise<ExperimentDetailResponse> =>
      this.#http('GET', `experiments/${encodeURIComponent(experimentId)}`),
    /** GET /experiments/compare: 2–3 runs side by side, the first the baseline. */
    compare: (experimentIds: string[]): Promise<CompareExperimentsResponse> =>
      this.#http('GET', 'experiments/compare', { query: { ids: experimentIds.join(',') } }),
  }

  /**
   * Runs `task` over a dataset as one experiment: each item inside a trace carrying the experiment's id and the
   * item's, scored by the local `evaluators`; waits for the server's evaluations of those traces, and answers the
   * experiment's results. A task that throws is a failed item. Needs a project API key (the runs are traces).
   */
  async runExperiment(options: RunExperimentOptions): Promise<ExperimentSummary> {
    if (!this.#sender) throw new TypeError('loupe: runExperiment needs a project API key (apiKey or LOUPE_API_KEY)')
    return runExperiment(
      {
        findDataset: (idOrName) => this.datasets.find(idOrName),
        createExperiment: (body) => this.experiments.create(body),
        items: async (datasetId, asOf) => {
          const all: DatasetItem[] = []
          let cursor: string | undefined
          do {
            const page = await this.datasets.items.list(datasetId, { as_of: asOf, limit: 1000, cursor })
            all.push(...page.items)
            cursor = page.next_cursor ?? undefined
          } while (cursor)
          return all
        },
        trace: (traceOptions, fn) => this.trace(traceOptions, fn),
        flush: () => this.flush(),
        getExperiment: (experimentId) => this.experiments.get(experimentId),
        warn: this.#warn,
      },
      options,
    )
  }

  /** Alert rules and the events they gave (rules are admin-only on a protected server). */
  readonly alerts = {
    /** GET /alerts/rules */
    list: (): Promise<ListAlertRulesResponse> => this.#http('GET', 'alerts/rules'),
    /** POST /alerts/rules */
    create: (rule: AlertRuleInput): Promise<AlertRule> => this.#http('POST', 'alerts/rules', { body: rule }),
    /** DELETE /alerts/rules/{rule_id} */
    delete: (ruleId: string): Promise<void> => this.#http('DELETE', `alerts/rules/${encodeURIComponent(ruleId)}`),
    /** GET /alerts/events: newest first. */
    events: (query: ListAlertEventsQuery = {}): Promise<ListAlertEventsResponse> =>
      this.#http('GET', 'alerts/events', { query }),
  }

  readonly apiKeys = {
    /** GET /api-keys: never the secrets. */
    list: (query: ListApiKeysParams = {}): Promise<ListApiKeysResponse> => this.#http('GET', 'api-keys', { query }),
    /** POST /api-keys: another key for a project — the only time it is shown. */
    create: (input: CreateApiKeyInput): Promise<ApiKeyCreated> => this.#http('POST', 'api-keys', { body: input }),
    /** DELETE /api-keys/{key_id}: the key is refused from now on. */
    revoke: (keyId: string): Promise<ApiKey> => this.#http('DELETE', `api-keys/${encodeURIComponent(keyId)}`),
  }

  /**
   * Follows the live stream (/ws): `onTrace` gets each trace as it is stored. Reconnects by itself; traces stored
   * while disconnected are not replayed. Close it with `.close()` (or `shutdown()`).
   */
  subscribe(onTrace: (trace: Trace) => void, options: SubscribeOptions = {}): Subscription {
    const url = new URL('ws', this.baseUrl)
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
    // A WebSocket handshake carries no Authorization header from every runtime: the server takes ?token= instead.
    if (this.#credential) url.searchParams.set('token', this.#credential)
    const subscription = openSubscription(url.href, onTrace, options, this.#warn)
    this.#subscriptions.add(subscription)
    return {
      opened: subscription.opened,
      close: () => {
        this.#subscriptions.delete(subscription)
        subscription.close()
      },
    }
  }

  #start(options: TraceOptions): TraceRecorder {
    try {
      return new TraceRecorder(options, uuidv7)
    } catch {
      return new TraceRecorder({}, uuidv7)
    }
  }

  #finish(recorder: TraceRecorder, outcome: { result?: unknown; error?: unknown; failed: boolean }): void {
    if (!this.#sender) {
      if (this.#recordsNothing === 'no-key') {
        this.#warn('no API key (pass apiKey or set LOUPE_API_KEY): traces are not recorded')
        this.#recordsNothing = 'disabled'
      }
      return
    }
    if (this.#closed) {
      if (!this.#warnedClosed) this.#warn('trace() after shutdown(): the trace is not recorded')
      this.#warnedClosed = true
      return
    }
    try {
      const record = recorder.end(outcome)
      const seq = this.#sender.enqueue(recorder.traceId, safeStringify(record))
      recorder.deliverScores((scores) => this.#sendTraceScores(recorder.traceId, seq, scores))
    } catch (err) {
      this.#warn(`could not record trace ${recorder.traceId}: ${(err as Error)?.message ?? String(err)}`)
    }
  }

  /** Node is about to exit with traces queued: deliver them, within flushTimeoutMs for this exit. */
  readonly #onBeforeExit = () => {
    const sender = this.#sender
    if (!sender || sender.pending === 0) {
      this.#exitDeadline = undefined
      return
    }
    this.#exitDeadline ??= Date.now() + this.#flushTimeoutMs
    const remaining = this.#exitDeadline - Date.now()
    if (remaining <= 0) {
      this.#warn(`exiting with ${sender.pending} trace(s) undelivered`)
      return
    }
    void sender.flush(remaining)
  }
}
