// The services routes call: ingest (the one road of a trace), scores (the one road of a score), annotation queues, trace reads (filters and cursors), prices (overrides, re-pricing), OTLP (spans waiting for
// their trace, and the timer that stores them) and projects/keys; the event hub they share, fed by this replica's
// ingest and by the store with what other replicas store; and the live stream's sockets, which the hub feeds.
import fp from 'fastify-plugin'
import { createBackfill } from '../evaluators/backfill.js'
import { evaluateDepsOf } from '../evaluators/evaluate.js'
import { createEvaluationWorker, type EvaluationWorker } from '../evaluators/worker.js'
import { createEventHub, type EventHub } from '../events/hub.js'
import { createSocketHub, type SocketHub } from '../events/sockets.js'
import { createRedactor } from '../ingest/redact.js'
import { createIngestService, type IngestService } from '../ingest/service.js'
import { createOtlpService, type OtlpService } from '../otlp/service.js'
import { type AlertService, createAlertService } from '../services/alerts.js'
import { type AnnotationService, createAnnotationService } from '../services/annotation.js'
import { createDatasetService, type DatasetService } from '../services/datasets.js'
import { createDeletionService, type DeletionService } from '../services/deletion.js'
import { createEvaluatorService, type EvaluatorService } from '../services/evaluators.js'
import { createExperimentService, type ExperimentService } from '../services/experiments.js'
import { createPriceService, type PriceService } from '../services/prices.js'
import { createProjectService, type ProjectService } from '../services/projects.js'
import { createRetentionService, type RetentionService } from '../services/retention.js'
import { createScoreService, type ScoreService } from '../services/scores.js'
import { createTraceService, type TraceService } from '../services/traces.js'

declare module 'fastify' {
  interface FastifyInstance {
    hub: EventHub
    sockets: SocketHub
    ingest: IngestService
    traces: TraceService
    prices: PriceService
    otlp: OtlpService
    projects: ProjectService
    deletion: DeletionService
    retention: RetentionService
    alerts: AlertService
    scores: ScoreService
    evaluators: EvaluatorService
    evaluationWorker: EvaluationWorker
    annotation: AnnotationService
    datasets: DatasetService
    experiments: ExperimentService
  }
}

