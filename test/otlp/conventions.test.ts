// What a span means: step type, tool, model, tokens, prompt/response and failure, read by the GenAI, OpenInference,
// OpenLLMetry and Vercel AI SDK conventions in that order of precedence; unknown attributes kept as they are.
import t from 'tap'
import type { StepType } from '../../schemas/step.js'
import { readSpanMeaning } from '../../src/otlp/conventions.js'
import { promptOf } from '../../src/otlp/messages.js'
import { parseJsonText } from '../../src/otlp/values.js'
import { span } from './spans.js'

const meaning = (attributes: Record<string, unknown>, fields: Parameters<typeof span>[1] = {}) =>
  readSpanMeaning(span('s', { ...fields, attributes }))

t.test('step type from the convention attributes, GenAI first', async (t) => {
  const cases: [Record<string, unknown>, StepType][] = [
    [{ 'gen_ai.operation.name': 'chat' }, 'llm'],
    [{ 'gen_ai.operation.name': 'text_completion' }, 'llm'],
    [{ 'gen_ai.operation.name': 'generate_content' }, 'llm'],
    [{ 'gen_ai.operation.name': 'execute_tool' }, 'tool'],
    [{ 'gen_ai.operation.name': 'embeddings' }, 'retrieval'],
    [{ 'gen_ai.operation.name': 'invoke_agent' }, 'agent'],
    [{ 'gen_ai.operation.name': 'create_agent' }, 'agent'],
    [{ 'openinference.span.kind': 'LLM' }, 'llm'],
    [{ 'openinference.span.kind': 'TOOL' }, 'tool'],
    [{ 'openinference.span.kind': 'RETRIEVER' }, 'retrieval'],
    [{ 'openinference.span.kind': 'EMBEDDING' }, 'retrieval'],
    [{ 'openinference.span.kind': 'RERANKER' }, 'retrieval'],
    [{ 'openinference.span.kind': 'CHAIN' }, 'function'],
    [{ 'openinference.span.kind': 'AGENT' }, 'agent'],
    [{ 'openinference.span.kind': 'GUARDRAIL' }, 'other'],
    [{ 'traceloop.span.kind': 'workflow' }, 'function'],
    [{ 'traceloop.span.kind': 'task' }, 'function'],
    [{ 'traceloop.span.kind': 'agent' }, 'agent'],
    [{ 'traceloop.span.kind': 'tool' }, 'tool'],
    [{ 'llm.request.type': 'chat' }, 'llm'],
    [{ 'llm.request.type': 'embedding' }, 'retrieval'],
    [{ 'ai.operationId': 'ai.generateText.doGenerate' }, 'llm'],
    [{ 'ai.operationId': 'ai.toolCall' }, 'tool'],
    [{ 'ai.operationId': 'ai.generateText' }, 'function'],
    // Precedence: GenAI over OpenInference over OpenLLMetry.
    [{ 'gen_ai.operation.name': 'execute_tool', 'openinference.span.kind': 'LLM' }, 'tool'],
    [{ 'openinference.span.kind': 'RETRIEVER', 'traceloop.span.kind': 'tool' }, 'retrieval'],
    // An unknown value falls through to the next family, then to what the span names.
    [{ 'gen_ai.operation.name': 'something_new', 'openinference.span.kind': 'TOOL' }, 'tool'],
    [{ 'gen_ai.tool.name': 'search' }, 'tool'],
    [{ 'gen_ai.request.model': 'gpt-4o' }, 'llm'],
    [{ 'http.method': 'GET' }, 'other'],
    [{}, 'other'],
  ]
  for (const [attributes, type] of cases) t.equal(meaning(attributes).type, type, JSON.stringify(attributes))
})

t.test('tool name from gen_ai.tool.name, tool.name, OpenLLMetry entity name, else the tool span name', async (t) => {
  t.equal(meaning({ 'gen_ai.tool.name': 'a', 'tool.name': 'b' }).tool, 'a')
  t.equal(meaning({ 'openinference.span.kind': 'TOOL', 'tool.name': 'b' }).tool, 'b')
  t.equal(meaning({ 'traceloop.span.kind': 'tool', 'traceloop.entity.name': 'search' }).tool, 'search')
  t.equal(
    meaning({ 'gen_ai.operation.name': 'execute_tool' }, { name: 'execute_tool lookup' }).tool,
    'execute_tool lookup',
  )
  t.equal(meaning({ 'gen_ai.operation.name': 'chat' }).tool, null, 'only tool steps fall back to the span name')
})

