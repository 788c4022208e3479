// What real instrumentation libraries export reads in Loupe as their user expects: every fixture under
// test/fixtures/otlp/libraries (captured from the libraries by scripts/capture-otlp-fixtures.ts, or written by hand
// from a library's published conventions) is replayed into a fresh app and each stored trace is checked field by
// field.
import t, { type Test } from 'tap'
import { type Trace, TraceSchema } from '../../schemas/index.js'
import { SCENARIO_TEXT as TEXT } from '../../scripts/capture-otlp/fake-openai.js'
import { buildTestApp, createProject, schemaErrors } from '../helper.js'
import { libraryFixtures, replay, spanCountOf, traceIdsOf } from './libraries.js'

/** A capture scenario: chat, stream, fail, embedding, agent; and a library's own (chain, responses). */
type Scenario = string

/** A step as checked here: name, type, tool, status, token_count. */
type StepRow = [string, string, string | null, string, number | null]
interface Expected {
  /** Trace fields, matched (`t.match`); `metadata.response_model` is the model that answered. */
  trace: Record<string, unknown>
  steps: StepRow[]
  /** Input and output of some steps, by index. */
  io?: Record<number, { input: unknown; output: unknown }>
}

const NOT_FOUND = 'The model `gpt-does-not-exist` does not exist or you do not have access to it.'
const SNAPSHOT = 'gpt-4o-mini-2024-07-18'
const VECTOR = [0.0123, -0.0456, 0.0789, 0.0012]
/** The vector as the OpenAI SDK decodes it (it asks for base64 float32). */
const VECTOR_F32 = [...new Float32Array(VECTOR)]
const WEATHER_CALL = { id: 'call_weather_1', name: 'get_weather', arguments: { city: 'Paris' } }
const WEATHER = { city: 'Paris', rain_probability: 0.8 }
const chatIn = (question: string) => [
  { role: 'system', content: TEXT.system },
  { role: 'user', content: question },
]
const genaiIn = (question: string) => [
  { role: 'system', parts: [{ type: 'text', content: TEXT.system }] },
  { role: 'user', parts: [{ type: 'text', content: question }] },
]
const agentTrace = (name: string) => ({
  name,
  model: 'gpt-4o-mini',
  prompt: TEXT.agentQuestion,
  response: TEXT.agentAnswer,
  prompt_tokens: 157,
  completion_tokens: 31,
  token_count: 188,
  tokens_reported: true,
  status: 'success',
  session_id: 'session-7',
  user_id: 'user-42',
  metadata: { response_model: SNAPSHOT },
})
/** A chat traced alone: the trace, and the call as its one step. */
const plainChat = (name: string): Expected => ({
  trace: chatTrace(name, [24, 8]),
  steps: [[name, 'llm', null, 'success', 32]],
  io: { 0: { input: chatIn(TEXT.chatQuestion), output: [{ role: 'assistant', content: TEXT.chatAnswer }] } },
})

/** An embedding traced alone, with its 7 tokens: the trace, and the call as its one retrieval step. */
const embeddingCall = (name: string, vector: number[] | null): Expected => ({
  trace: {
    name,
    model: 'text-embedding-3-small',
    prompt: TEXT.embeddingInput,
    response: null,
    prompt_tokens: 7,
    token_count: 7,
    tokens_reported: true,
  },
  steps: [[name, 'retrieval', null, 'success', 7]],
  io: { 0: { input: TEXT.embeddingInput, output: vector } },
})

/** The agent's first model call as the chat messages read it: the question in, the call of the tool out. */
const TOOL_CHOICE = {
  input: chatIn(TEXT.agentQuestion),
  output: [{ role: 'assistant', content: '', tool_calls: [WEATHER_CALL] }],
}

