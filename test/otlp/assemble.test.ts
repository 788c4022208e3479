// Spans of one trace → one TraceInput: which span is the root, the order of the steps, tokens without double
// counting, a trace whose root never came, and every limit of the trace schema respected.
import t from 'tap'
import { LIMITS } from '../../schemas/trace.js'
import { assembleTrace, spanIdsOf } from '../../src/otlp/assemble.js'
import { span, spanId, TRACE_ID } from './spans.js'

const T0_ISO = '2026-11-21T13:45:00.000Z'
const names = (input: ReturnType<typeof assembleTrace>['input']) => (input.steps ?? []).map((s) => s.name)

t.test(
  'the root gives the trace; its descendants become steps in start order, whatever the arrival order',
  async (t) => {
    const { input, dropped } = assembleTrace([
      span('c2', { parent: 'root', start: 300, name: 'second' }),
      span('g1', { parent: 'c1', start: 150, name: 'grandchild' }),
      span('c1', { parent: 'root', start: 100, name: 'first' }),
      span('root', { start: 0, duration: 1000, name: 'handle', attributes: { 'input.value': 'hello' } }),
    ])
    t.equal(dropped, 0)
    t.equal(input.trace_id, TRACE_ID)
    t.equal(input.name, 'handle')
    t.equal(input.prompt, 'hello')
    t.equal(input.created_at, T0_ISO)
    t.equal(input.latency, 1000)
    t.same(names(input), ['first', 'grandchild', 'second'])
    t.same(input.steps?.[0], {
      name: 'first',
      type: 'other',
      tool: null,
      status: 'success',
      error: null,
      latency: 10,
      token_count: null,
      cost: null,
      input: null,
      output: null,
      started_at: '2026-11-21T13:45:00.100Z',
      metadata: { otel: { span_id: spanId('c1'), parent_span_id: spanId('root'), kind: 1, scope: 'test@1.0.0' } },
      parent_index: null,
    })
    t.match(input.metadata, { otel: { span_id: spanId('root'), parent_span_id: null, service_name: 'test-service' } })
  },
)

t.test(
  'steps that started in the same millisecond: a parent before its child, else the one that ended first',
  async (t) => {
    const openai = { name: 'openai', version: '1' }
    const { input } = assembleTrace([
      // A model call that read a tool's result, exported first because the exporter groups a body by scope: across
      // scopes, the recorded end times say the tool ended first.
      span('llm', { parent: 'root', start: 5, duration: 3, name: 'chat', scope: openai }),
      span('tool', { parent: 'root', start: 5, duration: 1, name: 'get_weather' }),
      // The child ends first, yet its parent comes first.
      span('kid', { parent: 'p', start: 9, duration: 1, name: 'child' }),
      span('p', { parent: 'root', start: 9, duration: 5, name: 'parent' }),
      // Within one scope the exporter sends spans as they end: arrival decides, whatever the recorded ends say (a
      // whole-millisecond start plus a precise duration can make the later attempt's end look earlier).
      span('a1', { parent: 'root', start: 20, duration: 0.4, name: 'attempt 1' }),
      span('a2', { parent: 'root', start: 20, duration: 0.2, name: 'attempt 2' }),
      span('root', { duration: 100 }),
    ])
    t.same(names(input), ['get_weather', 'chat', 'parent', 'child', 'attempt 1', 'attempt 2'])
    t.same(
      input.steps!.map((s) => s.parent_index),
      [null, null, null, 2, null, null],
    )
  },
)

t.test(
  'tokens: the root own counts, else the top-most spans that report any (a nested call is not counted twice)',
  async (t) => {
    const usage = (input: number, output: number) => ({
      'gen_ai.usage.input_tokens': input,
      'gen_ai.usage.output_tokens': output,
    })
    const nested = assembleTrace([
      span('root'),
      span('gen', { parent: 'root', attributes: usage(10, 5) }),
      span('do', { parent: 'gen', attributes: usage(10, 5) }),
      span('other', { parent: 'root', attributes: { 'llm.token_count.total': 7 } }),
    ]).input
    t.same([nested.prompt_tokens, nested.completion_tokens, nested.token_count], [10, 5, 22])

    const own = assembleTrace([
      span('root', { attributes: usage(100, 50) }),
      span('c', { parent: 'root', attributes: usage(1, 1) }),
    ])
    t.same([own.input.prompt_tokens, own.input.completion_tokens, own.input.token_count], [100, 50, 150])

    const none = assembleTrace([span('root'), span('c', { parent: 'root' })])
    t.same([none.input.prompt_tokens, none.input.completion_tokens, none.input.token_count], [null, null, null])
  },
)