t.test('model: the requested model first, then the response model, OpenInference, Vercel', async (t) => {
  t.equal(meaning({ 'gen_ai.request.model': 'gpt-4o', 'gen_ai.response.model': 'gpt-4o-2024-08-06' }).model, 'gpt-4o')
  t.equal(meaning({ 'gen_ai.response.model': 'gpt-4o-2024-08-06' }).model, 'gpt-4o-2024-08-06')
  t.equal(meaning({ 'llm.model_name': 'claude' }).model, 'claude')
  t.equal(meaning({ 'ai.model.id': 'mistral' }).model, 'mistral')
  const both = meaning({ 'gen_ai.request.model': 'a', 'gen_ai.response.model': 'b' })
  t.same([both.model, both.response_model, both.rest], ['a', 'b', {}], 'the model that answered is kept beside it')
  const same = meaning({ 'gen_ai.request.model': 'a', 'gen_ai.response.model': 'a' })
  t.same([same.model, same.response_model], ['a', null], 'no second name when the same model answered')
  const oi = meaning({
    'llm.model_name': 'gpt-4o-mini-2024-07-18',
    'llm.invocation_parameters': '{"model":"gpt-4o-mini"}',
  })
  t.same(
    [oi.model, oi.response_model, oi.rest],
    ['gpt-4o-mini', 'gpt-4o-mini-2024-07-18', { 'llm.invocation_parameters': '{"model":"gpt-4o-mini"}' }],
    'OpenInference: the model asked for is in the invocation parameters, llm.model_name is the one that answered',
  )
  const vercel = meaning({
    'ai.model.id': 'gpt-4o-mini',
    'gen_ai.request.model': 'gpt-4o-mini',
    'ai.response.model': 'gpt-4o-mini-2024-07-18',
    'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
  })
  t.same([vercel.model, vercel.response_model, vercel.rest], ['gpt-4o-mini', 'gpt-4o-mini-2024-07-18', {}])
  t.equal(meaning({ 'embedding.model_name': 'text-embedding-3-small' }).model, 'text-embedding-3-small')
})

t.test('tokens: every convention name, integers or digit strings, total from the parts when not given', async (t) => {
  const cases: [Record<string, unknown>, [number | null, number | null, number | null]][] = [
    [{ 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 5 }, [10, 5, 15]],
    [{ 'llm.token_count.prompt': 7, 'llm.token_count.completion': 3, 'llm.token_count.total': 11 }, [7, 3, 11]],
    [{ 'gen_ai.usage.prompt_tokens': '4', 'gen_ai.usage.completion_tokens': '2' }, [4, 2, 6]],
    [{ 'llm.usage.total_tokens': 30 }, [null, null, 30]],
    [{ 'ai.usage.promptTokens': 1, 'ai.usage.completionTokens': 2 }, [1, 2, 3]],
    [{ 'gen_ai.usage.input_tokens': 9, 'llm.token_count.prompt': 99 }, [9, null, 9]],
    [{ 'gen_ai.usage.input_tokens': -1, 'gen_ai.usage.output_tokens': 1.5 }, [null, null, null]],
    [{}, [null, null, null]],
  ]
  for (const [attributes, [prompt, completion, total]] of cases) {
    const m = meaning(attributes)
    t.same(
      [m.prompt_tokens, m.completion_tokens, m.total_tokens],
      [prompt, completion, total],
      JSON.stringify(attributes),
    )
  }
})

