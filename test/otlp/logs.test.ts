// POST /v1/logs: GenAI log records wait beside the spans they name, whichever comes first, and are folded into those
// spans' messages when the trace is stored; records that find no span are counted and visible; other records are
// accepted and ignored.
import protobuf from 'protobufjs'
import t from 'tap'
import type { Trace } from '../../schemas/index.js'
import { buildTestApp, createProject } from '../helper.js'
import { exportOf, jsonSpan, postOtlp, readProtobufReply, TRACE, waitFor } from './http.js'
import { spanId } from './spans.js'

const T0 = 1_795_268_700_000
const nanos = (ms: number) => String(BigInt(ms) * 1_000_000n)
const chatSpan = (id = 'chat') =>
  jsonSpan(spanId(id), {
    attributes: [
      { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
      { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o-mini' } },
    ],
  })

/** A GenAI record as the OpenTelemetry OpenAI instrumentation writes it: `event.name` attribute, a body. */
function record(event: string, body: Record<string, unknown>, span = 'chat', at = 1) {
  const kv = (value: unknown): unknown =>
    typeof value === 'string'
      ? { stringValue: value }
      : typeof value === 'number'
        ? { intValue: String(value) }
        : Array.isArray(value)
          ? { arrayValue: { values: value.map(kv) } }
          : { kvlistValue: { values: Object.entries(value as object).map(([key, v]) => ({ key, value: kv(v) })) } }
  return {
    timeUnixNano: nanos(T0 + at),
    attributes: [{ key: 'event.name', value: { stringValue: event } }],
    body: kv(body),
    traceId: TRACE,
    spanId: spanId(span),
  }
}
const logsOf = (...logRecords: unknown[]) => ({ resourceLogs: [{ scopeLogs: [{ logRecords }] }] })
const conversation = [
  record('gen_ai.system.message', { content: 'Be brief.' }, 'chat', 1),
  record('gen_ai.user.message', { content: 'Capital of France?' }, 'chat', 1),
  record('gen_ai.choice', { index: 0, finish_reason: 'stop', message: { content: 'Paris.' } }, 'chat', 2),
]
const postLogs = (app: Parameters<typeof postOtlp>[0], key: string, body: unknown, headers = {}) =>
  postOtlp(app, key, body, headers, '/v1/logs')
const getTrace = async (app: Parameters<typeof postOtlp>[0]) => {
  const res = await app.inject(`/traces/${TRACE}`)
  return res.statusCode === 200 ? (res.json() as Trace) : undefined
}
const metric = async (app: Parameters<typeof postOtlp>[0], reason: string) => {
  const text = (await app.inject('/metrics')).body
  const line = text.split('\n').find((l) => l.startsWith(`loupe_otlp_log_records_unmatched_total{reason="${reason}"}`))
  return line === undefined ? null : Number(line.split(' ').at(-1))
}

t.test('records that arrive before their span, and records that arrive after it, are folded into it', async (t) => {
  for (const order of ['logs first', 'span first'] as const) {
    await t.test(order, async (t) => {
      const app = await buildTestApp(t, { config: { otlpRootGraceMs: 300 } })
      const { key } = await createProject(app)
      const sendLogs = async () => t.same((await postLogs(app, key, logsOf(...conversation))).json(), {})
      const sendSpan = async () => t.same((await postOtlp(app, key, exportOf(chatSpan()))).json(), {})
      if (order === 'logs first') {
        await sendLogs()
        await sendSpan()
      } else {
        await sendSpan()
        await sendLogs()
      }
      // A re-sent export is the same records.
      await postLogs(app, key, logsOf(...conversation))
      const trace = await waitFor(() => getTrace(app))
      t.match(trace, { model: 'gpt-4o-mini', prompt: 'Capital of France?', response: 'Paris.' })
      t.same(trace.steps[0]?.input, [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Capital of France?' },
      ])
      t.same(trace.steps[0]?.output, [{ role: 'assistant', content: 'Paris.' }])
      t.same((await app.inject('/health')).json().otlp, { failed_traces: 0, unmatched_log_records: 0 })
      t.same(await app.store.pending.listTraces(), [], 'nothing left pending')
    })
  }
})

t.test('records whose span never comes are counted in /health and /metrics, not stored, not kept', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0, otlpRootlessWaitMs: 200 } })
  const { key } = await createProject(app)
  // Two records name a span that never arrives; one names no span at all.
  const { traceId: _, spanId: __, ...noIds } = record('gen_ai.user.message', { content: 'lost' })
  t.same((await postLogs(app, key, logsOf(...conversation.slice(0, 2), noIds))).json(), {})
  t.equal((await app.store.pending.listTraces())[0]?.spans, 2, 'the records wait, durably, beside the spans')
  await waitFor(async () => ((await app.store.pending.listTraces()).length === 0 ? true : undefined))
  t.same((await app.inject('/health')).json().otlp, { failed_traces: 0, unmatched_log_records: 3 })
  t.equal(await metric(app, 'no_span'), 3)
  t.equal(await metric(app, 'late'), 0)
  t.equal(await getTrace(app), undefined, 'no trace is made of records alone')
})

t.test('records that name a span the trace does not hold are counted when it is stored', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
  const { key } = await createProject(app)
  await postLogs(app, key, logsOf(record('gen_ai.user.message', { content: 'elsewhere' }, 'other')))
  await postOtlp(app, key, exportOf(chatSpan()))
  const trace = await waitFor(() => getTrace(app))
  t.equal(trace.prompt, '')
  t.equal(await metric(app, 'no_span'), 1)
})