t.test('model, prompt and response come from the first and last model calls when the root has none', async (t) => {
  const llm = (id: string, start: number, model: string, q: string, a: string) =>
    span(id, {
      parent: 'root',
      start,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': model,
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: q }] }]),
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: a }] }]),
      },
    })
  const { input } = assembleTrace([span('root'), llm('a', 10, 'small', 'Q1', 'A1'), llm('b', 20, 'large', 'Q2', 'A2')])
  t.same([input.model, input.prompt, input.response], ['small', 'Q1', 'A2'])
  t.equal(assembleTrace([span('root')]).input.prompt, '', 'no prompt anywhere is the empty prompt')
})

t.test("the root's failure fails the trace with its message; a step's is left to normalization", async (t) => {
  const failed = assembleTrace([span('root', { status_code: 2, status_message: 'handler crashed' })]).input
  t.same([failed.status, failed.failure_reason], ['failed', 'handler crashed'])
  const step = assembleTrace([span('root'), span('c', { parent: 'root', status_code: 2, status_message: 'x' })]).input
  t.same([step.status, step.failure_reason], [null, null])
  t.match(step.steps?.[0], { status: 'failed', error: 'x' })
})

t.test('a root whose parent is in another process is the root', async (t) => {
  const { input } = assembleTrace([
    span('c', { parent: 'srv', start: 10 }),
    span('srv', { parent: 'remote', parent_is_remote: true, name: 'POST /chat', duration: 500 }),
  ])
  t.equal(input.name, 'POST /chat')
  t.equal(input.latency, 500)
  t.same(names(input), ['span c'])
  t.notMatch(input.metadata, { otel: { root_span_missing: true } })
})

t.test('when the root never came: every span is a step, the earliest top-most names the trace', async (t) => {
  const { input } = assembleTrace([
    span('b', { parent: 'gone', start: 50, duration: 100, name: 'late sibling' }),
    span('a', { parent: 'gone', start: 20, duration: 10, name: 'early sibling', status_code: 2, status_message: 'x' }),
    span('a1', { parent: 'a', start: 25, duration: 1 }),
  ])
  t.equal(input.name, 'early sibling')
  t.equal(input.created_at, '2026-11-21T13:45:00.020Z')
  t.equal(input.latency, 130)
  t.same(names(input), ['early sibling', 'span a1', 'late sibling'])
  t.same(
    [input.status, input.failure_reason],
    [null, null],
    'a failed step is judged by normalization, not as the root',
  )
  t.match(input.metadata, { otel: { root_span_missing: true, missing_parent_span_id: spanId('gone') } })
  t.notMatch(input.metadata, { otel: { span_id: String } })
})

t.test('spans beyond the step limit are counted, not kept; long texts and big metadata are cut', async (t) => {
  const many = Array.from({ length: LIMITS.steps + 5 }, (_, i) => span(`c${i}`, { parent: 'root', start: i + 1 }))
  const big = 'x'.repeat(LIMITS.textBytes + 10)
  const attributes: Record<string, unknown> = {
    'input.value': big,
    'tag.tags': Array.from({ length: 30 }, (_, i) => `t${i}${'y'.repeat(80)}`),
  }
  for (let i = 0; i < 40; i++) attributes[`app.attr${i}`] = 'z'.repeat(3000)
  const { input, dropped } = assembleTrace([span('root', { attributes, name: 'n'.repeat(300) }), ...many])
  t.equal(dropped, 5)
  t.equal(input.steps?.length, LIMITS.steps)
  t.match(input.metadata, { otel: { dropped_spans: 5 } })
  t.equal(Buffer.byteLength(input.prompt), LIMITS.textBytes, 'cut to the limit, with an ellipsis')
  t.equal(input.name?.length, 256)
  t.equal(input.tags?.length, LIMITS.tags)
  t.ok(input.tags?.every((tag) => tag.length <= LIMITS.tagLength))
  t.ok(JSON.stringify(input.metadata).length < LIMITS.metadataBytes)
  t.ok((input.metadata?.['loupe.omitted_attributes'] as number) > 0, 'attributes that did not fit are counted')
})

t.test('prompt, response and metadata are bounded in UTF-8 bytes, as the contract counts them', async (t) => {
  const wide = 'é'.repeat(LIMITS.textBytes) // 2 bytes each
  const attributes: Record<string, unknown> = { 'input.value': wide, 'output.value': `${'€'.repeat(100_000)}` }
  for (let i = 0; i < 40; i++) attributes[`app.attr${i}`] = '漢'.repeat(3000)
  const { input } = assembleTrace([span('root', { attributes })])
  t.ok(Buffer.byteLength(input.prompt) <= LIMITS.textBytes)
  t.ok(input.prompt.endsWith('é…'), 'cut on a character boundary')
  t.ok(Buffer.byteLength(input.response ?? '') <= LIMITS.textBytes)
  t.ok(Buffer.byteLength(JSON.stringify(input.metadata)) < LIMITS.metadataBytes)
})