t.test('prompt and response from GenAI messages (attributes or the older content events)', async (t) => {
  const input = [
    { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
    { role: 'user', parts: [{ type: 'text', content: 'Hi?' }] },
  ]
  const output = [{ role: 'assistant', parts: [{ type: 'text', content: 'Hello.' }], finish_reason: 'stop' }]
  const m = meaning({
    'gen_ai.input.messages': JSON.stringify(input),
    'gen_ai.output.messages': JSON.stringify(output),
  })
  t.equal(m.prompt, 'Hi?', 'the last user message')
  t.equal(m.response, 'Hello.')
  t.same(m.input, input, 'the step keeps the messages as sent')
  t.same(m.output, output)

  const fromEvents = readSpanMeaning(
    span('s', {
      events: [
        {
          name: 'gen_ai.content.prompt',
          time_ms: 1,
          attributes: { 'gen_ai.prompt': '[{"role":"user","content":"Q"}]' },
        },
        {
          name: 'gen_ai.content.completion',
          time_ms: 2,
          attributes: { 'gen_ai.completion': '[{"role":"assistant","content":"A"}]' },
        },
      ],
    }),
  )
  t.same([fromEvents.prompt, fromEvents.response], ['Q', 'A'])
})

t.test('prompt and response from OpenInference flattened messages, else input.value / output.value', async (t) => {
  const m = meaning({
    'llm.input_messages.0.message.role': 'system',
    'llm.input_messages.0.message.content': 'Be brief.',
    'llm.input_messages.1.message.role': 'user',
    'llm.input_messages.1.message.contents.0.message_content.type': 'text',
    'llm.input_messages.1.message.contents.0.message_content.text': 'Part one.',
    'llm.input_messages.1.message.contents.1.message_content.text': 'Part two.',
    'llm.output_messages.0.message.role': 'assistant',
    'llm.output_messages.0.message.content': 'Done.',
    'input.value': '{"ignored": true}',
  })
  t.equal(m.prompt, 'Part one.\nPart two.')
  t.equal(m.response, 'Done.')
  t.same(m.input, [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Part one.\nPart two.' },
  ])
  t.same(m.rest, {}, 'every message attribute and the raw input it stands beside are used')

  const chain = meaning({
    'input.value': 'What is 2+2?',
    'output.value': '{"answer": 4}',
    'output.mime_type': 'application/json',
  })
  t.equal(chain.prompt, 'What is 2+2?')
  t.equal(chain.response, '{"answer":4}')
  t.same(chain.output, { answer: 4 }, 'JSON text is parsed for the step')
})

t.test('prompt and response from OpenLLMetry indexed names and entity input/output', async (t) => {
  const m = meaning({
    'gen_ai.prompt.0.role': 'system',
    'gen_ai.prompt.0.content': 'Be funny.',
    'gen_ai.prompt.1.role': 'user',
    'gen_ai.prompt.1.content': 'A joke?',
    'gen_ai.completion.0.role': 'assistant',
    'gen_ai.completion.0.content': 'Knock knock.',
    'gen_ai.completion.0.finish_reason': 'stop',
  })
  t.same([m.prompt, m.response], ['A joke?', 'Knock knock.'])
  const task = meaning({ 'traceloop.entity.input': '{"args":["x"]}', 'traceloop.entity.output': '"quoted result"' })
  t.same(task.input, 'x', 'a single argument is itself')
  const inputs: [string, unknown][] = [
    ['{"args":[],"kwargs":{}}', null],
    ['{"args":[],"kwargs":{"city":"Paris"}}', { city: 'Paris' }],
    ['{"args":["a","b"],"kwargs":{}}', { args: ['a', 'b'], kwargs: {} }],
    ['{"args":["a"],"kwargs":{"b":1}}', { args: ['a'], kwargs: { b: 1 } }],
    ['{"args":"odd"}', { args: 'odd' }],
  ]
  for (const [input, opened] of inputs) t.same(meaning({ 'traceloop.entity.input': input }).input, opened, input)
  t.equal(task.response, 'quoted result', 'a JSON-encoded string is unwrapped')
})

t.test('GenAI tool arguments and results are the step input and output', async (t) => {
  const m = meaning({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'get_weather',
    'gen_ai.tool.call.arguments': '{"city":"Paris"}',
    'gen_ai.tool.call.result': 'sunny',
  })
  t.same([m.input, m.output], [{ city: 'Paris' }, 'sunny'])
})

t.test('failure: status ERROR, or an exception event unless the status is explicitly OK', async (t) => {
  const exception = {
    name: 'exception',
    time_ms: 1,
    attributes: { 'exception.type': 'TimeoutError', 'exception.message': 'took too long' },
  }
  const cases: [Parameters<typeof span>[1], boolean, string | null][] = [
    [{ status_code: 2, status_message: 'upstream 503' }, true, 'upstream 503'],
    [{ status_code: 2, events: [exception] }, true, 'took too long'],
    [{ status_code: 0, events: [exception] }, true, 'took too long'],
    [{ status_code: 1, events: [exception] }, false, null],
    [{ status_code: 2 }, true, null],
    [{ status_code: 2, attributes: { 'error.type': 'RateLimit' } }, true, 'RateLimit'],
    [{ status_code: 1 }, false, null],
    [{}, false, null],
  ]
  for (const [fields, failed, error] of cases) {
    const m = readSpanMeaning(span('s', fields))
    t.same([m.failed, m.error], [failed, error], JSON.stringify(fields))
  }
})

t.test('session, user and tags; everything unread is kept in `rest`', async (t) => {
  const m = meaning({
    'gen_ai.conversation.id': 'c1',
    'session.id': 'ignored',
    'user.id': 'u1',
    'tag.tags': ['a', 'b'],
    'app.custom': 42,
  })
  t.same([m.session_id, m.user_id, m.tags], ['c1', 'u1', ['a', 'b']])
  t.same(m.rest, { 'session.id': 'ignored', 'app.custom': 42 })
  const ol = meaning({
    'traceloop.association.properties.session_id': 's2',
    'traceloop.association.properties.user_id': 'u2',
    'tag.tags': '["x"]',
  })
  t.same([ol.session_id, ol.user_id, ol.tags], ['s2', 'u2', ['x']])
})

t.test('helpers: the prompt is the last user message; JSON text is parsed only when it is JSON', async (t) => {
  t.equal(
    promptOf([
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
      { role: 'user', content: 'c' },
    ]),
    'c',
  )
  t.equal(
    promptOf([
      { role: 'system', content: 'a' },
      { role: 'tool', content: 'b' },
    ]),
    'a\nb',
  )
  t.equal(promptOf([]), null)
  t.same(parseJsonText('[1]'), [1])
  t.equal(parseJsonText('{not json'), '{not json')
  t.equal(parseJsonText('plain'), 'plain')
})

t.test('embeddings: texts and vectors of every convention, one as itself, several as a list', async (t) => {
  const vercelMany = meaning({
    'ai.operationId': 'ai.embedMany.doEmbed',
    'ai.values': ['"first"', '"second"'],
    'ai.embeddings': ['[1,2]', '[3,4]'],
    'ai.usage.tokens': 5,
  })
  t.same(
    [vercelMany.type, vercelMany.input, vercelMany.output, vercelMany.prompt, vercelMany.prompt_tokens],
    [
      'retrieval',
      ['first', 'second'],
      [
        [1, 2],
        [3, 4],
      ],
      'first\nsecond',
      5,
    ],
  )
  t.equal(vercelMany.response, null, 'vectors are no text')
  const oi = meaning({
    'openinference.span.kind': 'EMBEDDING',
    'embedding.model_name': 'text-embedding-3-small',
    'embedding.embeddings.0.embedding.text': 'only',
    'embedding.embeddings.0.embedding.vector': [0.5, 0.25],
  })
  t.same(
    [oi.model, oi.input, oi.output, oi.prompt, oi.rest],
    ['text-embedding-3-small', 'only', [0.5, 0.25], 'only', {}],
  )
  const ol = meaning({
    'llm.request.type': 'embedding',
    'gen_ai.prompt.0.content': 'a',
    'gen_ai.prompt.1.content': 'b',
  })
  t.same([ol.input, ol.prompt], [['a', 'b'], 'a\nb'], 'OpenLLMetry: role-less prompts of an embedding are its texts')
  const chat = meaning({ 'llm.request.type': 'chat', 'gen_ai.prompt.0.content': 'hi' })
  t.same(chat.input, [{ role: 'unknown', content: 'hi' }], 'a chat keeps them as messages')
})

t.test('tool calls a model chose show on its output, in every convention', async (t) => {
  const call = { id: 'c1', name: 'get_weather', arguments: { city: 'Paris' } }
  const read = {
    OpenInference: meaning({
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'c1',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'get_weather',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"city":"Paris"}',
    }),
    OpenLLMetry: meaning({
      'gen_ai.completion.0.role': 'assistant',
      'gen_ai.completion.0.tool_calls.0.id': 'c1',
      'gen_ai.completion.0.tool_calls.0.name': 'get_weather',
      'gen_ai.completion.0.tool_calls.0.arguments': '{"city":"Paris"}',
    }),
    'the Vercel AI SDK': meaning({
      'ai.operationId': 'ai.generateText.doGenerate',
      'ai.response.toolCalls': '[{"toolCallId":"c1","toolName":"get_weather","input":"{\\"city\\":\\"Paris\\"}"}]',
    }),
  }
  for (const [convention, { output }] of Object.entries(read)) {
    t.same(output, [{ role: 'assistant', content: '', tool_calls: [call] }], convention)
  }
  const asCalls = 'get_weather({"city":"Paris"})'
  t.equal(read.OpenInference.response, asCalls, 'a reply that only calls tools reads as the calls')
  const genai = meaning({
    'gen_ai.output.messages': JSON.stringify([
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'c1', name: 'get_weather', arguments: { city: 'Paris' } }],
      },
    ]),
  })
  t.equal(genai.response, asCalls)
})

