// Runs one capture scenario with OpenLLMetry (@traceloop/node-server-sdk), exporting OTLP/JSON to CAPTURE_OTLP_URL.
// Run by scripts/capture-otlp-fixtures.ts inside the temporary folder where the libraries are installed.
import { SpanStatusCode, trace } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import * as traceloop from '@traceloop/node-server-sdk'
import OpenAI from 'openai'
import { answerWithWeather, chat, embedding, failingCall, stream, text } from './openai-calls.mjs'

traceloop.initialize({
  appName: 'capture-traceloop',
  exporter: new OTLPTraceExporter({ url: process.env.CAPTURE_OTLP_URL }),
  instrumentModules: { openAI: OpenAI },
  silenceInitializationMessage: true,
  traceloopSyncEnabled: false,
})

const getWeather = (args) =>
  traceloop.withTool({ name: 'get_weather' }, async ({ city }) => ({ city, rain_probability: 0.8 }), args)

const scenarios = {
  chat,
  stream,
  // Neither this instrumentation nor the SDK's workflow ends a span whose promise rejects, so nothing would be
  // exported for a failing call: the application catches the error and records it on its workflow span.
  fail: () =>
    traceloop.withWorkflow({ name: 'ask' }, async () => {
      try {
        return await failingCall(text.failQuestion)
      } catch (error) {
        trace.getActiveSpan()?.recordException(error)
        trace.getActiveSpan()?.setStatus({ code: SpanStatusCode.ERROR, message: error.message })
        return null
      }
    }),
  // This instrumentation does not trace embeddings: only the application's own task span arrives.
  embedding: () => traceloop.withTask({ name: 'embed_note' }, embedding, text.embeddingInput),
  agent: () =>
    traceloop.withWorkflow(
      { name: 'answer_question', associationProperties: { session_id: 'session-7', user_id: 'user-42' } },
      () => answerWithWeather(text.agentQuestion, getWeather),
    ),
}

await scenarios[process.argv[2]]()
await traceloop.forceFlush()
