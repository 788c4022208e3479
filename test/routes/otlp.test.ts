// POST /v1/traces over HTTP: the recorded fixtures of each convention family, the answer in the request's encoding
// with partialSuccess, idempotent re-sends, late and foreign spans, the grace and rootless waits, and every error.
import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import t, { type Test } from 'tap'
import { type Trace, TraceSchema } from '../../schemas/index.js'
import { buildTestApp, createProject, postTrace, schemaErrors } from '../helper.js'
import {
  exportOf,
  jsonSpan,
  postOtlp,
  protobufRequest,
  readProtobufReply,
  recordAnnouncements,
  TRACE,
  waitFor,
} from '../otlp/http.js'

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/otlp/${name}.json`, import.meta.url), 'utf8')) as Record<string, unknown>

const ROOT = 'aaaaaaaaaaaaaaa1'
const CHILD = 'aaaaaaaaaaaaaaa2'
const CHILD2 = 'aaaaaaaaaaaaaaa3'

async function getTrace(app: Awaited<ReturnType<typeof buildTestApp>>, id: string): Promise<Trace | undefined> {
  const res = await app.inject(`/traces/${id}`)
  return res.statusCode === 200 ? (res.json() as Trace) : undefined
}

/** A recorded fixture sent to a fresh app: its answer is a 200, and the one trace it makes is valid and stored. */
async function storedFixture(t: Test, name: string, traceId: string): Promise<Trace> {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
  const { key } = await createProject(app)
  t.equal((await postOtlp(app, key, fixture(name))).statusCode, 200)
  const trace = (await getTrace(app, traceId))!
  t.same(schemaErrors(TraceSchema, trace), [])
  return trace
}

t.test(
  'GenAI fixture: the root gives the trace, children the steps; retries and status by normalization',
  async (t) => {
    const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
    const { key, project_id } = await createProject(app)
    const announced = recordAnnouncements(app)
    const res = await postOtlp(app, key, fixture('genai'))
    t.equal(res.statusCode, 200)
    t.same(res.json(), {}, 'every span accepted: no partialSuccess')

    const trace = (await getTrace(app, '0af7651916cd43dd8448eb211c80319c'))!
    t.same(schemaErrors(TraceSchema, trace), [])
    t.match(trace, {
      project_id,
      environment: 'development',
      name: 'invoke_agent weather-agent',
      model: 'gpt-4o',
      prompt: 'Will it rain in Paris tomorrow?',
      response: 'Yes: 80% chance of rain in Paris tomorrow.',
      created_at: '2026-11-21T13:45:00.000Z',
      latency: 3050,
      prompt_tokens: 128,
      completion_tokens: 40,
      token_count: 168,
      status: 'warning',
      failure_reason: null,
      retry_count: 1,
      session_id: 'conv-7',
      user_id: 'user-42',
      metadata: {
        'gen_ai.agent.name': 'weather-agent',
        'app.feature_flag': 'new-forecast',
        'app.cached': false,
        otel: { span_id: 'b7ad6b7169203331', service_name: 'weather-agent' },
        'otel.resource': { 'deployment.environment': 'test' },
      },
    })
    t.same(
      trace.steps.map((s) => [s.index, s.type, s.tool, s.status, s.error, s.latency, s.token_count]),
      [
        [0, 'retrieval', null, 'success', null, 35, 8],
        [1, 'llm', null, 'success', null, 850, 60],
        [2, 'tool', 'get_weather', 'failed', 'weather service timed out', 1000, null],
        [3, 'tool', 'get_weather', 'success', null, 180, null],
        [4, 'llm', null, 'success', null, 890, 100],
      ],
    )
    t.same(trace.steps[3]?.input, { city: 'Paris' })
    t.same(trace.steps[3]?.output, { rain_probability: 0.8 })
    t.match(trace.steps[2]?.metadata, { exception: { type: 'TimeoutError' }, 'gen_ai.tool.call.id': 'call_1' })
    t.equal(announced.get(trace.trace_id), 1)
  },
)

t.test('OpenInference fixture: flattened messages, documents, session/user/tags/metadata, a failed tool', async (t) => {
  const trace = await storedFixture(t, 'openinference', '5b8efff798038103d269b633813fc60c')
  t.match(trace, {
    name: 'rag-pipeline',
    model: 'gpt-4o-mini',
    prompt: 'Where is order 1234?',
    response: 'Order 1234 left the warehouse yesterday.',
    prompt_tokens: 210,
    completion_tokens: 18,
    token_count: 228,
    // The lookup_order tool's only attempt failed, so the trace failed with its error (docs/api.md, Normalization).
    status: 'failed',
    failure_reason: 'order service unavailable',
    retry_count: 0,
    session_id: 'sess-1',
    user_id: 'cust-9',
    tags: ['rag', 'support'],
    metadata: { tenant: 'acme', region: 'eu', 'llm.prompt_template.version': 'v3' },
  })
  t.same(
    trace.steps.map((s) => [s.type, s.tool, s.status]),
    [
      ['retrieval', null, 'success'],
      ['tool', 'lookup_order', 'failed'],
      ['llm', null, 'success'],
    ],
  )
  t.same(trace.steps[0]?.output, [
    { id: 'doc-1', content: 'Orders ship within 2 days.', score: 0.92 },
    { id: 'doc-2', content: 'Tracking numbers are emailed.', score: 0.81 },
  ])
  t.same(trace.steps[2]?.input, [
    { role: 'system', content: 'Answer from the context.' },
    { role: 'user', content: 'Where is order 1234?' },
  ])
})

t.test(
  'OpenLLMetry fixture: indexed prompt/completion names, usage names, traceloop kinds and associations',
  async (t) => {
    const trace = await storedFixture(t, 'openllmetry', 'a3ce929d0e0e47364bf92f3577b34da6')
    t.match(trace, {
      // The entity's name, not the span's. Its named arguments (`{"topic":"otters"}`, out of OpenLLMetry's
      // args/kwargs wrapper) are no question: the prompt is the one the model was asked.
      name: 'joke_workflow',
      model: 'gpt-3.5-turbo',
      prompt: 'Tell me a joke about otters',
      response: 'Why did the otter cross the river? To get to the otter side.',
      prompt_tokens: 15,
      completion_tokens: 17,
      token_count: 32,
      status: 'warning',
      retry_count: 1,
      session_id: 'otter-session',
      user_id: 'comedian-1',
    })
    t.same(
      trace.steps.map((s) => [s.name, s.type, s.tool, s.status, s.error]),
      [
        ['search', 'tool', 'search', 'failed', 'rate limited'],
        ['search', 'tool', 'search', 'success', null],
        ['openai.chat', 'llm', null, 'success', null],
      ],
    )
    t.same(trace.steps[2]?.input, [{ role: 'user', content: 'Tell me a joke about otters' }])
    t.match(trace.steps[2]?.metadata, { model: 'gpt-3.5-turbo', provider: 'OpenAI' })
  },
)

t.test('children sent before their root wait durably and join it; one trace, one event', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 100, otlpRootlessWaitMs: 60_000 } })
  const { key } = await createProject(app)
  const announced = recordAnnouncements(app)
  const children = exportOf(
    jsonSpan(CHILD2, { parent: ROOT, startMs: 20 }),
    jsonSpan(CHILD, { parent: ROOT, startMs: 5 }),
  )
  t.same((await postOtlp(app, key, children)).json(), {})
  t.equal(await getTrace(app, TRACE), undefined, 'nothing is stored before the root')
  t.equal((await app.store.pending.get(TRACE)).length, 2, 'the children are kept in the store')

  t.same((await postOtlp(app, key, exportOf(jsonSpan(ROOT, { startMs: 0, name: 'root' })))).json(), {})
  const trace = await waitFor(() => getTrace(app, TRACE))
  t.equal(trace.name, 'root')
  t.same(
    trace.steps.map((s) => s.name),
    [`span ${CHILD}`, `span ${CHILD2}`],
  )
  t.same(await app.store.pending.listTraces(), [], 'the pending spans are forgotten once stored')
  t.equal(announced.get(TRACE), 1)
})

t.test(
  're-sent spans are idempotent: before and after the trace is stored, nothing changes and no second event',
  async (t) => {
    const app = await buildTestApp(t, { config: { otlpRootGraceMs: 50 } })
    const { key } = await createProject(app)
    const announced = recordAnnouncements(app)
    const all = exportOf(jsonSpan(CHILD, { parent: ROOT, startMs: 5 }), jsonSpan(ROOT))
    t.same((await postOtlp(app, key, all)).json(), {})
    t.same((await postOtlp(app, key, all)).json(), {}, 'a retry while pending')
    const first = await waitFor(() => getTrace(app, TRACE))
    t.same((await postOtlp(app, key, all)).json(), {}, 'a retry after the trace is stored')
    await new Promise((resolve) => setTimeout(resolve, 120))
    t.same(await getTrace(app, TRACE), first)
    t.equal(announced.get(TRACE), 1)
    t.same(await app.store.pending.listTraces(), [])
  },
)

t.test(
  'a span that comes after its trace was stored is rejected in partialSuccess, not silently dropped',
  async (t) => {
    const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
    const { key } = await createProject(app)
    await postOtlp(app, key, exportOf(jsonSpan(ROOT)))
    const res = await postOtlp(app, key, exportOf(jsonSpan(CHILD, { parent: ROOT }), jsonSpan(ROOT)))
    t.equal(res.statusCode, 200)
    const { partialSuccess } = res.json()
    t.equal(partialSuccess.rejectedSpans, '1', 'int64 as OTLP/JSON writes it')
    t.match(
      partialSuccess.errorMessage,
      /^1 of 2 spans rejected\. 1 span: arrived after their trace was stored \(4bf92f/,
    )
    t.match(partialSuccess.errorMessage, /OTLP_ROOT_GRACE_MS/)
    t.equal((await getTrace(app, TRACE))?.steps.length, 0)
  },
)

t.test('a trace whose root never arrives is stored once its spans stop arriving for the rootless wait', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0, otlpRootlessWaitMs: 150 } })
  const { key } = await createProject(app)
  const announced = recordAnnouncements(app)
  await postOtlp(app, key, exportOf(jsonSpan(CHILD, { parent: ROOT, startMs: 5, name: 'tool call' })))
  await postOtlp(app, key, exportOf(jsonSpan(CHILD2, { parent: ROOT, startMs: 30 })))
  t.equal(await getTrace(app, TRACE), undefined)
  const trace = await waitFor(() => getTrace(app, TRACE), 3000)
  t.equal(trace.name, 'tool call', 'the earliest span whose parent is missing names the trace')
  t.match(trace.metadata, { otel: { root_span_missing: true, missing_parent_span_id: ROOT } })
  t.same(
    trace.steps.map((s) => s.name),
    ['tool call', `span ${CHILD2}`],
    'every span that came is a step',
  )
  t.equal(announced.get(TRACE), 1)
})

t.test('a trace id pending or stored under another project is rejected for this one', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
  const a = await createProject(app, 'Project A')
  const b = await createProject(app, 'Project B')
  await postOtlp(app, a.key, exportOf(jsonSpan(ROOT)))
  const res = await postOtlp(app, b.key, exportOf(jsonSpan(CHILD, { parent: ROOT })))
  t.match(res.json().partialSuccess, { rejectedSpans: '1', errorMessage: /used by another project/ })
  t.equal((await getTrace(app, TRACE))?.project_id, a.project_id)
})

t.test('spans with bad ids are rejected one by one; the rest of the export is kept', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
  const { key } = await createProject(app)
  const res = await postOtlp(
    app,
    key,
    exportOf(jsonSpan(ROOT), jsonSpan('not-hex'), { ...jsonSpan(CHILD), traceId: 'S/ku5nBFTaajzpKdDg5HNg==' }),
  )
  t.equal(res.statusCode, 200)
  t.equal(res.json().partialSuccess.rejectedSpans, '2')
  t.match(
    res.json().partialSuccess.errorMessage,
    /2 of 3 spans rejected\. 1 span: spanId must be .*; 1 span: traceId must be/,
  )
  t.ok(await getTrace(app, TRACE))
})

t.test(
  'protobuf in, protobuf out: the response and its partialSuccess are an ExportTraceServiceResponse',
  async (t) => {
    const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
    const { key } = await createProject(app)
    const traceId = Buffer.from(TRACE, 'hex')
    const body = protobufRequest([
      { traceId, spanId: Buffer.from(ROOT, 'hex'), name: 'proto root', startMs: 1_795_268_700_000 },
      { traceId, spanId: Buffer.from('abc'), name: 'bad id', startMs: 1_795_268_700_000 },
    ])
    const res = await postOtlp(app, key, body)
    t.equal(res.statusCode, 200)
    t.match(res.headers['content-type'], /^application\/x-protobuf/)
    const partial = readProtobufReply(readProtobufReply(res.rawPayload)[1] as Buffer)
    t.equal(partial[1], 1, 'rejected_spans')
    t.match(Buffer.from(partial[2] as Uint8Array).toString(), /spanId must be 8 bytes/)
    t.match(await getTrace(app, TRACE), { name: 'proto root', created_at: '2026-11-21T13:45:00.000Z', latency: 5 })

    const clean = await postOtlp(app, key, protobufRequest([]))
    t.equal(clean.statusCode, 200)
    t.equal(clean.rawPayload.length, 0, 'a full success is the empty message')
  },
)

t.test('gzip bodies are accepted in both encodings', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
  const { key } = await createProject(app)
  const json = await postOtlp(app, key, gzipSync(JSON.stringify(exportOf(jsonSpan(ROOT)))), {
    'content-type': 'application/json',
    'content-encoding': 'gzip',
  })
  t.equal(json.statusCode, 200)
  t.same(json.json(), {})
  const other = '0af7651916cd43dd8448eb211c80319c'
  const proto = await postOtlp(
    app,
    key,
    gzipSync(
      protobufRequest([
        { traceId: Buffer.from(other, 'hex'), spanId: Buffer.from(ROOT, 'hex'), name: 'z', startMs: 1 },
      ]),
    ),
    { 'content-encoding': 'gzip' },
  )
  t.equal(proto.statusCode, 200)
  t.ok(await getTrace(app, TRACE))
  t.ok(await getTrace(app, other))
})

t.test('errors: 401 without a valid key, in the encoding of the request', async (t) => {
  const app = await buildTestApp(t)
  const missing = await postOtlp(app, null, exportOf(jsonSpan(ROOT)))
  t.equal(missing.statusCode, 401)
  t.match(missing.json(), { statusCode: 401, code: 'LOUPE_MISSING_API_KEY' })
  const unknown = await postOtlp(app, 'loupe_sk_nope', protobufRequest([]))
  t.equal(unknown.statusCode, 401)
  t.match(unknown.headers['content-type'], /^application\/x-protobuf/)
  const status = readProtobufReply(unknown.rawPayload)
  t.equal(status[1], 16, 'google.rpc.Code UNAUTHENTICATED')
  t.equal(Buffer.from(status[2] as Uint8Array).toString(), 'the API key is unknown or revoked')
})

t.test('errors: 400 for bodies that are not an export request', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app)
  const cases: [string | Buffer, Record<string, string>, RegExp][] = [
    ['{"resourceSpans": [', { 'content-type': 'application/json' }, /body is not JSON/],
    ['[1, 2]', { 'content-type': 'application/json' }, /body must be an ExportTraceServiceRequest object/],
    [
      Buffer.from([0x0a, 0xff, 0xff, 0xff]),
      {},
      /body is not a protobuf ExportTraceServiceRequest: body\/resourceSpans\/0: the message ends inside this field/,
    ],
    // A span's traceId (bytes) sent with wire type 7: the answer names the field by its path, as for a JSON body.
    [
      Buffer.from([0x0a, 0x06, 0x12, 0x04, 0x12, 0x02, 0x0f, 0x00]),
      {},
      /body\/resourceSpans\/0\/scopeSpans\/0\/spans\/0\/traceId: wire type 7, expected 2 \(bytes\)/,
    ],
    // A scope group whose length runs past the end of the resource that holds it.
    [
      Buffer.from([0x0a, 0x03, 0x12, 0x05, 0x01]),
      {},
      /body\/resourceSpans\/0\/scopeSpans\/0: length 5 runs past the end of its message/,
    ],
    [Buffer.from('not gzip'), { 'content-type': 'application/json', 'content-encoding': 'gzip' }, /not valid gzip/],
  ]
  for (const [body, headers, message] of cases) {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-protobuf', ...headers },
      payload: body,
    })
    t.equal(res.statusCode, 400, String(message))
    if (res.headers['content-type']?.toString().startsWith('application/json')) t.match(res.json().message, message)
    else t.match(Buffer.from(readProtobufReply(res.rawPayload)[2] as Uint8Array).toString(), message)
  }
})

t.test('errors: 413 past OTLP_BODY_LIMIT, as sent or once decompressed', async (t) => {
  const app = await buildTestApp(t, { config: { otlpBodyLimit: 4096 } })
  const { key } = await createProject(app)
  const big = exportOf(jsonSpan(ROOT, { name: 'x'.repeat(5000) }))
  t.equal((await postOtlp(app, key, big)).statusCode, 413)
  const bomb = await postOtlp(app, key, gzipSync(JSON.stringify(big)), {
    'content-type': 'application/json',
    'content-encoding': 'gzip',
  })
  t.equal(bomb.statusCode, 413)
  t.match(bomb.json(), { code: 'LOUPE_BODY_TOO_LARGE' })
  t.equal((await postOtlp(app, key, exportOf(jsonSpan(ROOT)))).statusCode, 200, 'a small body still passes')
})

t.test('errors: 415 for other content types and encodings; the rest of the API keeps its JSON parser', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app)
  const text = await app.inject({
    method: 'POST',
    url: '/v1/traces',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
    payload: 'hello',
  })
  t.equal(text.statusCode, 415)
  const brotli = await postOtlp(app, key, exportOf(), { 'content-encoding': 'br' })
  t.equal(brotli.statusCode, 415)
  t.match(brotli.json(), { code: 'LOUPE_UNSUPPORTED_CONTENT_ENCODING' })
  t.equal((await postTrace(app, key, { prompt: 'still JSON' })).statusCode, 201)
})

t.test('errors: 429 with Retry-After past the per-key ingest rate limit', async (t) => {
  const app = await buildTestApp(t, { config: { ingestRateLimit: 1 } })
  const { key } = await createProject(app)
  t.equal((await postOtlp(app, key, exportOf())).statusCode, 200)
  const limited = await postOtlp(app, key, exportOf())
  t.equal(limited.statusCode, 429)
  t.ok(Number(limited.headers['retry-after']) > 0)
})

t.test('an empty export is a success with nothing stored', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app)
  for (const body of [{}, { resourceSpans: [] }]) {
    const res = await postOtlp(app, key, body, { 'content-type': 'application/json; charset=utf-8' })
    t.equal(res.statusCode, 200)
    t.same(res.json(), {})
  }
})

t.test(
  'protected mode: a project key ingests into its project; the admin token is refused; nothing else passes',
  async (t) => {
    const ADMIN = 'otlp-admin-token-0123456789'
    const app = await buildTestApp(t, { config: { adminToken: ADMIN, otlpRootGraceMs: 0 } })
    const created = await app.inject({
      method: 'POST',
      url: '/projects',
      query: { name: 'Secured', environment: 'production' },
      headers: { authorization: `Bearer ${ADMIN}` },
    })
    const key = created.json().api_key.key as string
    t.equal((await postOtlp(app, key, exportOf(jsonSpan(ROOT)))).statusCode, 200)
    t.equal((await app.inject(`/traces/${TRACE}`)).statusCode, 401, 'reads need a credential too')
    const read = await app.inject({ url: `/traces/${TRACE}`, headers: { authorization: `Bearer ${key}` } })
    t.match(read.json(), { project_id: 'secured', environment: 'production' })

    const admin = await postOtlp(app, ADMIN, protobufRequest([]))
    t.equal(admin.statusCode, 403, 'a trace belongs to the project of its key')
    t.equal(readProtobufReply(admin.rawPayload)[1], 7, 'google.rpc.Code PERMISSION_DENIED')
    t.equal((await postOtlp(app, null, exportOf(jsonSpan(CHILD)))).statusCode, 401)
    t.equal((await postOtlp(app, 'loupe_sk_unknown', exportOf(jsonSpan(CHILD)))).statusCode, 401)
  },
)

t.test('a structurally wrong OTLP/JSON export is a 400 naming the field, never 200 {}', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app)
  const cases: [unknown, RegExp][] = [
    [{ resourceSpans: 'nope' }, /^body\/resourceSpans must be an array/],
    [{ resourceSpans: [{ scopeSpans: {} }] }, /^body\/resourceSpans\/0\/scopeSpans must be an array/],
    [
      { resourceSpans: [{ scopeSpans: [{ spans: [42] }] }] },
      /^body\/resourceSpans\/0\/scopeSpans\/0\/spans\/0 must be a span/,
    ],
    [[1, 2], /^body must be an ExportTraceServiceRequest object/],
  ]
  for (const [body, message] of cases) {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    })
    t.equal(res.statusCode, 400, JSON.stringify(body))
    t.match(res.json(), { code: 'LOUPE_INVALID_INPUT', message })
  }
})