t.test('names, wrappers and repeats: what each library calls a span and says twice', async (t) => {
  const wf = meaning({
    'traceloop.span.kind': 'workflow',
    'traceloop.entity.name': 'answer_question',
    'traceloop.entity.input': '{"args":[],"kwargs":{}}',
  })
  t.same([wf.entity, wf.prompt, wf.input], ['answer_question', null, null], 'an empty wrapper is no prompt')
  const root = meaning({
    'ai.operationId': 'ai.generateText',
    'ai.telemetry.functionId': 'weather-agent',
    'resource.name': 'weather-agent',
    'operation.name': 'ai.generateText weather-agent',
    'ai.prompt': '{"system":"Be brief.","prompt":"Rain?"}',
  })
  t.same([root.function_id, root.prompt, root.rest], ['weather-agent', 'Rain?', {}])
  const twins = meaning({
    'gen_ai.usage.input_tokens': 3,
    'ai.usage.inputTokens': 3,
    'llm.token_count.prompt': 4,
    'gen_ai.response.id': 'r1',
    'ai.response.id': 'r1',
  })
  t.equal(twins.prompt_tokens, 3)
  t.same(twins.rest, { 'llm.token_count.prompt': 4, 'gen_ai.response.id': 'r1' }, 'a differing value is kept')
})

