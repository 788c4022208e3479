// Prometheus metrics: one prom-client registry per app (two apps in one process never share a counter), the request
// hooks that time every answer, and the gauges read at scrape time from the store, the sockets and the OTLP spans.
// GET /metrics (src/routes/metrics.ts) serves what this registry holds.
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { Score } from '../../schemas/index.js'
import type { EvaluationOutcome } from '../evaluators/worker.js'
import type { IngestObserver } from '../ingest/service.js'
import type { StoreStats } from '../store/types.js'

/** Why an ingest request was refused before its traces were read (counted per request). */
const REFUSALS: Record<number, string> = {
  401: 'unauthorized',
  403: 'forbidden',
  413: 'too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'unavailable',
}

export interface LoupeMetrics {
  registry: Registry
  /** What the ingest service reports of each ingest. */
  ingest: IngestObserver
  /** Traces the retention job deleted. */
  retentionDeleted: Counter<'project_id' | 'reason'>
  /** Told of scores stored (a re-sent score already stored is not counted again). */
  scoresStored(scores: readonly Pick<Score, 'name' | 'source'>[]): void
  /** Told of each evaluation this process ran: its rule's name, what it came to, the judge's cost. */
  evaluated(rule: string, outcome: EvaluationOutcome, cost: number): void
}

/** Score names counted apart in /metrics; any further name counts as `_other`, so that no client can add series. */
const SCORE_NAME_SERIES = 200

declare module 'fastify' {
  interface FastifyInstance {
    metrics: LoupeMetrics
  }
}

/** A route's label: its pattern (`/traces/:trace_id`), never the raw URL, so that a scan cannot add series. */
const routeOf = (request: FastifyRequest) => request.routeOptions.url ?? 'unmatched'

