// The SDK covers the whole API: every operation of openapi.json is one call of `loupe/client`, which sends that
// operation's method to its path. The few operations it reaches another way are named, with the way.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { Loupe } from '../../src/client/index.js'

const openapi = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { operationId: string }>>
}
const operations = new Map<string, string>()
for (const [path, byMethod] of Object.entries(openapi.paths)) {
  for (const [method, op] of Object.entries(byMethod)) operations.set(op.operationId, `${method.toUpperCase()} ${path}`)
}

/** Operations the SDK reaches other than by one read call. */
const OTHERWISE: Record<string, string> = {
  createTrace: 'loupe.trace() records; the sender delivers through POST /traces/batch',
  createTraceBatch: 'loupe.trace() records; the sender delivers through POST /traces/batch',
  streamTraces: 'loupe.subscribe()',
  exportOtlpTraces: 'an OpenTelemetry exporter, not this SDK',
  exportOtlpTracesLangfusePath: "Langfuse's SDK, exporting where it is used to",
  exportOtlpLogs: 'an OpenTelemetry log exporter (GenAI message events), not this SDK',
  getRoot: 'a greeting for people who open the server in a browser',
  getMetrics: 'a Prometheus scrape, not a client',
}

const calls: Record<string, (l: Loupe) => Promise<unknown>> = {
  getHealth: (l) => l.health(),
  listTraces: (l) => l.listTraces(),
  deleteTraces: (l) => l.deleteTraces({ all: true }),
  exportTraces: (l) => l.exportTraces({ format: 'csv' }),
  deleteTrace: (l) => l.deleteTrace('t1'),
  getTrace: (l) => l.getTrace('t1'),
  getAnalytics: (l) => l.analytics(),
  getFailures: (l) => l.failures(),
  listModelPrices: (l) => l.costs.list(),
  getModelPrice: (l) => l.costs.get('gpt-*'),
  putModelPrice: (l) => l.costs.set('gpt-*', { input_price: 1, output_price: 2 }),
  deleteModelPrice: (l) => l.costs.remove('gpt-*'),
  recomputeCosts: (l) => l.costs.recompute(),
  createScore: (l) => l.score({ trace_id: 't1', name: 'thumbs', value: true }),
  createScoresBatch: (l) => l.scores.batch([{ trace_id: 't1', name: 'thumbs', value: true }]),
  listScores: (l) => l.scores.list({ name: 'thumbs' }),
  getScore: (l) => l.scores.get('sc1'),
  deleteScore: (l) => l.scores.delete('sc1'),
  listScoreConfigs: (l) => l.scores.configs.list(),
  getScoreConfig: (l) => l.scores.configs.get('stars'),
  createScoreConfig: (l) => l.scores.configs.create({ name: 'stars', data_type: 'numeric', min: 1, max: 5 }),
  putScoreConfig: (l) => l.scores.configs.set('stars', { data_type: 'numeric', min: 1, max: 5 }),
  deleteScoreConfig: (l) => l.scores.configs.delete('stars'),
  listSessions: (l) => l.sessions.list(),
  getSession: (l) => l.sessions.get('s1'),
  listUsers: (l) => l.users.list(),
  getUser: (l) => l.users.get('u1'),
  listProjects: (l) => l.projects.list(),
  createProject: (l) => l.projects.create({ name: 'P', environment: 'production' }),
  getProjectRetention: (l) => l.projects.retention('p1'),
  setProjectRetention: (l) => l.projects.setRetention('p1', { retention_days: 30, retention_max_traces: null }),
  deleteProject: (l) => l.projects.delete('p1'),
  listApiKeys: (l) => l.apiKeys.list(),
  createApiKey: (l) => l.apiKeys.create({ project_id: 'p1', environment: 'production' }),
  revokeApiKey: (l) => l.apiKeys.revoke('k1'),
  listEvaluators: (l) => l.evaluators.list(),
  getEvaluator: (l) => l.evaluators.get('e1'),
  createEvaluator: (l) =>
    l.evaluators.create({ name: 'j', score_name: 'json_valid', kind: 'json', config: { field: 'response' } }),
  putEvaluator: (l) =>
    l.evaluators.set('e1', { name: 'j', score_name: 'json_valid', kind: 'json', config: { field: 'response' } }),
  deleteEvaluator: (l) => l.evaluators.delete('e1'),
  testEvaluator: (l) =>
    l.evaluators.test({
      evaluator: { name: 'j', score_name: 'json_valid', kind: 'json', config: { field: 'response' } },
      trace_id: 't1',
    }),
  listJudgeTemplates: (l) => l.evaluators.templates(),
  startEvaluatorRun: (l) => l.evaluators.startRun('e1', { since: '2026-11-01' }),
  listEvaluatorRuns: (l) => l.evaluators.runs('e1'),
  getEvaluatorRun: (l) => l.evaluators.getRun('r1'),
  cancelEvaluatorRun: (l) => l.evaluators.cancelRun('r1'),
  listAnnotationQueues: (l) => l.annotationQueues.list(),
  getAnnotationQueue: (l) => l.annotationQueues.get('q1'),
  createAnnotationQueue: (l) =>
    l.annotationQueues.create({ name: 'Q', project_id: 'p1', filter: {}, score_names: ['helpfulness'] }),
  putAnnotationQueue: (l) => l.annotationQueues.set('q1', { name: 'Q', filter: {}, score_names: ['helpfulness'] }),
  deleteAnnotationQueue: (l) => l.annotationQueues.delete('q1'),
  nextAnnotationItem: (l) => l.annotationQueues.next('q1', { annotator: 'ana' }),
  markAnnotationItemDone: (l) => l.annotationQueues.done('q1', 't1', 'ana'),
  releaseAnnotationItem: (l) => l.annotationQueues.release('q1', 't1', 'ana'),
  listAlertRules: (l) => l.alerts.list(),
  createAlertRule: (l) =>
    l.alerts.create({
      name: 'A',
      metric: 'cost',
      window_minutes: 5,
      threshold: 1,
      destination: { type: 'webhook', url: 'https://h.example/x' },
    }),
  deleteAlertRule: (l) => l.alerts.delete('r1'),
  listAlertEvents: (l) => l.alerts.events(),
}

/** The OpenAPI path a request's URL is an instance of (`{…}` matches one segment). */
const matches = (template: string, path: string) =>
  new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(decodeURIComponent(path))

t.test('every operation of the API is a call of the SDK, or is named with the way it is reached', async (t) => {
  t.ok(operations.size > 30, `${operations.size} operations`)
  for (const id of operations.keys()) {
    t.ok(id in calls || id in OTHERWISE, `${id} is reached by the SDK`)
  }
  for (const id of Object.keys(calls)) t.ok(operations.has(id), `${id} is an operation of the API`)
})

t.test('each call sends its operation’s method to its path', async (t) => {
  for (const [id, call] of Object.entries(calls)) {
    let sent = ''
    const loupe = new Loupe({
      baseUrl: 'http://loupe.test',
      enabled: false,
      fetch: async (input, init) => {
        sent = `${init?.method} ${new URL(String(input)).pathname}`
        return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } })
      },
    })
    await call(loupe)
    const [method, template] = (operations.get(id) ?? '').split(' ') as [string, string]
    const [sentMethod, sentPath] = sent.split(' ') as [string, string]
    t.equal(sentMethod, method, `${id}: ${sent}`)
    t.ok(matches(template, sentPath), `${id}: ${sentPath} is ${template}`)
  }
})
