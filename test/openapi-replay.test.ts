// The served API and its OpenAPI document cannot drift apart: answers of every operation (successes and the errors
// the plugins give) are recorded from a real app and validated against the document's response schema for their
// status; an answer whose status the document does not list fails. In the other direction, every route the app
// serves is in the document and every operation of the document was exercised here.
import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { Ajv } from 'ajv'
import t, { type Test } from 'tap'
import { otlpLogsRequestExample, otlpRequestExample, traceInputExample } from '../schemas/examples.js'
import { buildTestApp, createProject } from './helper.js'

type Operation = { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }
const doc = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>
}

// The document as one schema, so `#/components/schemas/…` references resolve against it.
const ajv = new Ajv({ strict: false, allErrors: true })
ajv.addSchema(doc, 'openapi')
const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')

/** The document's entry for `status` of an operation: the exact code, else its range (`4XX`), else `default`. */
function documentedResponse(path: string, method: string, status: number): string | null {
  const responses = doc.paths[path]?.[method]?.responses ?? {}
  for (const code of [String(status), `${String(status)[0]}XX`, 'default']) if (responses[code]) return code
  return null
}

interface Recorded {
  path: string
  method: string
  status: number
  contentType: string
  body: string
}

const seen = new Set<string>()

function check(t: Test, r: Recorded) {
  const code = documentedResponse(r.path, r.method, r.status)
  t.ok(code, `${r.method.toUpperCase()} ${r.path} → ${r.status} is documented`)
  if (!code) return
  seen.add(`${r.method} ${r.path}`)
  const media = doc.paths[r.path]?.[r.method]?.responses[code]?.content
  if (!media) return
  if (!r.contentType.startsWith('application/json')) return // protobuf answers are checked by the OTLP tests
  const ref = `openapi#/${pointer('paths', r.path, r.method, 'responses', code, 'content')}/${pointer(
    Object.keys(media).includes('application/json') ? 'application/json' : (Object.keys(media)[0] ?? ''),
  )}/schema`
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref })
  const ok = validate(JSON.parse(r.body))
  t.ok(ok, `${r.method.toUpperCase()} ${r.path} → ${r.status} matches the document`, {
    errors: validate.errors,
    body: r.body.slice(0, 400),
  })
}

/**
 * The routes an app serves, as `method path` in the document's spelling (`{id}` for `:id`), from Fastify's route
 * tree (`printRoutes`: one node a line, four characters a level); HEAD, the CORS preflight, /docs and /mcp aside.
 */
function servedRoutes(printed: string): string[] {
  const out: string[] = []
  const stack: string[] = []
  for (const line of printed.split('\n')) {
    const match = /^(.*?)[├└]── (.*) \(([^)]*)\)$/.exec(line)
    if (!match) continue
    const depth = [...(match[1] ?? '')].length / 4
    stack[depth] = match[2] ?? ''
    stack.length = depth + 1
    const path = stack.join('').replace(/:(\w+)/g, '{$1}')
    // The API docs and the viewer's files (/ui, /ui/*) are pages, not operations of the API; /mcp speaks JSON-RPC,
    // the Model Context Protocol's (docs/api.md, MCP).
    if (path.startsWith('/docs') || path === '/ui' || path.includes('*') || path === '/mcp') continue
    for (const method of (match[3] ?? '').split(', '))
      if (method !== 'HEAD') out.push(`${method.toLowerCase()} ${path}`)
  }
  return out
}

