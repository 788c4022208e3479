// The real OpenTelemetry JS SDK exporting to a listening Loupe: protobuf and JSON, with and without gzip. Nested GenAI
// spans with a retried tool and a failing one, children exported before their root; the traces, steps, statuses,
// retries, tokens and the one trace.created per trace seen live on /ws.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api'
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base'
import t from 'tap'
import WebSocket from 'ws'
import { type Trace, TraceSchema } from '../../schemas/index.js'
import { genaiMessages, startAgentRun } from '../../scripts/otel-agent-run.js'
import { buildTestApp, createProject, schemaErrors } from '../helper.js'
import { waitFor } from '../otlp/http.js'

const run = promisify(execFile)

/** ExportResultCode.SUCCESS of @opentelemetry/core. */
const EXPORT_SUCCESS = 0

/** Delegates to the real exporter and remembers each export's result code. */
function recording(exporter: SpanExporter, results: number[]): SpanExporter {
  return {
    export: (spans: ReadableSpan[], done) =>
      exporter.export(spans, (result) => {
        results.push(result.code)
        done(result)
      }),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  }
}

/**
 * A support agent's run, with explicit times: a model call, a tool that times out and is retried, a final model call.
 * Everything below the root is exported (and flushed) before the root ends.
 */
async function agentRun(provider: BasicTracerProvider, base: number): Promise<string> {
  const tracer = provider.getTracer('support-agent', '1.0.0')
  const question = 'Where is my order?'
  const { root, step: child, end } = startAgentRun(tracer, base, { conversation: 'conv-1', user: 'user-1', question })

  const plan = child('chat gpt-4o', 10, {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.usage.input_tokens': 30,
    'gen_ai.usage.output_tokens': 12,
    'gen_ai.input.messages': genaiMessages('user', question),
  })
  end(plan, 400)
  const attempt1 = child('execute_tool lookup_order', 410, {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'lookup_order',
  })
  const http = child('GET /orders/42', 420, { 'http.request.method': 'GET' }, attempt1)
  end(http, 1400)
  attempt1.recordException(new Error('order service timed out'), base + 1405)
  attempt1.setStatus({ code: SpanStatusCode.ERROR, message: 'order service timed out' })
  end(attempt1, 1410)
  const attempt2 = child('execute_tool lookup_order', 1420, {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'lookup_order',
    'gen_ai.tool.call.result': '{"status":"shipped"}',
  })
  end(attempt2, 1600)
  const answer = child('chat gpt-4o', 1610, {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.usage.input_tokens': 40,
    'gen_ai.usage.output_tokens': 20,
    'gen_ai.output.messages': genaiMessages('assistant', 'Your order shipped today.'),
  })
  end(answer, 2400)
  await provider.forceFlush()
  end(root, 2500)
  await provider.forceFlush()
  return root.spanContext().traceId
}

/** A run on the real clock whose tool fails twice in quick succession: the trace fails with the last error. */
async function failingRun(provider: BasicTracerProvider): Promise<string> {
  const tracer = provider.getTracer('search-bot')
  const root = tracer.startSpan('answer', {
    attributes: { 'openinference.span.kind': 'CHAIN', 'input.value': 'otters?' },
  })
  const ctx = trace.setSpan(ROOT_CONTEXT, root)
  for (const attempt of [1, 2]) {
    const search = tracer.startSpan(
      'search',
      { attributes: { 'openinference.span.kind': 'TOOL', 'tool.name': 'search' } },
      ctx,
    )
    search.setStatus({ code: SpanStatusCode.ERROR, message: `search failed (attempt ${attempt})` })
    search.end()
  }
  root.end()
  await provider.forceFlush()
  return root.spanContext().traceId
}

const variants = [
  { name: 'protobuf', Exporter: ProtobufExporter, compression: undefined },
  { name: 'protobuf + gzip', Exporter: ProtobufExporter, compression: 'gzip' },
  { name: 'JSON', Exporter: JsonExporter, compression: undefined },
  { name: 'JSON + gzip', Exporter: JsonExporter, compression: 'gzip' },
] as const

