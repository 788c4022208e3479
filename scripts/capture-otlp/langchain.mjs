// Runs one capture scenario with OpenInference's LangChain instrumentation: a prompt-template chain, a failing model
// call, and a LangGraph ReAct agent with one tool, all on LangChain's ChatOpenAI; spans go to CAPTURE_OTLP_URL as
// OTLP/JSON. Run by scripts/capture-otlp-fixtures.ts inside the temporary folder where the libraries are installed.
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain'
import * as CallbackManagerModule from '@langchain/core/callbacks/manager'
import { awaitAllCallbacks } from '@langchain/core/callbacks/promises'
import { StringOutputParser } from '@langchain/core/output_parsers'
import { ChatPromptTemplate } from '@langchain/core/prompts'
import { tool } from '@langchain/core/tools'
import { createReactAgent } from '@langchain/langgraph/prebuilt'
import { ChatOpenAI } from '@langchain/openai'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { z } from 'zod'

const text = JSON.parse(process.env.CAPTURE_SCENARIO_TEXT)
const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'capture-langchain' }),
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: process.env.CAPTURE_OTLP_URL }))],
})
provider.register()
new LangChainInstrumentation().manuallyInstrument(CallbackManagerModule)

const model = (name) =>
  new ChatOpenAI({
    model: name,
    apiKey: 'sk-capture',
    maxRetries: 0,
    configuration: { baseURL: process.env.CAPTURE_OPENAI_URL },
  })
const prompt = ChatPromptTemplate.fromMessages([
  ['system', text.system],
  ['human', 'What is the capital of {country}?'],
])
const getWeather = tool(async ({ city }) => JSON.stringify({ city, rain_probability: 0.8 }), {
  name: 'get_weather',
  description: 'Weather forecast for a city',
  schema: z.object({ city: z.string() }),
})

const scenarios = {
  // The application's question is a template filled with one variable.
  chain: () => prompt.pipe(model('gpt-4o-mini')).pipe(new StringOutputParser()).invoke({ country: 'France' }),
  fail: () =>
    model('gpt-does-not-exist')
      .invoke([['human', text.failQuestion]])
      .catch(() => null),
  agent: () =>
    createReactAgent({ llm: model('gpt-4o-mini'), tools: [getWeather], prompt: text.system }).invoke({
      messages: [{ role: 'user', content: text.agentQuestion }],
    }),
}

await scenarios[process.argv[2]]()
// LangChain runs its callbacks (where the spans end) in the background: the root's ends after invoke resolves.
await awaitAllCallbacks()
await provider.shutdown()
