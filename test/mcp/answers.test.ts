// The MCP answers' sizing, as pure functions: where a text is cut and what the note says, structured values cut as
// their JSON text, surrogate pairs never split, and the notes of a trace's steps and of a session.
import t from 'tap'
import { MCP_PREVIEW_LIMIT, MCP_TEXT_LIMIT, type SessionDetailResponse, type Trace } from '../../schemas/index.js'
import { briefOf, sessionAnswer, textCutter, traceAnswer } from '../../src/mcp/answers.js'

t.test('a cutter keeps what fits, cuts the rest at its limit with a note, and counts', async (t) => {
  const cutter = textCutter(5, 'ask for more')
  t.equal(cutter.text('short'), 'short', 'exactly the limit: kept')
  t.equal(cutter.text(null), null)
  t.equal(cutter.text('abcdefgh'), 'abcde… [cut: 3 more of 8 characters; ask for more]')
  t.equal(cutter.text('abcd😀x'), 'abcd… [cut: 3 more of 7 characters; ask for more]', 'never half a surrogate pair')
  t.same(cutter.value([1, 2]), [1, 2], 'a small structure as it is')
  t.equal(cutter.value({ text: 'long' }), '{"tex… [cut: 10 more of 15 characters; ask for more]', 'a large one as JSON')
  t.equal(cutter.value(42), 42)
  t.equal(cutter.value(null), null)
  t.equal(cutter.cuts, 3)
  const none = textCutter(Number.POSITIVE_INFINITY, 'x')
  t.equal(none.text('y'.repeat(100_000)).length, 100_000, 'Infinity cuts nothing')
  t.equal(none.cuts, 0)
})

const step = (index: number, input: unknown = 'in') => ({
  index,
  name: `s${index}`,
  type: 'tool' as const,
  tool: 'search',
  status: 'success' as const,
  latency: 1,
  token_count: null,
  input,
  output: 'out',
  error: null,
  started_at: null,
  metadata: {},
  parent_index: null,
  cost: null,
})

const trace = (steps: number, prompt = 'p'): Trace => ({
  trace_id: 't1',
  project_id: 'p',
  environment: 'development',
  name: null,
  model: null,
  prompt,
  response: null,
  latency: 1,
  token_count: 0,
  prompt_tokens: null,
  completion_tokens: null,
  tokens_reported: false,
  cost: null,
  status: 'failed',
  failure_reason: 'r'.repeat(MCP_PREVIEW_LIMIT + 1),
  retry_count: 0,
  session_id: null,
  user_id: null,
  tags: [],
  metadata: {},
  created_at: '2026-11-21T13:45:00.123Z',
  steps: Array.from({ length: steps }, (_, i) => step(i)),
})

t.test('a trace: its steps paged with a note naming the next offset; texts cut unless asked whole', async (t) => {
  const answer = traceAnswer(trace(250), { trace_id: 't1', steps: 'summary', step_offset: 100, step_limit: 100 })
  t.equal(answer.step_count, 250)
  t.same(answer.notes, ['steps 100–199 of 250 shown: step_offset=200 for the next'])
  const last = traceAnswer(trace(250), { trace_id: 't1', step_offset: 200, step_limit: 100 })
  t.same(last.notes, ['steps 200–249 of 250 shown'])
  const past = traceAnswer(trace(3), { trace_id: 't1', step_offset: 10 })
  t.same(past.notes, ['no steps from step_offset 10: the trace has 3'])
  t.notOk('steps' in traceAnswer(trace(3), { trace_id: 't1', steps: 'none' }).trace)
  t.notOk('notes' in traceAnswer(trace(3), { trace_id: 't1', steps: 'none' }))

  const long = traceAnswer(trace(1, 'p'.repeat(MCP_TEXT_LIMIT + 1)), { trace_id: 't1' })
  t.equal(long.trace.prompt.indexOf('…'), MCP_TEXT_LIMIT)
  t.same(long.notes, ['1 text longer than 2000 characters cut there (full_text: true shows them whole)'])
  const whole = traceAnswer(trace(1, 'p'.repeat(MCP_TEXT_LIMIT + 1)), { trace_id: 't1', full_text: true })
  t.equal(whole.trace.prompt.length, MCP_TEXT_LIMIT + 1)
})

t.test('a brief: the summary of a trace, its failure reason cut to a preview', async (t) => {
  const brief = briefOf(trace(4))
  t.equal(brief.step_count, 4)
  t.notOk('prompt' in brief || 'steps' in brief || 'metadata' in brief)
  t.match(brief.failure_reason, new RegExp(`^r{${MCP_PREVIEW_LIMIT}}… \\[cut: 1 more of`))
})

t.test('a session: the traces shown of how many it has, texts cut to a preview', async (t) => {
  const session = { session_id: 's', traces: 3 } as SessionDetailResponse['session']
  const answer = sessionAnswer({ session, traces: [trace(0, 'q'.repeat(MCP_PREVIEW_LIMIT + 1))] })
  t.match(answer.notes, [/the first 1 of the session's 3 traces shown/, /2 text\(s\) longer than 300/])
  t.equal(sessionAnswer({ session, traces: [trace(0, 'q'.repeat(400))] }, true).traces[0]?.prompt.length, 400)
})
