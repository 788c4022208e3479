// The calls the OpenAI-client runners (OpenInference, OpenLLMetry) make, the same for both: only how each library
// wraps them (an agent or workflow span, a tool span) differs.
import OpenAI from 'openai'

export const text = JSON.parse(process.env.CAPTURE_SCENARIO_TEXT)
// A runner whose instrumentation patches the CommonJS build of `openai` hands that class over as CAPTURE_OPENAI_CLASS.
const Client = globalThis.CAPTURE_OPENAI_CLASS ?? OpenAI
export const client = new Client({ baseURL: process.env.CAPTURE_OPENAI_URL, apiKey: 'sk-capture', maxRetries: 0 })
export const system = { role: 'system', content: text.system }
export const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather forecast for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
]

export const chat = () =>
  client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [system, { role: 'user', content: text.chatQuestion }],
  })

export async function stream() {
  const chunks = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [system, { role: 'user', content: text.streamQuestion }],
    stream: true,
  })
  for await (const _ of chunks);
}

/** A call to a model that does not exist: the server answers 404. */
export const failingCall = (question) =>
  client.chat.completions.create({ model: 'gpt-does-not-exist', messages: [{ role: 'user', content: question }] })

export const embedding = (input) => client.embeddings.create({ model: 'text-embedding-3-small', input })

/** The agent's body: a chat that picks the tool, the tool (`getWeather`, traced by the caller), a chat that answers. */
export async function answerWithWeather(question, getWeather) {
  const messages = [system, { role: 'user', content: question }]
  const first = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools })
  const call = first.choices[0].message.tool_calls[0]
  const result = await getWeather(JSON.parse(call.function.arguments))
  messages.push(first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) })
  const second = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools })
  return second.choices[0].message.content
}

/** The same question through the Responses API, with the system text as `instructions`. */
export const responses = () =>
  client.responses.create({ model: 'gpt-4o-mini', instructions: text.system, input: text.chatQuestion })
