// Sends one traced LLM call to Loupe with the OpenTelemetry JS SDK (the README's "Send traces with OpenTelemetry").
//   npm install @opentelemetry/api @opentelemetry/sdk-trace-base @opentelemetry/exporter-trace-otlp-proto
//   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:3000 \
//   OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer loupe_sk_..." node examples/opentelemetry.mjs
import { context, SpanStatusCode, trace } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'

// The exporter reads OTEL_EXPORTER_OTLP_ENDPOINT (and adds /v1/traces) and OTEL_EXPORTER_OTLP_HEADERS.
const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] })
const tracer = provider.getTracer('support-bot')
const text = (role, content) => JSON.stringify([{ role, parts: [{ type: 'text', content }] }])

// The root span is the Loupe trace; the spans inside it are its steps (OpenTelemetry GenAI attributes).
const root = tracer.startSpan('answer_question', {
  attributes: {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.conversation.id': 'session-1',
    'gen_ai.input.messages': text('user', 'Where is my order?'),
  },
})
const inRoot = trace.setSpan(context.active(), root)
const tool = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'order_lookup' }

const attempt = tracer.startSpan('execute_tool order_lookup', { attributes: tool }, inRoot)
attempt.setStatus({ code: SpanStatusCode.ERROR, message: 'timeout' })
attempt.end()
tracer.startSpan('execute_tool order_lookup', { attributes: tool }, inRoot).end() // the retry succeeds

tracer
  .startSpan(
    'chat gpt-4o',
    {
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.usage.input_tokens': 42,
        'gen_ai.usage.output_tokens': 12,
        'gen_ai.output.messages': text('assistant', 'It ships tomorrow.'),
      },
    },
    inRoot,
  )
  .end()
root.end()

await provider.shutdown() // flushes the last batch
console.log(`sent trace ${root.spanContext().traceId}`)
