// Runs one capture scenario with OpenInference's OpenAI instrumentation, exporting OTLP/JSON to CAPTURE_OTLP_URL.
// Run by scripts/capture-otlp-fixtures.ts inside the temporary folder where the libraries are installed.
import { setSession, setUser, traceAgent, traceChain, traceTool } from '@arizeai/openinference-core'
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai'
import { context } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import OpenAI from 'openai'
import { answerWithWeather, chat, embedding, failingCall, stream, text } from './openai-calls.mjs'

const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'capture-openinference' }),
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: process.env.CAPTURE_OTLP_URL }))],
})
provider.register()
new OpenAIInstrumentation().manuallyInstrument(OpenAI)

const getWeather = traceTool(async ({ city }) => ({ city, rain_probability: 0.8 }), { name: 'get_weather' })
const weatherAgent = traceAgent((question) => answerWithWeather(question, getWeather), { name: 'weather_agent' })

const scenarios = {
  chat,
  stream,
  // This instrumentation never ends the span of a call whose promise rejects, so nothing would be exported for a
  // failing call on its own: the application's own chain span around it is what arrives.
  fail: () => traceChain(failingCall, { name: 'ask' })(text.failQuestion).catch(() => null),
  embedding: () => embedding(text.embeddingInput),
  agent: () =>
    context.with(setUser(setSession(context.active(), { sessionId: 'session-7' }), { userId: 'user-42' }), () =>
      weatherAgent(text.agentQuestion),
    ),
}

await scenarios[process.argv[2]]()
await provider.shutdown()