export default fp(
  async (app) => {
    // Redaction runs on the one ingest road, and on OTLP spans before they are kept pending.
    const redact = createRedactor({
      detectors: app.config.redactDetectors,
      patterns: app.config.redactPatterns,
    })
    const hub = createEventHub((err) => app.log.error({ err }, 'event listener failed'))
    app.decorate('hub', hub)
    const prices = createPriceService(app.store, app.now)
    app.decorate('prices', prices)
    const scores = createScoreService({
      store: app.store,
      hub,
      validators: app.validators,
      now: app.now,
      onStored: app.metrics.scoresStored,
    })
    app.decorate('scores', scores)
    const traces = createTraceService(app.store.traces, app.store.scores)
    app.decorate('traces', traces)
    const datasets = createDatasetService({ store: app.store, validators: app.validators, now: app.now })
    app.decorate('datasets', datasets)
    // Experiments wait for the evaluations of their traces; a judge reads an experiment trace's expected output.
    const experiments = createExperimentService({
      store: app.store,
      datasets,
      now: app.now,
      pendingEvaluations: (e) => app.store.evaluations.pendingOfExperiment(e.experiment_id, e.project_id),
    })
    app.decorate('experiments', experiments)
    // Evaluator rules, and the worker that runs them on stored traces (and on past ones, in backfill runs).
    let backfillPoke = () => {}
    const evaluators = createEvaluatorService({
      store: app.store,
      validators: app.validators,
      config: app.config,
      now: app.now,
      runCreated: () => backfillPoke(),
      expected: experiments.expectedOutput,
    })
    app.decorate('evaluators', evaluators)
    const worker = createEvaluationWorker({
      store: app.store,
      scores,
      rule: evaluators.rule,
      rules: evaluators.rules,
      expected: experiments.expectedOutput,
      evaluate: evaluateDepsOf(app.config, { transportAttempts: 2, maxWaitMs: 10_000 }),
      pricer: prices.pricer,
      concurrency: app.config.evaluatorConcurrency,
      judgePerMinute: app.config.evaluatorJudgePerMinute,
      soleWorker: app.store.dialect === 'sqlite',
      now: app.now,
      onOutcome: app.metrics.evaluated,
      log: app.log,
    })
    app.decorate('evaluationWorker', worker)
    const backfill = createBackfill({
      store: app.store,
      traces,
      enqueued: () => worker.poke(),
      now: app.now,
      log: app.log,
    })
    backfillPoke = () => backfill.poke()
    app.addHook('onReady', async () => {
      await worker.start()
      backfill.start()
    })
    app.addHook('onClose', async () => {
      await backfill.stop()
      await worker.stop()
    })
    const ingest = createIngestService({
      store: app.store,
      hub,
      scores,
      prices,
      validators: app.validators,
      now: app.now,
      observer: app.metrics.ingest,
      redact,
      evaluations: { rules: evaluators.rules, queued: () => worker.poke() },
    })
    app.decorate('ingest', ingest)
    app.decorate('annotation', createAnnotationService({ store: app.store, now: app.now }))
    const otlp = createOtlpService({
      store: app.store,
      ingest,
      scores,
      log: app.log,
      now: app.now,
      rootGraceMs: app.config.otlpRootGraceMs,
      rootlessWaitMs: app.config.otlpRootlessWaitMs,
      redact,
    })
    app.decorate('otlp', otlp)
    // Spans left pending by a previous run are stored once they are due; the timer stops before the store closes.
    app.addHook('onReady', () => otlp.start())
    app.addHook('onClose', () => otlp.stop())
    app.decorate('projects', createProjectService(app.store, app.now))
    const deletion = createDeletionService({ store: app.store, hub, now: app.now })
    app.decorate('deletion', deletion)
    const retention = createRetentionService({
      store: app.store,
      deletion,
      defaults: app.config,
      intervalMs: app.config.retentionIntervalMs,
      now: app.now,
      onDeleted: (report) => {
        app.metrics.retentionDeleted.inc({ project_id: report.project_id, reason: report.reason }, report.deleted)
        app.log.info(report, 'retention: deleted traces')
      },
      onError: (err) => app.log.error({ err }, 'retention: a pass failed; the next one tries again'),
    })
    app.decorate('retention', retention)
    const alerts = createAlertService({
      store: app.store,
      now: app.now,
      intervalMs: app.config.alertIntervalMs,
      slowThresholdMs: app.config.slowThresholdMs,
      attempts: app.config.alertDeliveryAttempts,
      retryBaseMs: app.config.alertRetryBaseMs,
      timeoutMs: 10_000,
      log: app.log,
    })
    app.decorate('alerts', alerts)
    app.addHook('onReady', () => alerts.start())
    app.addHook('onClose', () => alerts.stop())
    app.addHook('onReady', async () => retention.start())
    app.addHook('onClose', () => retention.stop())
    const sockets = createSocketHub({
      maxBufferBytes: app.config.wsMaxBufferBytes,
      heartbeatMs: app.config.wsHeartbeatMs,
      maxFramesPerSecond: app.config.wsMaxFramesPerSecond,
      isKeyLive: async (keyHash) => (await app.store.projects.findApiKey(keyHash)) !== null,
    })
    app.decorate('sockets', sockets)
    const unsubscribeCreated = hub.subscribe((traces) => sockets.publish(traces))
    const unsubscribeDeleted = hub.subscribeDeleted((deleted) => sockets.publishDeleted(deleted))
    const unsubscribeScores = hub.subscribeScores((type, scores) => sockets.publishScores(type, scores))
    const unsubscribe = () => {
      unsubscribeCreated()
      unsubscribeDeleted()
      unsubscribeScores()
    }
    app.addHook('onClose', async () => {
      unsubscribe()
      sockets.close()
    })
    // Replicas on one database: what another replica stores reaches this replica's /ws clients through the hub too.
    const stopFollowing = await app.store.followReplicas((traces) => hub.publish(traces))
    app.addHook('onClose', async () => {
      await stopFollowing()
    })
  },
  { name: 'loupe-services', dependencies: ['loupe-config', 'loupe-store', 'loupe-metrics'] },
)
