// Runs one capture scenario with the OpenTelemetry project's own OpenAI instrumentation
// (@opentelemetry/instrumentation-openai), content capture on: spans go to CAPTURE_OTLP_URL, and the prompts and
// answers, which this library sends only as log records, to CAPTURE_OTLP_LOGS_URL (both OTLP/JSON). Run by
// scripts/capture-otlp-fixtures.ts inside the temporary folder where the libraries are installed.
import { createRequire } from 'node:module'
import { context, metrics, trace } from '@opentelemetry/api'
import { logs } from '@opentelemetry/api-logs'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OpenAIInstrumentation } from '@opentelemetry/instrumentation-openai'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs'
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'

process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = 'true'
const resource = resourceFromAttributes({ 'service.name': 'capture-otel-openai' })
// The 3.x SDK's processors take their exporter as an option.
const provider = new TracerProvider({
  resource,
  spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: process.env.CAPTURE_OTLP_URL }) })],
})
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
trace.setGlobalTracerProvider(provider)
const loggerProvider = new LoggerProvider({
  resource,
  processors: [
    new BatchLogRecordProcessor({ exporter: new OTLPLogExporter({ url: process.env.CAPTURE_OTLP_LOGS_URL }) }),
  ],
})
logs.setGlobalLoggerProvider(loggerProvider)
const instrumentation = new OpenAIInstrumentation()
instrumentation.setTracerProvider(provider)
instrumentation.setLoggerProvider(loggerProvider)
// Its duration and token histograms need a meter provider, even one that records nothing.
instrumentation.setMeterProvider(metrics.getMeterProvider())
instrumentation.enable()
// The instrumentation patches `openai` as CommonJS loads it: the calls use that class.
globalThis.CAPTURE_OPENAI_CLASS = createRequire(import.meta.url)('openai').OpenAI
const { answerWithWeather, chat, embedding, failingCall, responses, stream, text } = await import('./openai-calls.mjs')

const tracer = provider.getTracer('capture')
/** A span of the application's own around `fn`, as an agent framework would make. */
const withSpan = (name, attributes, fn) =>
  tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span)
    } finally {
      span.end()
    }
  })
const getWeather = (args) =>
  withSpan(
    'execute_tool get_weather',
    { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather' },
    async () => ({ city: args.city, rain_probability: 0.8 }),
  )

const scenarios = {
  chat,
  stream,
  // The library ends a failed call's span with the error.
  fail: () => failingCall(text.failQuestion).catch(() => null),
  embedding: () => embedding(text.embeddingInput),
  responses,
  agent: () =>
    withSpan('invoke_agent weather_agent', { 'gen_ai.operation.name': 'invoke_agent' }, () =>
      answerWithWeather(text.agentQuestion, getWeather),
    ),
}

await scenarios[process.argv[2]]()
// Log records go first, as they do live (their processor exports every second, spans every five).
await loggerProvider.shutdown()
await provider.shutdown()
