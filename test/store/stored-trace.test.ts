// Stored traces serialize byte for byte like the plain trace, in every response shape, even after being touched.
import t from 'tap'
import type { Trace } from '../../schemas/index.js'
import { isStoredTrace, storedTrace } from '../../src/store/stored-trace.js'
import { toJson } from '../../src/store/to-json.js'

const plain: Trace = {
  trace_id: 't-1',
  project_id: 'p',
  environment: 'staging',
  name: 'answer "quoted"',
  model: null,
  prompt: 'line\nbreak \u2028 and émoji 🎉',
  response: null,
  latency: 12.5,
  token_count: 7,
  prompt_tokens: 3,
  completion_tokens: 4,
  tokens_reported: true,
  cost: 0.000123,
  status: 'warning',
  failure_reason: null,
  retry_count: 1,
  session_id: 's',
  user_id: null,
  experiment_id: null,
  dataset_item_id: null,
  tags: ['a', 'b'],
  metadata: { nested: { list: [1, 'two', null] } },
  created_at: '2026-11-21T13:45:00.123Z',
  steps: [
    {
      index: 0,
      name: 'search',
      type: 'tool',
      tool: 'search',
      status: 'failed',
      latency: null,
      token_count: null,
      cost: null,
      input: { q: 'x' },
      output: null,
      error: 'timeout',
      started_at: null,
      metadata: {},
      parent_index: null,
    },
  ],
}

const stored = () =>
  storedTrace({
    ...plain,
    tags: JSON.stringify(plain.tags),
    metadata: JSON.stringify(plain.metadata),
    steps: JSON.stringify(plain.steps),
  })

t.test('a stored trace reads like the plain one', async (t) => {
  const s = stored()
  t.ok(isStoredTrace(s))
  t.notOk(isStoredTrace(plain))
  t.same(s, plain)
  t.same({ ...s }, plain)
  t.same(Object.keys(s), Object.keys(plain))
})

t.test('its JSON is byte for byte JSON.stringify of the plain trace, in every response shape', async (t) => {
  t.equal(toJson(stored()), JSON.stringify(plain))
  t.equal(toJson({ total: 2, items: [stored(), stored()] }), JSON.stringify({ total: 2, items: [plain, plain] }))
  t.equal(toJson({ total: 0, items: [] }), JSON.stringify({ total: 0, items: [] }))
  const failures = { failed_traces: [stored()], retries: [], slow_requests: [stored()], totals: { failed_traces: 1 } }
  t.equal(toJson(failures), JSON.stringify({ ...failures, failed_traces: [plain], slow_requests: [plain] }))
  t.equal(toJson({ message: 'x', nested: { a: 1 } }), JSON.stringify({ message: 'x', nested: { a: 1 } }))
})

t.test('a field read or replaced is serialized from its value again', async (t) => {
  const s = stored()
  s.steps[0]!.name = 'renamed'
  s.tags = ['only']
  const expected = { ...plain, tags: ['only'], steps: [{ ...plain.steps[0]!, name: 'renamed' }] }
  t.equal(toJson(s), JSON.stringify(expected))
})
