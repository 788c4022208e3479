// Runs one capture scenario with the Vercel AI SDK's telemetry on, exporting OTLP/JSON to CAPTURE_OTLP_URL.
// Run by scripts/capture-otlp-fixtures.ts inside the temporary folder where the libraries are installed.
import { createOpenAI } from '@ai-sdk/openai'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { embed, generateText, stepCountIs, streamText, tool } from 'ai'
import { z } from 'zod'

const text = JSON.parse(process.env.CAPTURE_SCENARIO_TEXT)
const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'capture-vercel-ai' }),
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: process.env.CAPTURE_OTLP_URL }))],
})
provider.register()

const openai = createOpenAI({ baseURL: process.env.CAPTURE_OPENAI_URL, apiKey: 'sk-capture' })
const telemetry = (functionId, metadata = {}) => ({ isEnabled: true, functionId, metadata })

const scenarios = {
  chat: () =>
    generateText({
      model: openai.chat('gpt-4o-mini'),
      system: text.system,
      prompt: text.chatQuestion,
      experimental_telemetry: telemetry('capital-question'),
    }),
  stream: async () => {
    const result = streamText({
      model: openai.chat('gpt-4o-mini'),
      system: text.system,
      prompt: text.streamQuestion,
      experimental_telemetry: telemetry('colour-question'),
    })
    for await (const _ of result.textStream);
  },
  fail: () =>
    generateText({
      model: openai.chat('gpt-does-not-exist'),
      prompt: text.failQuestion,
      maxRetries: 0,
      experimental_telemetry: telemetry('broken-call'),
    }).catch(() => null),
  embedding: () =>
    embed({
      model: openai.embedding('text-embedding-3-small'),
      value: text.embeddingInput,
      experimental_telemetry: telemetry('embed-note'),
    }),
  agent: () =>
    generateText({
      model: openai.chat('gpt-4o-mini'),
      system: text.system,
      prompt: text.agentQuestion,
      tools: {
        get_weather: tool({
          description: 'Weather forecast for a city',
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => ({ city, rain_probability: 0.8 }),
        }),
      },
      stopWhen: stepCountIs(2),
      experimental_telemetry: telemetry('weather-agent', { sessionId: 'session-7', userId: 'user-42' }),
    }),
}

await scenarios[process.argv[2]]()
await provider.shutdown()