for (const { name, Exporter, compression } of variants) {
  t.test(`${name} exporter: traces, steps, status, retries, tokens and one trace.created each on /ws`, async (t) => {
    const app = await buildTestApp(t, { config: { otlpRootGraceMs: 200 } })
    const { key, project_id } = await createProject(app)
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as { port: number }
    const sent: { type: string; encoding: string }[] = []
    app.server.on('request', (request) => {
      if (request.url === '/v1/traces') {
        sent.push({
          type: String(request.headers['content-type']),
          encoding: String(request.headers['content-encoding'] ?? 'identity'),
        })
      }
    })

    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`)
    const created: Trace[] = []
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString())
      if (message.type === 'trace.created') created.push(message.data)
    })
    await new Promise((resolve) => socket.once('open', resolve))
    t.teardown(() => socket.close())

    const results: number[] = []
    const exporter = recording(
      new Exporter({
        url: `http://127.0.0.1:${port}/v1/traces`,
        headers: { Authorization: `Bearer ${key}` },
        ...(compression ? { compression: compression as never } : {}),
      }),
      results,
    )
    // One run exports span by span, the other in batches: both ways exporters are used.
    const simple = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
    const batched = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] })
    const base = Date.UTC(2026, 10, 21, 13, 45)
    const agentId = await agentRun(simple, base)
    const failingId = await failingRun(batched)
    t.teardown(() => Promise.all([simple.shutdown(), batched.shutdown()]))

    const agent = await waitFor(() => created.find((c) => c.trace_id === agentId))
    const failing = await waitFor(() => created.find((c) => c.trace_id === failingId))
    t.ok(results.length >= 2 && results.every((code) => code === EXPORT_SUCCESS), 'every export succeeded')
    const expected = {
      type: Exporter === ProtobufExporter ? 'application/x-protobuf' : 'application/json',
      encoding: compression ?? 'identity',
    }
    t.ok(sent.length >= 2 && sent.every((s) => s.type === expected.type && s.encoding === expected.encoding), name)

    t.same(schemaErrors(TraceSchema, agent), [])
    t.match(agent, {
      trace_id: agentId,
      project_id,
      name: 'invoke_agent support',
      model: 'gpt-4o',
      prompt: 'Where is my order?',
      response: 'Your order shipped today.',
      created_at: '2026-11-21T13:45:00.000Z',
      latency: 2500,
      prompt_tokens: 70,
      completion_tokens: 32,
      token_count: 102,
      status: 'warning',
      failure_reason: null,
      retry_count: 1,
      session_id: 'conv-1',
      user_id: 'user-1',
      metadata: { 'gen_ai.agent.name': 'support', otel: { kind: 2 } },
    })
    t.same(
      agent.steps.map((s) => [s.index, s.name, s.type, s.tool, s.status, s.error, s.latency]),
      [
        [0, 'chat gpt-4o', 'llm', null, 'success', null, 390],
        [1, 'execute_tool lookup_order', 'tool', 'lookup_order', 'failed', 'order service timed out', 1000],
        [2, 'GET /orders/42', 'other', null, 'success', null, 980],
        [3, 'execute_tool lookup_order', 'tool', 'lookup_order', 'success', null, 180],
        [4, 'chat gpt-4o', 'llm', null, 'success', null, 790],
      ],
    )

    t.match(failing, {
      name: 'answer',
      prompt: 'otters?',
      status: 'failed',
      failure_reason: 'search failed (attempt 2)',
      retry_count: 1,
    })
    t.same(
      failing.steps.map((s) => s.error),
      ['search failed (attempt 1)', 'search failed (attempt 2)'],
    )

    // Nothing else arrives later, and REST agrees with the stream.
    await new Promise((resolve) => setTimeout(resolve, 300))
    t.same(created.map((c) => c.trace_id).sort(), [agentId, failingId].sort(), 'exactly one trace.created per trace')
    t.same((await app.inject(`/traces/${agentId}`)).json(), { ...agent, scores: [] }, 'read by its id: with its scores')
    const analytics = (await app.inject(`/analytics?project_id=${project_id}`)).json()
    t.match(analytics.summary, {
      total_traces: 2,
      failed_traces: 1,
      warning_traces: 1,
      retries: 2,
      total_token_usage: 102,
    })
  })
}

t.test('an exporter with a wrong key fails with the reason as its error message, in either encoding', async (t) => {
  const app = await buildTestApp(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  for (const Exporter of [ProtobufExporter, JsonExporter]) {
    const exporter = new Exporter({
      url: `http://127.0.0.1:${port}/v1/traces`,
      headers: { Authorization: 'Bearer loupe_sk_00000000000000000000000000000000' },
    })
    const errors: (Error | undefined)[] = []
    const provider = new BasicTracerProvider({
      spanProcessors: [
        new SimpleSpanProcessor({
          export: (spans, done) =>
            exporter.export(spans, (result) => {
              errors.push(result.error)
              done(result)
            }),
          shutdown: () => exporter.shutdown(),
        }),
      ],
    })
    provider.getTracer('t').startSpan('chat').end()
    await waitFor(() => errors.length > 0)
    await provider.shutdown()
    t.match(errors[0]?.message, /Unauthorized: the API key is unknown or revoked/, Exporter.name)
  }
})

t.test("the README's example: `node examples/opentelemetry.mjs` with the two environment variables", async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 100 } })
  const { key } = await createProject(app)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const { stdout } = await run('node', ['examples/opentelemetry.mjs'], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    timeout: 30_000,
    env: {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${key}`,
    },
  })
  const traceId = /sent trace ([0-9a-f]{32})/.exec(stdout)?.[1]
  t.ok(traceId, stdout)
  const stored = await waitFor(async () => {
    const res = await app.inject(`/traces/${traceId}`)
    return res.statusCode === 200 ? (res.json() as Trace) : undefined
  })
  t.match(stored, {
    name: 'answer_question',
    model: 'gpt-4o',
    prompt: 'Where is my order?',
    response: 'It ships tomorrow.',
    token_count: 54,
    status: 'warning',
    retry_count: 1,
    session_id: 'session-1',
  })
  t.same(
    stored.steps.map((s) => [s.tool, s.status]),
    [
      ['order_lookup', 'failed'],
      ['order_lookup', 'success'],
      [null, 'success'],
    ],
  )
})