/** An agent whose model call picks the tool, the tool runs, a second call answers: steps in that order. */
const agentCallingTool = (name: string, llm: string): Expected => ({
  trace: agentTrace(name),
  steps: [
    [llm, 'llm', null, 'success', 78],
    ['get_weather', 'tool', 'get_weather', 'success', null],
    [llm, 'llm', null, 'success', 110],
  ],
  io: {
    0: TOOL_CHOICE,
    1: { input: { city: 'Paris' }, output: WEATHER },
  },
})
const chatTrace = (name: string, tokens: [number, number]) => ({
  name,
  model: 'gpt-4o-mini',
  prompt: TEXT.chatQuestion,
  response: TEXT.chatAnswer,
  prompt_tokens: tokens[0],
  completion_tokens: tokens[1],
  token_count: tokens[0] + tokens[1],
  tokens_reported: true,
  status: 'success',
  metadata: { response_model: SNAPSHOT },
})

const EXPECTED: Record<string, Record<Scenario, Expected>> = {
  openinference: {
    chat: plainChat('OpenAI Chat Completions'),
    // Without `stream_options.include_usage` OpenAI reports no usage in a stream, and this library counts none.
    stream: {
      trace: {
        name: 'OpenAI Chat Completions',
        model: 'gpt-4o-mini',
        prompt: TEXT.streamQuestion,
        response: TEXT.streamAnswer,
        prompt_tokens: null,
        completion_tokens: null,
        token_count: 0,
        tokens_reported: false,
      },
      steps: [['OpenAI Chat Completions', 'llm', null, 'success', null]],
    },
    // The library never ends the span of a rejected call: the application's chain span is all that arrives.
    fail: {
      trace: {
        name: 'ask',
        model: null,
        prompt: TEXT.failQuestion,
        response: null,
        status: 'failed',
        failure_reason: `404 ${NOT_FOUND}`,
        tokens_reported: false,
        metadata: { exception: { type: 'model_not_found' } },
      },
      steps: [],
    },
    // The library reports no usage for embeddings.
    embedding: {
      trace: {
        name: 'OpenAI Embeddings',
        model: 'text-embedding-3-small',
        prompt: TEXT.embeddingInput,
        prompt_tokens: null,
        tokens_reported: false,
      },
      steps: [['OpenAI Embeddings', 'retrieval', null, 'success', null]],
      io: { 0: { input: TEXT.embeddingInput, output: VECTOR_F32 } },
    },
    // The JS SDK stamps whole milliseconds: the tool and the second call start in the same one, and the tool,
    // which ended first, comes first.
    agent: agentCallingTool('weather_agent', 'OpenAI Chat Completions'),
  },
  openllmetry: {
    chat: {
      trace: chatTrace('chat gpt-4o-mini', [24, 8]),
      steps: [['chat gpt-4o-mini', 'llm', null, 'success', 32]],
      io: {
        0: {
          input: genaiIn(TEXT.chatQuestion),
          output: [{ role: 'assistant', finish_reason: 'stop', parts: [{ type: 'text', content: TEXT.chatAnswer }] }],
        },
      },
    },
    // The library counts a stream's tokens itself when the server reports none.
    stream: {
      trace: {
        name: 'chat gpt-4o-mini',
        model: 'gpt-4o-mini',
        prompt: TEXT.streamQuestion,
        token_count: 15,
        tokens_reported: true,
      },
      steps: [['chat gpt-4o-mini', 'llm', null, 'success', 15]],
    },
    // The library never ends the span of a rejected call: the application's workflow span is all that arrives.
    fail: {
      trace: {
        name: 'ask',
        model: null,
        prompt: '',
        response: null,
        status: 'failed',
        failure_reason: `404 ${NOT_FOUND}`,
        tokens_reported: false,
      },
      steps: [],
    },
    // The library does not trace embeddings: the application's task span is all that arrives.
    embedding: {
      trace: {
        name: 'embed_note',
        model: null,
        prompt: TEXT.embeddingInput,
        prompt_tokens: null,
        tokens_reported: false,
      },
      steps: [],
    },
    agent: {
      trace: agentTrace('answer_question'),
      // The JS SDK stamps whole milliseconds: the tool and the second call start in the same one, and the tool,
      // which ended first, comes first.
      steps: [
        ['chat gpt-4o-mini', 'llm', null, 'success', 78],
        ['get_weather', 'tool', 'get_weather', 'success', null],
        ['chat gpt-4o-mini', 'llm', null, 'success', 110],
      ],
      io: {
        0: {
          input: genaiIn(TEXT.agentQuestion),
          output: [
            {
              role: 'assistant',
              finish_reason: 'tool_call',
              parts: [{ type: 'tool_call', ...WEATHER_CALL }],
            },
          ],
        },
        1: { input: { city: 'Paris' }, output: WEATHER },
      },
    },
  },
  'vercel-ai': {
    chat: {
      trace: chatTrace('capital-question', [24, 8]),
      steps: [['ai.generateText.doGenerate', 'llm', null, 'success', 32]],
      io: { 0: { input: chatIn(TEXT.chatQuestion), output: TEXT.chatAnswer } },
    },
    stream: {
      trace: {
        name: 'colour-question',
        model: 'gpt-4o-mini',
        prompt: TEXT.streamQuestion,
        response: TEXT.streamAnswer,
        token_count: 27,
        tokens_reported: true,
        metadata: { response_model: SNAPSHOT },
      },
      steps: [['ai.streamText.doStream', 'llm', null, 'success', 27]],
    },
    fail: {
      trace: {
        name: 'broken-call',
        model: 'gpt-does-not-exist',
        prompt: TEXT.failQuestion,
        response: null,
        status: 'failed',
        failure_reason: NOT_FOUND,
        tokens_reported: false,
      },
      steps: [['ai.generateText.doGenerate', 'llm', null, 'failed', null]],
    },
    embedding: {
      trace: {
        name: 'embed-note',
        model: 'text-embedding-3-small',
        prompt: TEXT.embeddingInput,
        prompt_tokens: 7,
        token_count: 7,
        tokens_reported: true,
      },
      steps: [['ai.embed.doEmbed', 'retrieval', null, 'success', 7]],
      io: { 0: { input: TEXT.embeddingInput, output: VECTOR } },
    },
    agent: agentCallingTool('weather-agent', 'ai.generateText.doGenerate'),
  },
  // Written by hand from the Python libraries' published conventions (no Python here to capture them). A streamed
  // chat is not covered: its attributes are those of a chat.
  'python-openllmetry': {
    chat: plainChat('openai.chat'),
    // The Python library ends a failed call's span with the error.
    fail: {
      trace: {
        name: 'openai.chat',
        model: 'gpt-does-not-exist',
        prompt: TEXT.failQuestion,
        status: 'failed',
        failure_reason: `Error code: 404 - {'error': {'message': '${NOT_FOUND}', 'type': 'invalid_request_error', 'param': None, 'code': 'model_not_found'}}`,
        tokens_reported: false,
      },
      steps: [['openai.chat', 'llm', null, 'failed', null]],
    },
    // The library records no vectors.
    embedding: embeddingCall('openai.embeddings', null),
    agent: agentCallingTool('answer_question', 'openai.chat'),
  },
  'python-openinference': {
    chat: plainChat('ChatCompletion'),
    fail: {
      trace: {
        name: 'ChatCompletion',
        model: 'gpt-does-not-exist',
        prompt: TEXT.failQuestion,
        status: 'failed',
        tokens_reported: false,
        metadata: { exception: { type: 'openai.NotFoundError' } },
      },
      steps: [['ChatCompletion', 'llm', null, 'failed', null]],
    },
    embedding: embeddingCall('CreateEmbeddingResponse', VECTOR),
    agent: agentCallingTool('weather_agent', 'ChatCompletion'),
  },
}