t.test('a reported cost: GenAI, then OpenInference, then OpenLLMetry; out-of-bounds values are no cost', async (t) => {
  t.equal(meaning({ 'gen_ai.usage.cost': 0.0123 }).cost, 0.0123)
  t.equal(meaning({ 'llm.cost.total': '0.5' }).cost, 0.5)
  t.equal(meaning({ 'gen_ai.usage.total_cost': 2 }).cost, 2)
  t.equal(meaning({ 'gen_ai.usage.cost': 0.1, 'llm.cost.total': 0.2 }).cost, 0.1)
  t.equal(meaning({}).cost, null)
  t.equal(meaning({ 'gen_ai.usage.cost': -1 }).cost, null)
  t.equal(meaning({ 'gen_ai.usage.cost': 'lots' }).cost, null)
  t.equal(meaning({ 'gen_ai.usage.cost': 1e12 }).cost, null)
  t.notOk('gen_ai.usage.cost' in meaning({ 'gen_ai.usage.cost': 0.1 }).rest, 'a read cost is not kept twice')
})

t.test('LangChain values are opened into roles and text wherever they appear', async (t) => {
  const lc = (kind: string, kwargs: Record<string, unknown>) => ({
    lc: 1,
    type: 'constructor',
    id: ['langchain_core', 'messages', kind],
    kwargs,
  })
  const call = { name: 'get_weather', args: { city: 'Paris' }, id: 'call_1', type: 'tool_call' }
  const state = {
    messages: [
      lc('HumanMessage', { content: 'Rain in Paris?' }),
      lc('AIMessage', { content: '', tool_calls: [call] }),
      lc('ToolMessage', { content: '{"rain":0.8}', tool_call_id: 'call_1' }),
      lc('AIMessage', { content: 'Yes.' }),
    ],
  }
  const graph = meaning({
    'openinference.span.kind': 'CHAIN',
    'input.value': JSON.stringify({ messages: [{ role: 'user', content: 'Rain in Paris?' }] }),
    'output.value': JSON.stringify(state),
  })
  t.equal(graph.prompt, 'Rain in Paris?')
  t.equal(graph.response, 'Yes.', "a state's answer is its last message")
  t.same(graph.output, [
    { role: 'user', content: 'Rain in Paris?' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }],
    },
    { role: 'tool', content: '{"rain":0.8}' },
    { role: 'assistant', content: 'Yes.' },
  ])
  const tool = meaning({
    'openinference.span.kind': 'TOOL',
    'input.value': 'Paris',
    'output.value': JSON.stringify({ output: lc('ToolMessage', { content: '{"rain":0.8}' }) }),
  })
  t.same([tool.response, tool.output], ['{"rain":0.8}', { rain: 0.8 }], "a tool's ToolMessage is its content")
  const pairs = meaning({
    'input.value': JSON.stringify([
      ['human', 'Hi'],
      ['ai', 'Hello'],
    ]),
  })
  t.same(pairs.input, [
    { role: 'user', content: 'Hi' },
    { role: 'assistant', content: 'Hello' },
  ])
  const notMessages = meaning({ 'input.value': JSON.stringify([{ id: 1 }, { id: 2 }]) })
  t.same(notMessages.input, [{ id: 1 }, { id: 2 }], 'a list of anything else stays as sent')
})