export default fp(
  async (app) => {
    const registry = new Registry()
    collectDefaultMetrics({ register: registry, prefix: 'loupe_' })

    const labels = ['method', 'route', 'status'] as const
    const requests = new Counter({
      name: 'loupe_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code.',
      labelNames: labels,
      registers: [registry],
    })
    const duration = new Histogram({
      name: 'loupe_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method, route pattern and status code.',
      labelNames: labels,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    })
    const ingested = new Counter({
      name: 'loupe_traces_ingested_total',
      help: 'Traces stored (a re-sent trace already stored is not counted again).',
      registers: [registry],
    })
    const rejected = new Counter({
      name: 'loupe_traces_rejected_total',
      help:
        'Traces not stored, by reason: invalid and conflict count traces; unauthorized, forbidden, too_large, ' +
        'unsupported_media_type, rate_limited and unavailable count ingest requests refused as a whole.',
      labelNames: ['reason'],
      registers: [registry],
    })
    const retentionDeleted = new Counter({
      name: 'loupe_retention_deleted_traces_total',
      help: 'Traces deleted by the retention job, by project and reason (age or count).',
      labelNames: ['project_id', 'reason'],
      registers: [registry],
    })

    const scores = new Counter({
      name: 'loupe_scores_recorded_total',
      help:
        `Scores stored, by name and source (api, feedback, annotation, evaluator); past ${SCORE_NAME_SERIES} names, ` +
        'further names count as `_other`.',
      labelNames: ['name', 'source'],
      registers: [registry],
    })
    const scoreNames = new Set<string>()
    const scoresStored = (stored: readonly Pick<Score, 'name' | 'source'>[]) => {
      for (const { name, source } of stored) {
        if (!scoreNames.has(name) && scoreNames.size < SCORE_NAME_SERIES) scoreNames.add(name)
        scores.inc({ name: scoreNames.has(name) ? name : '_other', source })
      }
    }

    const evaluations = new Counter({
      name: 'loupe_evaluations_total',
      help:
        'Evaluations this process ran, by rule (its name) and outcome: scored, error (no verdict), retried (the ' +
        'judge could not be asked; the job waits), dropped (its trace or rule was gone).',
      labelNames: ['evaluator', 'outcome'],
      registers: [registry],
    })
    const judgeCost = new Counter({
      name: 'loupe_evaluator_judge_cost_usd_total',
      help: 'What the judge of llm_judge rules cost this process, in USD, by rule.',
      labelNames: ['evaluator'],
      registers: [registry],
    })
    const evaluated = (rule: string, outcome: EvaluationOutcome, cost: number) => {
      evaluations.inc({ evaluator: rule, outcome })
      if (cost > 0) judgeCost.inc({ evaluator: rule }, cost)
    }
    // Every replica's work, as the database keeps it: per rule, jobs waiting and evaluation errors so far.
    const ruleGauge = (name: string, help: string, figure: 'pending' | 'errors') =>
      new Gauge({
        name,
        help,
        labelNames: ['evaluator'],
        registers: [registry],
        async collect() {
          this.reset()
          const [rules, stats] = await Promise.all([app.store.evaluators.list(), app.store.evaluations.stats()])
          for (const rule of rules) this.set({ evaluator: rule.name }, stats.get(rule.evaluator_id)?.[figure] ?? 0)
        },
      })
    ruleGauge(
      'loupe_evaluation_jobs_pending',
      'Evaluations waiting to run, by rule (live traces and backfills).',
      'pending',
    )
    ruleGauge(
      'loupe_evaluator_errors',
      'Evaluations that gave no verdict, by rule, since the rule was made (every replica).',
      'errors',
    )

    new Gauge({
      name: 'loupe_otlp_spans_pending',
      help: 'OTLP spans (and GenAI log records) kept until their trace is stored.',
      registers: [registry],
      async collect() {
        const pending = await app.store.pending.listTraces()
        this.set(pending.reduce((n, t) => n + t.spans, 0))
      },
    })
    // The OTLP service counts them itself; exposed as a counter that follows it.
    new Counter({
      name: 'loupe_otlp_log_records_unmatched_total',
      help:
        'OTLP GenAI log records not folded into any span, by reason: no_span (the span they name never arrived ' +
        'within the pending window, or they named none), late (they came after their trace was stored).',
      labelNames: ['reason'],
      registers: [registry],
      collect() {
        this.reset()
        for (const [reason, n] of Object.entries(app.otlp.unmatchedLogRecords())) this.inc({ reason }, n)
      },
    })
    new Gauge({
      name: 'loupe_ws_connections',
      help: 'Open /ws connections.',
      registers: [registry],
      collect() {
        this.set(app.sockets.stats().connections)
      },
    })
    // The socket hub counts its drops itself; exposed as a counter that follows it.
    new Counter({
      name: 'loupe_ws_dropped_peers_total',
      help: '/ws peers dropped (dead, not reading, revoked, flooding).',
      registers: [registry],
      collect() {
        const dropped = app.sockets.stats().dropped
        this.reset()
        this.inc(dropped)
      },
    })
    new Gauge({
      name: 'loupe_ws_queued_bytes',
      help: 'Bytes of /ws frames not yet handed to every peer.',
      registers: [registry],
      collect() {
        this.set(app.sockets.stats().queuedBytes)
      },
    })
    new Gauge({
      name: 'loupe_store_write_failing',
      help:
        'Whether writes fail because the database is full or read-only (1 for the reason that holds), until one ' +
        'succeeds again: what GET /health answers 503 for.',
      labelNames: ['reason'],
      registers: [registry],
      async collect() {
        const state = await app.storeWrites.check()
        for (const reason of ['full', 'read_only'] as const) this.set({ reason }, state === reason ? 1 : 0)
      },
    })
    // One store read per scrape serves both gauges.
    let storeStats: Promise<StoreStats> | null = null
    const readStats = () => {
      storeStats ??= app.store.stats().finally(() => {
        setImmediate(() => {
          storeStats = null
        })
      })
      return storeStats
    }
    new Gauge({
      name: 'loupe_store_traces',
      help: 'Traces stored.',
      registers: [registry],
      async collect() {
        this.set((await readStats()).traces)
      },
    })
    new Gauge({
      name: 'loupe_store_size_bytes',
      help: 'Bytes the database takes (SQLite: the main file; PostgreSQL: the tables and indexes of its schema).',
      registers: [registry],
      async collect() {
        this.set((await readStats()).bytes)
      },
    })
    // The store counts them itself (this app's instance only); exposed as a counter that follows it.
    new Counter({
      name: 'loupe_search_full_counts_total',
      help: 'Searches whose exact total was counted in full, no count kept by this instance being usable.',
      registers: [registry],
      async collect() {
        const full = (await readStats()).search_full_counts
        this.reset()
        this.inc(full)
      },
    })

    app.decorate('metrics', {
      registry,
      retentionDeleted,
      scoresStored,
      evaluated,
      ingest: {
        stored: (count: number) => ingested.inc(count),
        rejected: (reason: string, count: number) => rejected.inc({ reason }, count),
      },
    } satisfies LoupeMetrics)

    // Fastify's callback form: every answer passes here, and an async hook would cost each one a promise and a tick.
    app.addHook('onResponse', (request, reply, done) => {
      const status = reply.statusCode
      const route = routeOf(request)
      const values = { method: request.method, route, status: String(status) }
      requests.inc(values)
      duration.observe(values, reply.elapsedTime / 1000)
      const refusal = REFUSALS[status]
      if (refusal && request.routeOptions.config?.access === 'ingest') rejected.inc({ reason: refusal })
      done()
    })
  },
  { name: 'loupe-metrics', dependencies: ['loupe-config'] },
)