t.test('records that come after their trace was stored are rejected in partialSuccess and counted', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
  const { key } = await createProject(app)
  await postOtlp(app, key, exportOf(chatSpan()))
  await waitFor(() => getTrace(app))
  const res = await postLogs(app, key, logsOf(...conversation))
  t.equal(res.statusCode, 200)
  t.match(res.json(), {
    partialSuccess: { rejectedLogRecords: '3', errorMessage: /^3 of 3 log records rejected\. .*after their trace/ },
  })
  t.equal(await metric(app, 'late'), 3)
  t.same((await app.inject('/health')).json().otlp, { failed_traces: 0, unmatched_log_records: 3 })
})

t.test('records that are no GenAI event are accepted and ignored', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app)
  const plain = {
    timeUnixNano: nanos(T0),
    body: { stringValue: 'request served' },
    traceId: TRACE,
    spanId: spanId('a'),
  }
  const res = await postLogs(app, key, logsOf(plain, { ...plain, attributes: [] }))
  t.same([res.statusCode, res.json()], [200, {}])
  t.same(await app.store.pending.listTraces(), [])
  t.same((await app.inject('/health')).json().otlp, { failed_traces: 0, unmatched_log_records: 0 })
})

t.test('protobuf, gzip and the answers of /v1/traces', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
  const { key } = await createProject(app)
  // An ExportLogsServiceRequest written field by field: one record, its event in LogRecord.event_name (field 12),
  // its body a key-value list.
  const LEN = 2
  const w = protobuf.Writer.create()
  w.uint32((1 << 3) | LEN).fork() // resource_logs
  w.uint32((2 << 3) | LEN).fork() // scope_logs
  w.uint32((2 << 3) | LEN).fork() // log_records
  w.uint32((1 << 3) | 1).fixed64(nanos(T0 + 1))
  w.uint32((5 << 3) | LEN).fork() // body: AnyValue
  w.uint32((6 << 3) | LEN).fork() // kvlist_value
  w.uint32((1 << 3) | LEN).fork() // values
  w.uint32((1 << 3) | LEN).string('content')
  w.uint32((2 << 3) | LEN)
    .fork()
    .uint32((1 << 3) | LEN)
    .string('Capital of Spain?')
    .ldelim()
  w.ldelim().ldelim().ldelim()
  w.uint32((9 << 3) | LEN).bytes(Buffer.from(TRACE, 'hex'))
  w.uint32((10 << 3) | LEN).bytes(Buffer.from(spanId('chat'), 'hex'))
  w.uint32((12 << 3) | LEN).string('gen_ai.user.message')
  w.ldelim().ldelim().ldelim()
  const { gzipSync } = await import('node:zlib')
  const res = await postLogs(app, key, gzipSync(Buffer.from(w.finish())), { 'content-encoding': 'gzip' })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/x-protobuf')
  t.same(readProtobufReply(res.rawPayload), {}, 'an empty ExportLogsServiceResponse')
  await postOtlp(app, key, exportOf(chatSpan()))
  t.equal((await waitFor(() => getTrace(app))).prompt, 'Capital of Spain?')

  const broken = await postLogs(app, key, Buffer.from([0x0a, 0x05, 0x12]))
  t.equal(broken.statusCode, 400)
  t.match(broken.headers['content-type'], /protobuf/)
  const badJson = await postLogs(app, key, { resourceLogs: [{ scopeLogs: [{ logRecords: 3 }] }] })
  t.equal(badJson.statusCode, 400)
  t.match(badJson.json().message, 'body/resourceLogs/0/scopeLogs/0/logRecords must be an array of logRecords')
  t.equal((await postLogs(app, 'loupe_sk_wrong', logsOf())).statusCode, 401)
})

t.test('HTTP Basic on the OTLP routes: a key as password or user; anything else, and elsewhere, a 401', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
  const { key } = await createProject(app)
  const basic = (pair: string) => ({ authorization: `Basic ${Buffer.from(pair).toString('base64')}` })
  const post = (url: string, headers: Record<string, string>) => postOtlp(app, null, exportOf(), headers, url)
  for (const url of ['/v1/traces', '/api/public/otel/v1/traces', '/v1/logs']) {
    t.equal((await post(url, basic(`pk-lf-1234:${key}`))).statusCode, 200, `${url}: the key as password`)
    t.equal((await post(url, basic(`${key}:sk-lf-5678`))).statusCode, 200, `${url}: the key as user`)
    t.equal((await post(url, basic(`${key}`))).statusCode, 200, `${url}: the key alone`)
    t.equal((await post(url, basic('pk-lf-1234:sk-lf-5678'))).statusCode, 401, `${url}: Langfuse's own keys`)
    t.equal((await post(url, basic(`pk:${key}x`))).statusCode, 401, `${url}: a wrong key`)
    t.equal((await post(url, { authorization: 'Basic !!!' })).statusCode, 401, `${url}: not base64`)
  }
  const rest = await app.inject({
    method: 'POST',
    url: '/traces',
    headers: { ...basic(`pk:${key}`), 'content-type': 'application/json' },
    payload: { prompt: 'hi' },
  })
  t.equal(rest.statusCode, 401, 'not on the REST routes')
  // Langfuse's path is the same route: a trace arrives.
  const res = await postOtlp(app, null, exportOf(chatSpan()), basic(`pk:${key}`), '/api/public/otel/v1/traces')
  t.same(res.json(), {})
  t.equal((await waitFor(() => getTrace(app))).model, 'gpt-4o-mini')
})