t.test('every answer matches the document, and every operation is exercised', async (t) => {
  const adminToken = 'replay-admin-token-0123456789'
  const open = await buildTestApp(t)
  const guarded = await buildTestApp(t, { config: { adminToken, ingestRateLimit: 3 } })

  const record = async (
    app: typeof open,
    method: string,
    path: string,
    url: string,
    options: { headers?: Record<string, string>; payload?: unknown } = {},
  ) => {
    const res = await app.inject({ method: method.toUpperCase() as 'GET', url, ...options } as never)
    check(t, {
      path,
      method,
      status: res.statusCode,
      contentType: String(res.headers['content-type'] ?? ''),
      body: res.body,
    })
    return res
  }

  const { project_id, key, key_id } = await createProject(open, 'Replay', 'production')
  const auth = { authorization: `Bearer ${key}` }
  const json = { ...auth, 'content-type': 'application/json' }
  const example = traceInputExample
  await record(open, 'get', '/', '/')
  await record(open, 'get', '/health', '/health')
  await record(open, 'post', '/traces', '/traces', { headers: json, payload: example })
  await record(open, 'post', '/traces', '/traces', { headers: json, payload: example }) // idempotent re-send
  await record(open, 'post', '/traces', '/traces', { headers: json, payload: { prompt: 1 } })
  await record(open, 'post', '/traces', '/traces', { payload: { prompt: 'no key' } })
  await record(open, 'post', '/traces', '/traces', { headers: { ...auth, 'content-type': 'text/plain' }, payload: 'x' })
  await record(open, 'post', '/traces/batch', '/traces/batch', {
    headers: json,
    payload: { traces: [{ prompt: 'a', steps: [{ type: 'tool', tool: 'x', error: 'boom' }] }, { prompt: 2 }] },
  })
  await record(open, 'post', '/traces/batch', '/traces/batch', { headers: json, payload: { traces: [] } })
  await record(open, 'get', '/traces', '/traces')
  await record(open, 'get', '/traces', `/traces?project_id=${project_id}&status=failed&limit=5`)
  await record(open, 'get', '/traces', '/traces?limit=0')
  await record(open, 'get', '/traces/export', '/traces/export')
  await record(open, 'get', '/traces/export', `/traces/export?format=csv&project_id=${project_id}`)
  await record(open, 'get', '/traces/export', '/traces/export?format=xml')
  await record(open, 'get', '/traces', '/traces?fields=summary')
  await record(open, 'get', '/traces/{trace_id}', `/traces/${example.trace_id}`)
  await record(open, 'get', '/traces/{trace_id}', '/traces/none-such')
  await record(open, 'get', '/analytics', '/analytics')
  await record(open, 'get', '/analytics', `/analytics?project_id=${project_id}`)
  await record(open, 'get', '/failures', '/failures')
  await record(open, 'get', '/failures', '/failures?limit=abc')
  await record(open, 'get', '/projects', '/projects')
  await record(open, 'post', '/projects', '/projects?name=Replay&environment=production')
  await record(open, 'post', '/projects', '/projects', { headers: { 'content-type': 'application/json' }, payload: {} })
  await record(open, 'get', '/api-keys', '/api-keys')
  await record(open, 'post', '/api-keys', `/api-keys?project_id=${project_id}&environment=staging`)
  await record(open, 'post', '/api-keys', '/api-keys?project_id=none-such&environment=staging')
  await record(open, 'delete', '/api-keys/{key_id}', '/api-keys/none-such')
  await record(open, 'get', '/ws', '/ws')
  await record(open, 'get', '/metrics', '/metrics')
  // Prices, re-pricing, sessions and users.
  await record(open, 'put', '/models/{pattern}', '/models/gpt-4o*', {
    headers: { 'content-type': 'application/json' },
    payload: { input_price: 2.5, output_price: 10 },
  })
  await record(open, 'put', '/models/{pattern}', '/models/x', {
    headers: { 'content-type': 'application/json' },
    payload: { input_price: -1, output_price: 1 },
  })
  await record(open, 'get', '/models', '/models')
  await record(open, 'get', '/models/{pattern}', '/models/gpt-4o*')
  await record(open, 'get', '/models/{pattern}', '/models/none-such')
  await record(open, 'post', '/costs/recompute', '/costs/recompute', {
    headers: { 'content-type': 'application/json' },
    payload: {},
  })
  await record(open, 'delete', '/models/{pattern}', '/models/gpt-4o*')
  await record(open, 'delete', '/models/{pattern}', '/models/gpt-4o*')
  await record(open, 'get', '/sessions', '/sessions')
  await record(open, 'get', '/sessions/{session_id}', `/sessions/${example.session_id}`)
  await record(open, 'get', '/sessions/{session_id}', '/sessions/none-such')
  await record(open, 'get', '/users', '/users?limit=5')
  await record(open, 'get', '/users/{user_id}', `/users/${example.user_id}`)
  await record(open, 'get', '/users/{user_id}', '/users/none-such')
  await record(open, 'get', '/traces', '/traces?sort=cost&order=asc&q=capital&limit=1')
  await record(open, 'get', '/traces', '/traces?q=')
  const otlp = otlpRequestExample
  await record(open, 'post', '/v1/traces', '/v1/traces', { headers: json, payload: otlp })
  await record(open, 'post', '/v1/traces', '/v1/traces', {
    headers: { ...json, 'content-encoding': 'gzip' },
    payload: gzipSync(JSON.stringify(otlp)),
  })
  await record(open, 'post', '/v1/traces', '/v1/traces', {
    headers: { 'content-type': 'application/json' },
    payload: otlp,
  })
  const basic = `Basic ${Buffer.from(`pk-lf-1:${key}`).toString('base64')}`
  await record(open, 'post', '/api/public/otel/v1/traces', '/api/public/otel/v1/traces', {
    headers: { 'content-type': 'application/json', authorization: basic },
    payload: otlp,
  })
  await record(open, 'post', '/v1/logs', '/v1/logs', { headers: json, payload: otlpLogsRequestExample })
  await record(open, 'delete', '/api-keys/{key_id}', `/api-keys/${key_id}`)
  await record(open, 'delete', '/traces', '/traces')
  await record(open, 'delete', '/traces', '/traces?status=failed&model=none-such')
  await record(open, 'delete', '/traces/{trace_id}', `/traces/${example.trace_id}`)
  await record(open, 'delete', '/traces/{trace_id}', `/traces/${example.trace_id}`)
  await record(open, 'get', '/projects/{project_id}/retention', `/projects/${project_id}/retention`)
  await record(open, 'get', '/projects/{project_id}/retention', '/projects/none-such/retention')
  await record(open, 'put', '/projects/{project_id}/retention', `/projects/${project_id}/retention`, {
    headers: { 'content-type': 'application/json' },
    payload: { retention_days: 30, retention_max_traces: null },
  })
  await record(open, 'put', '/projects/{project_id}/retention', `/projects/${project_id}/retention`, {
    headers: { 'content-type': 'application/json' },
    payload: { retention_days: 'soon' },
  })
  const jsonHeaders = { 'content-type': 'application/json' }
  const alert = await record(open, 'post', '/alerts/rules', '/alerts/rules', {
    headers: jsonHeaders,
    payload: {
      name: 'Replay',
      metric: 'trace_count',
      window_minutes: 5,
      threshold: 0,
      destination: { type: 'webhook', url: 'http://127.0.0.1:9/never', secret: 'replay-secret-0123456789' },
    },
  })
  await record(open, 'post', '/alerts/rules', '/alerts/rules', { headers: jsonHeaders, payload: { name: 'x' } })
  await record(open, 'post', '/alerts/rules', '/alerts/rules', {
    headers: jsonHeaders,
    payload: {
      name: 'Nowhere',
      project_id: 'none-such',
      metric: 'trace_count',
      window_minutes: 5,
      threshold: 0,
      destination: { type: 'slack', url: 'http://127.0.0.1:9/never' },
    },
  })
  await record(open, 'get', '/alerts/rules', '/alerts/rules')
  await open.alerts.evaluate()
  await record(open, 'get', '/alerts/events', '/alerts/events')
  await record(open, 'get', '/alerts/events', '/alerts/events?limit=0')
  await record(open, 'delete', '/alerts/rules/{rule_id}', `/alerts/rules/${alert.json().rule_id}`)
  await record(open, 'delete', '/alerts/rules/{rule_id}', `/alerts/rules/${alert.json().rule_id}`)
  // Annotation queues: a queue over the project's traces, walked once, and its errors.
  const annotated = await createProject(open, 'Annotated', 'production')
  const annotatedTrace = await open.inject({
    method: 'POST',
    url: '/traces',
    headers: { authorization: `Bearer ${annotated.key}` },
    payload: { prompt: 'to annotate', steps: [{ tool: 'search' }] },
  })
  // Score configs and scores, with their errors.
  await record(open, 'post', '/score-configs', '/score-configs', {
    headers: jsonHeaders,
    payload: { name: 'replayed', data_type: 'boolean', description: 'replayed' },
  })
  await record(open, 'post', '/score-configs', '/score-configs', {
    headers: jsonHeaders,
    payload: { name: 'replayed', data_type: 'boolean' },
  })
  await record(open, 'put', '/score-configs/{name}', '/score-configs/tone', {
    headers: jsonHeaders,
    payload: { data_type: 'categorical', categories: ['rude', 'kind'] },
  })
  await record(open, 'put', '/score-configs/{name}', '/score-configs/tone', {
    headers: jsonHeaders,
    payload: { data_type: 'numeric', min: 2, max: 1 },
  })
  await record(open, 'get', '/score-configs', '/score-configs')
  await record(open, 'get', '/score-configs/{name}', '/score-configs/tone')
  await record(open, 'get', '/score-configs/{name}', '/score-configs/none-such')
  const scoredTraceId = annotatedTrace.json().trace_id as string
  const scored = await record(open, 'post', '/scores', '/scores', {
    headers: jsonHeaders,
    payload: { trace_id: scoredTraceId, name: 'tone', value: 'kind', step_index: 0, comment: 'replayed' },
  })
  await record(open, 'post', '/scores', '/scores', {
    headers: jsonHeaders,
    payload: {
      score_id: scored.json().score_id,
      trace_id: scoredTraceId,
      name: 'tone',
      value: 'kind',
      step_index: 0,
      comment: 'replayed',
    },
  })
  await record(open, 'post', '/scores', '/scores', {
    headers: jsonHeaders,
    payload: { trace_id: 'none-such', name: 'tone', value: 'kind' },
  })
  await record(open, 'post', '/scores', '/scores', {
    headers: jsonHeaders,
    payload: { trace_id: scoredTraceId, name: 'tone', value: 'sarcastic' },
  })
  await record(open, 'post', '/scores', '/scores', {
    headers: jsonHeaders,
    payload: { score_id: scored.json().score_id, trace_id: scoredTraceId, name: 'tone', value: 'rude' },
  })
  await record(open, 'post', '/scores/batch', '/scores/batch', {
    headers: jsonHeaders,
    payload: { scores: [{ trace_id: scoredTraceId, name: 'replayed', value: true }, { name: 'x' }] },
  })
  await record(open, 'post', '/scores/batch', '/scores/batch', { headers: jsonHeaders, payload: { scores: [] } })
  await record(open, 'get', '/scores', `/scores?trace_id=${scoredTraceId}&limit=1`)
  await record(open, 'get', '/scores', '/scores?cursor=nonsense')
  await record(open, 'get', '/scores/{score_id}', `/scores/${scored.json().score_id}`)
  await record(open, 'get', '/scores/{score_id}', '/scores/none-such')
  await record(open, 'delete', '/scores/{score_id}', `/scores/${scored.json().score_id}`)
  await record(open, 'delete', '/scores/{score_id}', `/scores/${scored.json().score_id}`)
  await record(open, 'delete', '/score-configs/{name}', '/score-configs/tone')
  await record(open, 'delete', '/score-configs/{name}', '/score-configs/tone')
  // Evaluators: a rule kept, tried on a trace, replaced and deleted, with their errors.
  const evaluatorRule = { name: 'replayed', score_name: 'json_valid', kind: 'json', config: { field: 'response' } }
  const evaluator = await record(open, 'post', '/evaluators', '/evaluators', {
    headers: jsonHeaders,
    payload: evaluatorRule,
  })
  await record(open, 'post', '/evaluators', '/evaluators', {
    headers: jsonHeaders,
    payload: { ...evaluatorRule, filter: { nope: 1 } },
  })
  const evaluatorPath = `/evaluators/${evaluator.json().evaluator_id}`
  await record(open, 'get', '/evaluators', '/evaluators')
  await record(open, 'get', '/evaluators/{evaluator_id}', evaluatorPath)
  await record(open, 'get', '/evaluators/{evaluator_id}', '/evaluators/none-such')
  await record(open, 'put', '/evaluators/{evaluator_id}', evaluatorPath, {
    headers: jsonHeaders,
    payload: { ...evaluatorRule, enabled: false },
  })
  await record(open, 'put', '/evaluators/{evaluator_id}', '/evaluators/new-one', {
    headers: jsonHeaders,
    payload: evaluatorRule,
  })
  await record(open, 'post', '/evaluators/test', '/evaluators/test', {
    headers: jsonHeaders,
    payload: { evaluator: evaluatorRule, trace_id: scoredTraceId },
  })
  await record(open, 'post', '/evaluators/test', '/evaluators/test', {
    headers: jsonHeaders,
    payload: { evaluator: evaluatorRule, trace_id: 'none-such' },
  })
  await record(open, 'get', '/evaluators/templates', '/evaluators/templates')
  const run = await record(open, 'post', '/evaluators/{evaluator_id}/runs', `${evaluatorPath}/runs`, {
    headers: jsonHeaders,
    payload: { since: '2026-11-01T00:00:00Z' },
  })
  await record(open, 'post', '/evaluators/{evaluator_id}/runs', `${evaluatorPath}/runs`, {
    headers: jsonHeaders,
    payload: { since: 'yesterday' },
  })
  await record(open, 'get', '/evaluators/{evaluator_id}/runs', `${evaluatorPath}/runs`)
  await record(open, 'get', '/evaluator-runs/{run_id}', `/evaluator-runs/${run.json().run_id}`)
  await record(open, 'get', '/evaluator-runs/{run_id}', '/evaluator-runs/none-such')
  await record(open, 'delete', '/evaluator-runs/{run_id}', `/evaluator-runs/${run.json().run_id}`)
  await record(open, 'delete', '/evaluators/{evaluator_id}', evaluatorPath)
  await record(open, 'delete', '/evaluators/{evaluator_id}', evaluatorPath)
  const queue = await record(open, 'post', '/annotation-queues', '/annotation-queues', {
    headers: jsonHeaders,
    payload: { name: 'Replay', project_id: annotated.project_id, score_names: ['replayed'] },
  })
  await record(open, 'post', '/annotation-queues', '/annotation-queues', {
    headers: jsonHeaders,
    payload: { name: 'Replay', project_id: annotated.project_id, score_names: ['none-such'] },
  })
  const queuePath = `/annotation-queues/${queue.json().queue_id}`
  await record(open, 'get', '/annotation-queues', '/annotation-queues')
  await record(open, 'get', '/annotation-queues/{queue_id}', queuePath)
  await record(open, 'get', '/annotation-queues/{queue_id}', '/annotation-queues/none-such')
  await record(open, 'put', '/annotation-queues/{queue_id}', queuePath, {
    headers: jsonHeaders,
    payload: { name: 'Replayed', filter: { q: 'annotate' }, score_names: ['replayed'] },
  })
  const held = await record(open, 'post', '/annotation-queues/{queue_id}/next', `${queuePath}/next`, {
    headers: jsonHeaders,
    payload: { annotator: 'ana' },
  })
  const itemPath = `${queuePath}/items/${held.json().trace_id}`
  await record(open, 'post', '/annotation-queues/{queue_id}/items/{trace_id}/release', `${itemPath}/release`, {
    headers: jsonHeaders,
    payload: { annotator: 'ana' },
  })
  await record(open, 'post', '/annotation-queues/{queue_id}/items/{trace_id}/done', `${itemPath}/done`, {
    headers: jsonHeaders,
    payload: { annotator: 'ana' },
  })
  await record(open, 'post', '/annotation-queues/{queue_id}/items/{trace_id}/done', `${queuePath}/items/x/done`, {
    headers: jsonHeaders,
    payload: { annotator: 'ana' },
  })
  await record(open, 'post', '/annotation-queues/{queue_id}/next', `${queuePath}/next`, {
    headers: jsonHeaders,
    payload: { annotator: '' },
  })
  await record(open, 'delete', '/annotation-queues/{queue_id}', queuePath)
  await record(open, 'delete', '/annotation-queues/{queue_id}', queuePath)
  const doomed = await createProject(open, 'Doomed', 'production')
  await record(open, 'delete', '/projects/{project_id}', `/projects/${doomed.project_id}`)
  await record(open, 'delete', '/projects/{project_id}', `/projects/${doomed.project_id}`)

  // Protected mode: the refusals, and the per-key ingest limit.
  const admin = { authorization: `Bearer ${adminToken}` }
  const g = await createProject(guarded, 'Guarded', 'production', adminToken)
  const other = await createProject(guarded, 'Other', 'production', adminToken)
  await record(guarded, 'get', '/traces', '/traces')
  await record(guarded, 'get', '/traces', '/traces', { headers: { authorization: 'Bearer wrong' } })
  await record(guarded, 'get', '/traces', `/traces?project_id=${other.project_id}`, {
    headers: { authorization: `Bearer ${g.key}` },
  })
  await record(guarded, 'get', '/projects', '/projects', { headers: admin })
  await record(guarded, 'post', '/projects', '/projects?name=Nope&environment=production', {
    headers: { authorization: `Bearer ${g.key}` },
  })
  await record(guarded, 'post', '/traces', '/traces', {
    headers: { ...admin, 'content-type': 'application/json' },
    payload: example,
  })
  for (let i = 0; i < 5; i++) {
    await record(guarded, 'post', '/traces', '/traces', {
      headers: { authorization: `Bearer ${g.key}`, 'content-type': 'application/json' },
      payload: { prompt: `limited ${i}` },
    })
  }
  await record(guarded, 'get', '/ws', '/ws')
  await record(guarded, 'get', '/metrics', '/metrics')
  await record(guarded, 'delete', '/traces', `/traces?project_id=${other.project_id}`, {
    headers: { authorization: `Bearer ${g.key}` },
  })
  await record(guarded, 'delete', '/projects/{project_id}', `/projects/${g.project_id}`, {
    headers: { authorization: `Bearer ${g.key}` },
  })
  await record(guarded, 'get', '/metrics', '/metrics', { headers: { authorization: `Bearer ${g.key}` } })

  // The store gone: readiness and reads answer 503.
  const down = Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' })
  open.store.ping = async () => {
    throw down
  }
  open.store.traces.list = async () => {
    throw down
  }
  await record(open, 'get', '/health', '/health')
  await record(open, 'get', '/traces', '/traces')

  // In the other direction: every operation of the document was exercised, and every served route is documented.
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const method of Object.keys(operations)) t.ok(seen.has(`${method} ${path}`), `${method} ${path} replayed`)
  }
  const served = servedRoutes(open.printRoutes({ commonPrefix: false }))
  t.ok(served.length >= Object.keys(doc.paths).length, 'the served routes were read')
  for (const route of served) {
    const [method = '', path = ''] = route.split(' ')
    t.ok(doc.paths[path]?.[method], `${route} is in the document`)
  }
})
