// The trace list's filters: URL ⇄ filter with GET /traces' names, and which live traces join a filtered list.
import t from 'tap'
import type { Trace, TraceSummary } from '../../schemas/index.js'
import {
  filterToSearch,
  matchesFilter,
  newestFirst,
  parseFilter,
  summarize,
} from '../../web/src/features/traces/filters.js'
import { step } from './fixtures.js'

const summary = (fields: Partial<TraceSummary> = {}): TraceSummary => ({
  trace_id: 't1',
  project_id: 'acme',
  environment: 'production',
  name: 'answer',
  model: 'gpt-4o',
  latency: 1200,
  token_count: 300,
  prompt_tokens: null,
  completion_tokens: null,
  tokens_reported: true,
  cost: null,
  status: 'success',
  failure_reason: null,
  retry_count: 0,
  session_id: 's1',
  user_id: 'u1',
  tags: [],
  created_at: '2026-11-21T13:45:00.000Z',
  step_count: 0,
  ...fields,
})

t.test('parseFilter reads the API names from the query string and drops what the API would refuse', async (t) => {
  t.same(
    parseFilter(
      '?status=failed&project_id=acme&model=gpt-4o&min_latency=100&max_latency=2000.5&min_tokens=0&max_tokens=10' +
        '&session_id=s&user_id=u&environment=staging&since=2026-11-21T00:00:00Z&until=1795268700&step=3',
    ),
    {
      status: 'failed',
      environment: 'staging',
      project_id: 'acme',
      model: 'gpt-4o',
      session_id: 's',
      user_id: 'u',
      since: '2026-11-21T00:00:00Z',
      until: '1795268700',
      min_latency: 100,
      max_latency: 2000.5,
      min_tokens: 0,
      max_tokens: 10,
    },
  )
  t.same(parseFilter('status=broken&environment=moon&min_latency=-1&max_tokens=abc&model='), {}, 'bad values left out')
  t.same(parseFilter(''), {})
})

t.test('filterToSearch writes a filter back, and parseFilter reads it the same', async (t) => {
  const filter = parseFilter('max_tokens=10&status=warning&project_id=a b&since=2026-11-21')
  const text = filterToSearch(filter)
  t.equal(text, 'status=warning&project_id=a+b&since=2026-11-21&max_tokens=10')
  t.same(parseFilter(text), filter)
  t.equal(filterToSearch({}), '')
})

t.test(
  'matchesFilter agrees with the server: equality filters, inclusive ranges, since inclusive, until exclusive',
  async (t) => {
    const trace = summary()
    const cases: [string, Parameters<typeof matchesFilter>[1], boolean][] = [
      ['no filter', {}, true],
      ['status', { status: 'success' }, true],
      ['other status', { status: 'failed' }, false],
      ['project', { project_id: 'acme' }, true],
      ['other project', { project_id: 'other' }, false],
      ['model', { model: 'claude' }, false],
      ['session', { session_id: 's1' }, true],
      ['user', { user_id: 'u2' }, false],
      ['environment', { environment: 'staging' }, false],
      ['min latency inclusive', { min_latency: 1200 }, true],
      ['min latency above', { min_latency: 1200.001 }, false],
      ['max latency inclusive', { max_latency: 1200 }, true],
      ['max latency below', { max_latency: 1199 }, false],
      ['min tokens', { min_tokens: 301 }, false],
      ['max tokens inclusive', { max_tokens: 300 }, true],
      ['since inclusive', { since: '2026-11-21T13:45:00.000Z' }, true],
      ['since after', { since: '2026-11-21T13:45:00.001Z' }, false],
      ['until exclusive', { until: '2026-11-21T13:45:00.000Z' }, false],
      ['until after', { until: '2026-11-21T13:46:00' }, true],
      ['since as epoch seconds', { since: '1795268700' }, true],
      ['until as epoch ms', { until: '1795268700000' }, false],
      ['all together', { status: 'success', project_id: 'acme', min_latency: 1000, max_tokens: 300 }, true],
    ]
    for (const [what, filter, expected] of cases) t.equal(matchesFilter(trace, filter), expected, what)
  },
)

t.test('summarize turns a pushed trace into the light list item the server would send', async (t) => {
  const { step_count: _, ...rest } = summary({ step_count: 2 })
  const full: Trace = {
    ...rest,
    prompt: 'p',
    response: 'r',
    metadata: { a: 1 },
    steps: [step(0), step(1)],
  }
  t.strictSame(summarize(full), summary({ step_count: 2 }))
})

t.test('newestFirst orders as GET /traces does: created_at desc, then trace_id desc', async (t) => {
  const list = [
    summary({ trace_id: 'a', created_at: '2026-11-21T10:00:00.000Z' }),
    summary({ trace_id: 'b', created_at: '2026-11-21T12:00:00.000Z' }),
    summary({ trace_id: 'c', created_at: '2026-11-21T12:00:00.000Z' }),
  ]
  t.same(
    [...list].sort(newestFirst).map((s) => s.trace_id),
    ['c', 'b', 'a'],
  )
})
