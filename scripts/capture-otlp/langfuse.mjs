// Runs one capture scenario with Langfuse's SDK (@langfuse/tracing over @langfuse/otel's span processor), pointed at
// the capture collector as a Langfuse server would be: it posts OTLP/JSON to <base>/api/public/otel/v1/traces with
// Basic auth. The OpenAI calls are wrapped by hand in observations, as Langfuse's docs show. Run by
// scripts/capture-otlp-fixtures.ts inside the temporary folder where the libraries are installed.
import { LangfuseSpanProcessor } from '@langfuse/otel'
import { propagateAttributes, startActiveObservation } from '@langfuse/tracing'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { client, system, text, tools } from './openai-calls.mjs'

const provider = new NodeTracerProvider({
  spanProcessors: [
    new LangfuseSpanProcessor({
      publicKey: 'pk-lf-capture',
      secretKey: 'sk-lf-capture',
      baseUrl: process.env.CAPTURE_LANGFUSE_URL,
      environment: 'capture',
    }),
  ],
})
provider.register()

/** One chat call as a Langfuse generation: model, input, output, usage and cost; a failure as level ERROR. */
const generation = (name, model, messages, extra = {}) =>
  startActiveObservation(
    name,
    async (observation) => {
      observation.update({ model, input: messages })
      try {
        const response = await client.chat.completions.create({ model, messages, ...extra })
        const { prompt_tokens: input, completion_tokens: output, total_tokens: total } = response.usage
        observation.update({
          output: response.choices[0].message,
          usageDetails: { input, output, total },
          // The application's own prices (not a price list's): what it reports is what Loupe shows.
          costDetails: { input: input * 0.00001, output: output * 0.00003 },
        })
        return response
      } catch (err) {
        observation.update({ level: 'ERROR', statusMessage: err.message })
        throw err
      }
    },
    { asType: 'generation' },
  )

const scenarios = {
  chat: () =>
    propagateAttributes({ traceName: 'capital-question', tags: ['capture', 'chat'] }, () =>
      generation('capital-answer', 'gpt-4o-mini', [system, { role: 'user', content: text.chatQuestion }]),
    ),
  fail: () =>
    generation('broken-call', 'gpt-does-not-exist', [{ role: 'user', content: text.failQuestion }]).catch(() => null),
  embedding: () =>
    startActiveObservation(
      'embed-note',
      async (observation) => {
        observation.update({ model: 'text-embedding-3-small', input: text.embeddingInput })
        const response = await client.embeddings.create({ model: 'text-embedding-3-small', input: text.embeddingInput })
        observation.update({ usageDetails: { input: response.usage.prompt_tokens } })
      },
      { asType: 'embedding' },
    ),
  agent: () =>
    propagateAttributes({ userId: 'user-42', sessionId: 'session-7', tags: ['capture'] }, () =>
      startActiveObservation(
        'weather_agent',
        async (agent) => {
          agent.update({ input: text.agentQuestion })
          const messages = [system, { role: 'user', content: text.agentQuestion }]
          const first = await generation('choose-tool', 'gpt-4o-mini', messages, { tools })
          const call = first.choices[0].message.tool_calls[0]
          const result = await startActiveObservation(
            'get_weather',
            async (observation) => {
              const args = JSON.parse(call.function.arguments)
              observation.update({ input: args })
              const weather = { city: args.city, rain_probability: 0.8 }
              observation.update({ output: weather })
              return weather
            },
            { asType: 'tool' },
          )
          messages.push(first.choices[0].message, {
            role: 'tool',
            tool_call_id: call.id,
            content: JSON.stringify(result),
          })
          const second = await generation('answer', 'gpt-4o-mini', messages, { tools })
          agent.update({ output: second.choices[0].message.content })
        },
        { asType: 'agent' },
      ),
    ),
}

await scenarios[process.argv[2]]()
await provider.shutdown()