t.test('spanIdsOf reads back every span a stored trace was built from', async (t) => {
  const { input } = assembleTrace([span('root'), span('a', { parent: 'root' }), span('b', { parent: 'root' })])
  const ids = spanIdsOf({
    metadata: input.metadata ?? {},
    steps: (input.steps ?? []).map((s) => ({ metadata: s.metadata ?? {} })),
  })
  t.same([...ids].sort(), [spanId('root'), spanId('a'), spanId('b')].sort())
})

t.test('a broken exporter sending a parent cycle still gives a trace with every span', async (t) => {
  const { input } = assembleTrace([span('x', { parent: 'y' }), span('y', { parent: 'x', start: 5 })])
  t.equal(input.name, 'span x')
  t.same(names(input), ['span x', 'span y'], 'no root: every span is a step')
})

t.test("steps nest as their spans do: parent_index names the parent span's step, null under the root", async (t) => {
  const { input } = assembleTrace([
    span('g2', { parent: 'c1', start: 160, name: 'grandchild 2' }),
    span('c2', { parent: 'root', start: 300, name: 'second' }),
    span('g1', { parent: 'c1', start: 150, name: 'grandchild' }),
    span('gg', { parent: 'g1', start: 155, name: 'great-grandchild' }),
    span('c1', { parent: 'root', start: 100, name: 'first' }),
    span('root', { start: 0, duration: 1000, name: 'handle' }),
    span('lost', { parent: 'nowhere', start: 400, name: 'orphan' }),
  ])
  t.same(
    (input.steps ?? []).map((s) => [s.name, s.parent_index]),
    [
      ['first', null],
      ['grandchild', 0],
      ['great-grandchild', 1],
      ['grandchild 2', 0],
      ['second', null],
      ['orphan', null],
    ],
    "each step points at its parent's position; a parent that never came leaves the step at the top level",
  )
})

t.test('without its root, the top-most spans are the top level of the steps', async (t) => {
  const { input } = assembleTrace([
    span('c1', { parent: 'root', start: 100, name: 'first' }),
    span('g1', { parent: 'c1', start: 150, name: 'grandchild' }),
  ])
  t.same(
    (input.steps ?? []).map((s) => [s.name, s.parent_index]),
    [
      ['first', null],
      ['grandchild', 0],
    ],
  )
})

t.test('agent steps: each convention names its agent; a LangGraph node that calls a model is an agent', async (t) => {
  const { input } = assembleTrace([
    span('root', { start: 0, duration: 1000, name: 'LangGraph' }),
    // GenAI: the agent's name from gen_ai.agent.name, not the span's name.
    span('g', {
      parent: 'root',
      start: 10,
      name: 'invoke_agent planner',
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner' },
    }),
    // OpenInference: an AGENT span is named after its agent.
    span('oi', { parent: 'g', start: 20, name: 'researcher', attributes: { 'openinference.span.kind': 'AGENT' } }),
    // LangGraph: `writer` calls a model, `tools` only a tool, `__start__` is the graph's own.
    span('w', { parent: 'root', start: 100, name: 'writer node', attributes: { 'langgraph.node': 'writer' } }),
    span('wl', { parent: 'w', start: 110, name: 'ChatOpenAI', attributes: { 'gen_ai.operation.name': 'chat' } }),
    span('tl', { parent: 'root', start: 200, name: 'tools', attributes: { 'langgraph.node': 'tools' } }),
    span('tt', { parent: 'tl', start: 210, name: 'search', attributes: { 'gen_ai.operation.name': 'execute_tool' } }),
    span('st', { parent: 'root', start: 300, name: '__start__', attributes: { 'langgraph.node': '__start__' } }),
    span('sl', { parent: 'st', start: 310, name: 'ChatOpenAI', attributes: { 'gen_ai.operation.name': 'chat' } }),
    // LangChain's run metadata names the node on the node's own span only; the calls inside carry it too.
    span('m', {
      parent: 'root',
      start: 400,
      name: 'critic',
      attributes: { 'openinference.span.kind': 'CHAIN', metadata: '{"langgraph_node":"critic"}' },
    }),
    span('ml', {
      parent: 'm',
      start: 410,
      name: 'ChatOpenAI',
      attributes: { 'openinference.span.kind': 'LLM', metadata: '{"langgraph_node":"critic"}' },
    }),
  ])
  t.same(
    (input.steps ?? []).map((s) => [s.name, s.type]),
    [
      ['planner', 'agent'],
      ['researcher', 'agent'],
      ['writer', 'agent'],
      ['ChatOpenAI', 'llm'],
      ['tools', 'other'],
      ['search', 'tool'],
      ['__start__', 'other'],
      ['ChatOpenAI', 'llm'],
      ['critic', 'agent'],
      ['ChatOpenAI', 'llm'],
    ],
  )
  t.equal(input.steps?.[2]?.metadata?.['langgraph.node'], 'writer', 'the node attribute stays in the metadata')
})