/** The agent's trace when nothing names a session or user. */
const anonymousAgent = (name: string) => ({ ...agentTrace(name), session_id: null, user_id: null })

Object.assign(EXPECTED, {
  // The OpenTelemetry project's OpenAI instrumentation puts no content on its spans: prompts and answers come as log
  // records (the chat API's per-message events, the Responses API's inference details), folded into the spans here.
  'otel-openai': {
    chat: {
      trace: { ...chatTrace('chat gpt-4o-mini', [24, 8]), metadata: { response_model: SNAPSHOT, provider: 'openai' } },
      steps: [['chat gpt-4o-mini', 'llm', null, 'success', 32]],
      io: { 0: { input: chatIn(TEXT.chatQuestion), output: [{ role: 'assistant', content: TEXT.chatAnswer }] } },
    },
    // No usage in a stream unless asked for, and the library counts none.
    stream: {
      trace: {
        name: 'chat gpt-4o-mini',
        prompt: TEXT.streamQuestion,
        response: TEXT.streamAnswer,
        prompt_tokens: null,
        token_count: 0,
        tokens_reported: false,
      },
      steps: [['chat gpt-4o-mini', 'llm', null, 'success', null]],
      io: { 0: { input: chatIn(TEXT.streamQuestion), output: [{ role: 'assistant', content: TEXT.streamAnswer }] } },
    },
    // The library ends a failed call's span with the error; its class stays beside the message.
    fail: {
      trace: {
        name: 'chat gpt-does-not-exist',
        model: 'gpt-does-not-exist',
        prompt: TEXT.failQuestion,
        response: null,
        status: 'failed',
        failure_reason: `404 ${NOT_FOUND}`,
        metadata: { error_type: 'NotFoundError' },
      },
      steps: [['chat gpt-does-not-exist', 'llm', null, 'failed', null]],
    },
    // The library sends no embedded text and no vector, as a span or as a log record.
    embedding: {
      trace: { name: 'embeddings text-embedding-3-small', model: 'text-embedding-3-small', prompt: '', token_count: 7 },
      steps: [['embeddings text-embedding-3-small', 'retrieval', null, 'success', 7]],
      io: { 0: { input: null, output: null } },
    },
    agent: {
      trace: anonymousAgent('invoke_agent weather_agent'),
      steps: [
        ['chat gpt-4o-mini', 'llm', null, 'success', 78],
        ['execute_tool get_weather', 'tool', 'get_weather', 'success', null],
        ['chat gpt-4o-mini', 'llm', null, 'success', 110],
      ],
      io: {
        0: TOOL_CHOICE,
      },
    },
    // The Responses API: the system text is `gen_ai.system_instructions`, and leads the input as its system message.
    responses: {
      trace: chatTrace('chat gpt-4o-mini', [24, 8]),
      steps: [['chat gpt-4o-mini', 'llm', null, 'success', 32]],
      io: {
        0: {
          input: genaiIn(TEXT.chatQuestion),
          output: [{ role: 'assistant', parts: [{ type: 'text', content: TEXT.chatAnswer }], finish_reason: 'stop' }],
        },
      },
    },
  },
  // OpenInference's LangChain instrumentation: values are LangChain's serialized messages, opened into roles and text.
  'openinference-langchain': {
    // The application filled a template with "France": the trace's prompt is the question the model was asked.
    chain: {
      trace: {
        name: 'RunnableSequence',
        model: 'gpt-4o-mini',
        prompt: TEXT.chatQuestion,
        response: TEXT.chatAnswer,
        prompt_tokens: 24,
        completion_tokens: 8,
        token_count: 32,
      },
      steps: [
        ['ChatPromptTemplate', 'other', null, 'success', null],
        ['ChatOpenAI', 'llm', null, 'success', 32],
        ['StrOutputParser', 'function', null, 'success', null],
      ],
      io: {
        0: { input: 'France', output: chatIn(TEXT.chatQuestion) },
        1: { input: chatIn(TEXT.chatQuestion), output: [{ role: 'assistant', content: TEXT.chatAnswer }] },
        2: { input: [{ role: 'assistant', content: TEXT.chatAnswer }], output: TEXT.chatAnswer },
      },
    },
    fail: {
      trace: {
        name: 'ChatOpenAI',
        model: 'gpt-does-not-exist',
        prompt: TEXT.failQuestion,
        status: 'failed',
        failure_reason: new RegExp(`^404 ${NOT_FOUND.replace(/[.`]/g, '\\$&')}`),
      },
      steps: [['ChatOpenAI', 'llm', null, 'failed', null]],
    },
    // A LangGraph ReAct agent: its state `{"messages":[…]}` in, the whole conversation out (the answer is its last).
    // Its `agent` node calls the model, so it is an agent step; its `tools` node only runs tools.
    agent: {
      // LangChain's ChatOpenAI reports the model it asked for only.
      trace: { ...anonymousAgent('LangGraph'), metadata: {} },
      steps: [
        ['__start__', 'function', null, 'success', null],
        ['agent', 'agent', null, 'success', null],
        ['RunnableSequence', 'function', null, 'success', null],
        ['prompt', 'function', null, 'success', null],
        ['ChatOpenAI', 'llm', null, 'success', 78],
        ['RunnableLambda', 'function', null, 'success', null],
        ['tools', 'function', null, 'success', null],
        ['get_weather', 'tool', 'get_weather', 'success', null],
        ['agent', 'agent', null, 'success', null],
        ['RunnableSequence', 'function', null, 'success', null],
        ['prompt', 'function', null, 'success', null],
        ['ChatOpenAI', 'llm', null, 'success', 110],
        ['RunnableLambda', 'function', null, 'success', null],
      ],
      io: {
        1: {
          input: [{ role: 'user', content: TEXT.agentQuestion }],
          output: [{ role: 'assistant', content: '', tool_calls: [WEATHER_CALL] }],
        },
        // The library passes the tool its argument alone; its ToolMessage output is opened to the content.
        7: { input: 'Paris', output: WEATHER },
        8: {
          input: [
            { role: 'user', content: TEXT.agentQuestion },
            { role: 'assistant', content: '', tool_calls: [WEATHER_CALL] },
            { role: 'tool', content: JSON.stringify(WEATHER) },
          ],
          output: TEXT.agentAnswer,
        },
      },
    },
  },
  // Langfuse's SDK, sent to Langfuse's path with Basic auth: everything is in `langfuse.*` attributes.
  langfuse: {
    chat: {
      trace: {
        ...chatTrace('capital-question', [24, 8]),
        metadata: { 'langfuse.environment': 'capture' },
        tags: ['capture', 'chat'],
        cost: 0.00048,
      },
      steps: [['capital-answer', 'llm', null, 'success', 32]],
      io: { 0: { input: chatIn(TEXT.chatQuestion), output: [{ role: 'assistant', content: TEXT.chatAnswer }] } },
    },
    // No OTel status: level ERROR and its status message.
    fail: {
      trace: {
        name: 'broken-call',
        model: 'gpt-does-not-exist',
        prompt: TEXT.failQuestion,
        status: 'failed',
        failure_reason: `404 ${NOT_FOUND}`,
      },
      steps: [['broken-call', 'llm', null, 'failed', null]],
    },
    embedding: {
      trace: { name: 'embed-note', model: 'text-embedding-3-small', prompt: TEXT.embeddingInput, token_count: 7 },
      steps: [['embed-note', 'retrieval', null, 'success', 7]],
      io: { 0: { input: TEXT.embeddingInput, output: null } },
    },
    agent: {
      trace: { ...agentTrace('weather_agent'), metadata: {}, tags: ['capture'] },
      steps: [
        ['choose-tool', 'llm', null, 'success', 78],
        ['get_weather', 'tool', 'get_weather', 'success', null],
        ['answer', 'llm', null, 'success', 110],
      ],
      io: {
        0: TOOL_CHOICE,
        1: { input: { city: 'Paris' }, output: WEATHER },
      },
    },
  },
} satisfies Record<string, Record<Scenario, Expected>>)

// Written by hand from the newest GenAI conventions: the inference details event (span event or log record), its
// messages as JSON text or AnyValue arrays, system instructions, evaluations, the provider, error.type.
const ITALY = 'What is the capital of Italy?'
const INSTRUCTIONS = [{ type: 'text', content: 'Answer in one word.' }]
const italyIn = [{ role: 'user', parts: [{ type: 'text', content: ITALY }] }]
const withInstructions = [{ role: 'system', parts: INSTRUCTIONS }, ...italyIn]
const rome = [{ role: 'assistant', parts: [{ type: 'text', content: 'Rome.' }], finish_reason: 'stop' }]
Object.assign(EXPECTED, {
  'genai-latest': {
    'details-json': {
      trace: {
        name: 'invoke_agent capitals',
        model: 'gpt-4o',
        prompt: ITALY,
        response: 'Rome.',
        token_count: 39,
        metadata: {
          provider: 'openai',
          evaluations: [
            {
              name: 'relevance',
              score: 0.9,
              label: 'relevant',
              explanation: 'Answers the question.',
              response_id: 'chatcmpl-it1',
              span_id: 'a000000000000002',
            },
          ],
        },
      },
      steps: [['chat gpt-4o', 'llm', null, 'success', 39]],
      io: { 0: { input: withInstructions, output: rome } },
    },
    'details-anyvalue': {
      trace: {
        name: 'chat claude-sonnet-4',
        model: 'claude-sonnet-4',
        prompt: ITALY,
        status: 'failed',
        failure_reason: 'InternalServerError',
        metadata: { provider: 'anthropic', error_type: 'InternalServerError' },
      },
      steps: [['chat claude-sonnet-4', 'llm', null, 'failed', null]],
      io: { 0: { input: withInstructions, output: null } },
    },
    'attributes-anyvalue': {
      trace: { name: 'chat gpt-4o', prompt: ITALY, response: 'Rome.', metadata: { provider: 'openai' } },
      steps: [['chat gpt-4o', 'llm', null, 'success', 39]],
      io: {
        0: {
          input: [
            { role: 'system', parts: INSTRUCTIONS },
            ...italyIn,
            {
              role: 'assistant',
              parts: [{ type: 'tool_call', id: 'call_1', name: 'lookup_capital', arguments: { country: 'Italy' } }],
            },
            { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: 'Rome' }] },
          ],
          output: rome,
        },
      },
    },
    // The log records arrive before their span; the one that is no GenAI event is accepted and ignored.
    'logs-details': {
      trace: { name: 'chat gpt-4o-mini', model: 'gpt-4o-mini', prompt: ITALY, response: 'Rome.', token_count: 23 },
      steps: [['chat gpt-4o-mini', 'llm', null, 'success', 23]],
      io: { 0: { input: withInstructions, output: rome } },
    },
  },
} satisfies Record<string, Record<Scenario, Expected>>)

/** Attributes that must never show in a step's or trace's metadata: each was read under another name. */
const READ_ELSEWHERE = [
  'ai.usage.inputTokens',
  'ai.usage.outputTokens',
  'ai.model.id',
  'ai.response.model',
  'langfuse.observation.usage_details',
  'langfuse.observation.input',
  'langfuse.internal.is_app_root',
]

function check(t: Test, trace: Trace, expected: Expected) {
  t.same(schemaErrors(TraceSchema, trace), [], 'a valid trace')
  t.match(trace, expected.trace, 'the trace')
  t.same(
    trace.steps.map((s) => [s.name, s.type, s.tool, s.status, s.token_count]),
    expected.steps,
    'the steps',
  )
  for (const [index, io] of Object.entries(expected.io ?? {})) {
    const step = trace.steps[Number(index)]
    t.same([step?.input, step?.output], [io.input, io.output], `step ${index} input and output`)
  }
  for (const metadata of [trace.metadata, ...trace.steps.map((s) => s.metadata)])
    for (const key of READ_ELSEWHERE) t.notOk(Object.hasOwn(metadata, key), `${key} is not repeated in metadata`)
}

for (const [library, scenarios] of Object.entries(EXPECTED)) {
  t.test(`${library}: every captured scenario makes the trace its user expects`, async (t) => {
    const fixtures = libraryFixtures(library)
    // Langfuse's SDK posts where a Langfuse server takes spans, with `Basic base64(publicKey:secretKey)`.
    const asLangfuse = library === 'langfuse'
    t.same([...fixtures.keys()].sort(), Object.keys(scenarios).sort(), 'a fixture for every scenario')
    const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
    const { key } = await createProject(app)
    for (const [scenario, fixture] of fixtures) {
      await t.test(scenario, async (t) => {
        t.equal(traceIdsOf(fixture).length, 1, 'one trace id')
        const { replies, traces } = await replay(app, key, fixture, { asLangfuse })
        t.same(
          replies,
          fixture.exports.map(() => ({})),
          'every span accepted',
        )
        t.ok(spanCountOf(fixture) > 0)
        const trace = traces[0]
        if (!trace) return t.fail('stored')
        check(t, trace, scenarios[scenario]!)
      })
    }
  })
}
