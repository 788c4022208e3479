// The OTLP load of `npm run bench`, in its own process: GenAI agent runs made with the real OpenTelemetry SDK, sent
// by the real protobuf exporter in exports of BATCH spans from CLIENTS concurrent exporters. Prints one JSON line:
// the spans and traces sent, the milliseconds from the first export to the last answer, and the exports that failed.
//
//   tsx scripts/bench-otlp-client.ts <url of /v1/traces> <api key> <spans> [clients=4] [batch=512]
import { performance } from 'node:perf_hooks'
import { SpanStatusCode } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { BasicTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base'
import { genaiMessages, startAgentRun } from './otel-agent-run.js'

const [url, key, spansArg, clientsArg = '4', batchArg = '512'] = process.argv.slice(2)
if (!url || !key || !spansArg) throw new Error('usage: bench-otlp-client.ts <url> <key> <spans> [clients] [batch]')
const CLIENTS = Number(clientsArg)
const BATCH = Number(batchArg)
/** Spans per agent run: the root and seven below it. */
const PER_TRACE = 8
const TRACES = Math.ceil(Number(spansArg) / PER_TRACE)

/** Every span as it ends, in the order it ended (what a BatchSpanProcessor would queue). */
const ended: ReadableSpan[] = []
const collect: SpanProcessor = {
  onStart() {},
  onEnd: (span) => void ended.push(span),
  forceFlush: async () => {},
  shutdown: async () => {},
}
const provider = new BasicTracerProvider({ spanProcessors: [collect] })
const tracer = provider.getTracer('bench-agent', '1.0.0')
/** One agent run: plan with a model, look something up (a retried tool with an HTTP call under it), answer. */
function agentRun(i: number) {
  const { root, step, end } = startAgentRun(tracer, Date.now() - 60_000 + i, {
    conversation: `bench-conv-${i % 500}`,
    user: `bench-user-${i % 50}`,
    question: `Where is order ${i}?`,
  })
  const chat = (from: number, to: number, output?: string) =>
    end(
      step('chat gpt-4o', from, {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.usage.input_tokens': 30 + (i % 50),
        'gen_ai.usage.output_tokens': 10 + (i % 20),
        ...(output ? { 'gen_ai.output.messages': genaiMessages('assistant', output) } : {}),
      }),
      to,
    )
  chat(10, 300)
  for (const [attempt, from] of [
    [1, 310],
    [2, 700],
  ] as const) {
    const tool = step('execute_tool lookup_order', from, {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup_order',
    })
    end(step('GET /orders', from + 5, { 'http.request.method': 'GET' }, tool), from + 340)
    if (attempt === 1) tool.setStatus({ code: SpanStatusCode.ERROR, message: 'order service timed out' })
    end(tool, from + 350)
  }
  end(step('retrieve docs', 1060, { 'gen_ai.operation.name': 'retrieval' }), 1100)
  chat(1110, 1900, `Order ${i} shipped today.`)
  end(root, 2000)
}

for (let i = 0; i < TRACES; i++) agentRun(i)
const batches: ReadableSpan[][] = []
for (let at = 0; at < ended.length; at += BATCH) batches.push(ended.slice(at, at + BATCH))

const exporters = Array.from(
  { length: CLIENTS },
  () => new OTLPTraceExporter({ url, headers: { authorization: `Bearer ${key}` }, timeoutMillis: 60_000 }),
)
let next = 0
let failed = 0
const started = performance.now()
await Promise.all(
  exporters.map(async (exporter) => {
    for (let b = next++; b < batches.length; b = next++) {
      const code = await new Promise<number>((resolve) => exporter.export(batches[b]!, (r) => resolve(r.code)))
      if (code !== 0) failed++
    }
  }),
)
const ms = performance.now() - started
await Promise.all(exporters.map((e) => e.shutdown()))
process.stdout.write(
  `${JSON.stringify({ spans: ended.length, traces: TRACES, exports: batches.length, ms, failed })}\n`,
)
