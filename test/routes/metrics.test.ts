// GET /metrics: a scrape parses line by line as the Prometheus text format, counts what the app did (requests by
// route and status, traces ingested and rejected by reason, store size and count, /ws peers), and in protected mode
// answers only the metrics token and the admin token. Each app has its own registry.
import t, { type Test } from 'tap'
import WebSocket from 'ws'
import { buildTestApp, createProject, postBatch, postTrace } from '../helper.js'

interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*'
const LABEL = `([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"`
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*)?,?\\})? (\\S+)(?: (-?\\d+))?$`)
// Prometheus reads values with Go's ParseFloat, which takes Inf and NaN in any case (prom-client writes `Nan`).
const VALUE = /^(?:[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|[+-]?inf|nan)$/i

/**
 * Parses the text format strictly: every line is blank, `# HELP name text`, `# TYPE name type` or a sample whose
 * family was typed before it; anything else fails the test.
 */
function parse(t: Test, text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = []
  const types = new Map<string, string>()
  const lines = text.split('\n')
  t.equal(lines.at(-1), '', 'the exposition ends with a newline')
  for (const [i, line] of lines.entries()) {
    if (line === '') continue
    const help = new RegExp(`^# HELP (${NAME}) (.*)$`).exec(line)
    if (help) continue
    const type = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line)
    if (type) {
      types.set(type[1]!, type[2]!)
      continue
    }
    const m = SAMPLE.exec(line)
    if (!m) {
      t.fail(`line ${i + 1} is not a Prometheus line: ${JSON.stringify(line)}`)
      continue
    }
    const name = m[1]!
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count|total|created)$/, '')
    if (!types.has(family) && !types.has(name)) t.fail(`line ${i + 1}: ${name} has no # TYPE before it`)
    const value = m.at(-2)!
    if (!VALUE.test(value)) t.fail(`line ${i + 1}: ${value} is not a number`)
    const labels: Record<string, string> = {}
    for (const pair of (m[2] ?? '').matchAll(new RegExp(LABEL, 'g'))) labels[pair[1]!] = pair[2]!
    samples.push({ name, labels, value: Number(value) })
  }
  return { samples, types }
}

const find = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))

t.test('a scrape parses as Prometheus text and counts requests, ingest, rejections and the store', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Metrics')
  t.equal((await postTrace(app, key, { trace_id: 'm-1', prompt: 'a' })).statusCode, 201)
  t.equal((await postTrace(app, key, { trace_id: 'm-1', prompt: 'a' })).statusCode, 200)
  t.equal((await postTrace(app, key, { prompt: 12 })).statusCode, 400)
  const batch = await postBatch(app, key, [{ prompt: 'b' }, { prompt: 'c' }, { prompt: false }])
  t.equal(batch.json().accepted, 2)
  const other = await createProject(app, 'Other')
  t.equal((await postTrace(app, other.key, { trace_id: 'm-1', prompt: 'a' })).statusCode, 409)
  t.equal((await app.inject({ method: 'POST', url: '/traces', payload: { prompt: 'x' } })).statusCode, 401)
  await app.inject('/traces/none-such')
  // A search's total counted once, then brought up to date from the count kept.
  for (const q of ['a', 'a']) t.equal((await app.inject({ url: '/traces', query: { q } })).json().total, 1)

  const res = await app.inject('/metrics')
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/)
  const { samples, types } = parse(t, res.body)

  t.equal(types.get('loupe_http_request_duration_seconds'), 'histogram')
  t.equal(find(samples, 'loupe_traces_ingested_total')?.value, 3, 'three traces stored (the re-send is not counted)')
  t.equal(find(samples, 'loupe_traces_rejected_total', { reason: 'invalid' })?.value, 2)
  t.equal(find(samples, 'loupe_traces_rejected_total', { reason: 'conflict' })?.value, 1)
  t.equal(find(samples, 'loupe_traces_rejected_total', { reason: 'unauthorized' })?.value, 1)
  t.equal(find(samples, 'loupe_store_traces')?.value, 3)
  t.ok((find(samples, 'loupe_store_size_bytes')?.value ?? 0) > 0, 'the store has a size')
  t.equal(find(samples, 'loupe_otlp_spans_pending')?.value, 0)
  t.equal(find(samples, 'loupe_search_full_counts_total')?.value, 1, 'a search counted in full once')
  t.equal(find(samples, 'loupe_http_requests_total', { route: '/traces', method: 'POST', status: '201' })?.value, 1)
  t.equal(
    find(samples, 'loupe_http_request_duration_seconds_count', { route: '/traces/:trace_id', status: '404' })?.value,
    1,
    'the route label is the pattern, not the URL',
  )
  t.ok(
    find(samples, 'loupe_http_request_duration_seconds_bucket', { route: '/traces', le: '+Inf', status: '201' }),
    'the latency histogram has buckets',
  )
  t.ok(find(samples, 'loupe_process_resident_memory_bytes'), 'process metrics are there')
  t.ok(find(samples, 'loupe_nodejs_eventloop_lag_seconds'), 'event-loop metrics are there')
  t.equal(find(samples, 'loupe_retention_deleted_traces_total'), undefined, 'no retention deletion yet')
})

t.test('/ws connections and dropped peers are reported', async (t) => {
  const app = await buildTestApp(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`)
  await new Promise((resolve) => socket.once('message', resolve))
  t.teardown(() => socket.close())
  const { samples } = parse(t, (await app.inject('/metrics')).body)
  t.equal(find(samples, 'loupe_ws_connections')?.value, 1)
  t.equal(find(samples, 'loupe_ws_dropped_peers_total')?.value, 0)
})

t.test('two apps in one process count apart', async (t) => {
  const a = await buildTestApp(t)
  const b = await buildTestApp(t)
  const { key } = await createProject(a, 'A')
  await postTrace(a, key, { prompt: 'only in a' })
  const ofA = parse(t, (await a.inject('/metrics')).body).samples
  const ofB = parse(t, (await b.inject('/metrics')).body).samples
  t.equal(find(ofA, 'loupe_traces_ingested_total')?.value, 1)
  t.equal(find(ofB, 'loupe_traces_ingested_total')?.value, 0)
})

t.test('protected mode: the metrics token or the admin token, never a project key', async (t) => {
  const adminToken = 'metrics-admin-token-0123456789'
  const metricsToken = 'metrics-scrape-token-012345'
  const app = await buildTestApp(t, { config: { adminToken, metricsToken } })
  const { key } = await createProject(app, 'Guarded', 'production', adminToken)
  const get = (token?: string) =>
    app.inject({ url: '/metrics', headers: token ? { authorization: `Bearer ${token}` } : {} })
  t.equal((await get()).statusCode, 401)
  t.equal((await get('not-a-token-at-all')).statusCode, 401)
  t.equal((await get(key)).statusCode, 403)
  t.equal((await get(metricsToken)).statusCode, 200)
  t.equal((await get(adminToken)).statusCode, 200)
  const elsewhere = await app.inject({ url: '/traces', headers: { authorization: `Bearer ${metricsToken}` } })
  t.equal(elsewhere.statusCode, 403, 'the metrics token reads nothing else')
})