t.test("Langfuse's attributes: type, model, messages, usage, cost, level ERROR, trace name and tags", async (t) => {
  const m = meaning({
    'langfuse.observation.type': 'generation',
    'langfuse.observation.model.name': 'gpt-4o',
    'langfuse.observation.input': JSON.stringify([{ role: 'user', content: 'Hi?' }]),
    'langfuse.observation.output': JSON.stringify({ role: 'assistant', content: 'Hello.' }),
    'langfuse.observation.usage_details': '{"input":21,"output":7,"total":28}',
    'langfuse.observation.cost_details': '{"input":0.001,"output":0.002}',
    'langfuse.observation.level': 'ERROR',
    'langfuse.observation.status_message': 'rate limited',
    'langfuse.trace.name': 'greeting',
    'langfuse.trace.tags': ['a', 'b'],
    'langfuse.environment': 'staging',
    'langfuse.internal.as_root': true,
  })
  t.match(m, {
    type: 'llm',
    model: 'gpt-4o',
    prompt: 'Hi?',
    response: 'Hello.',
    prompt_tokens: 21,
    completion_tokens: 7,
    total_tokens: 28,
    cost: 0.003,
    failed: true,
    error: 'rate limited',
    trace_name: 'greeting',
    tags: ['a', 'b'],
  })
  t.same(m.rest, { 'langfuse.environment': 'staging' }, 'the environment stays; internal marks do not')
  const warning = meaning({ 'langfuse.observation.level': 'WARNING', 'langfuse.observation.status_message': 'slow' })
  t.same([warning.failed, warning.rest['langfuse.observation.level']], [false, 'WARNING'])
  const types = ['embedding', 'retriever', 'tool', 'agent', 'chain', 'span', 'event'].map(
    (type) => meaning({ 'langfuse.observation.type': type }).type,
  )
  t.same(types, ['retrieval', 'retrieval', 'tool', 'agent', 'function', 'function', 'other'])
})

t.test('the newest GenAI conventions: provider, error class, evaluations, per-message events', async (t) => {
  const m = readSpanMeaning(
    span('s', {
      status_code: 2,
      attributes: { 'gen_ai.provider.name': 'openai', 'error.type': 'RateLimitError' },
      events: [
        { name: 'gen_ai.user.message', time_ms: 2, attributes: {}, body: { content: 'Second?' } },
        { name: 'gen_ai.system.message', time_ms: 1, attributes: {}, body: { content: 'Be brief.' } },
        {
          name: 'gen_ai.evaluation.result',
          time_ms: 3,
          attributes: { 'gen_ai.evaluation.name': 'tone', 'gen_ai.evaluation.score.value': '0.5' },
        },
      ],
    }),
  )
  t.same([m.provider, m.error_type, m.error, m.failed], ['openai', 'RateLimitError', 'RateLimitError', true])
  t.same(m.input, [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Second?' },
  ])
  t.same(m.evaluations, [{ name: 'tone', score: 0.5 }])
  t.same(meaning({ 'gen_ai.system': 'anthropic' }).provider, 'anthropic', 'the older name too')
})

t.test('a LangChain message wrapped deeper than any framework wraps one is kept as sent, not walked', async (t) => {
  let value: unknown = { lc: 1, type: 'constructor', id: ['AIMessage'], kwargs: { content: 'deep' } }
  const wrap = (levels: number) => {
    for (let i = 0; i < levels; i++) value = { output: value }
    return JSON.stringify(value)
  }
  t.equal(meaning({ 'output.value': wrap(1) }).response, 'deep', 'one wrapper is opened')
  const deep = wrap(1000)
  t.same(meaning({ 'output.value': deep }).response, deep)
})
