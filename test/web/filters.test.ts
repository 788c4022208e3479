// The trace list's filters: URL ⇄ filter with GET /traces' names, and which live traces join a filtered list.
import t from 'tap'
import { DECIDED_FILTERS, type Trace, TraceFilterQuery, type TraceSummary } from '../../schemas/index.js'
import {
  belongsToList,
  filterToSearch,
  isNewestFirst,
  matchesFilter,
  matchesSearch,
  newestFirst,
  parseFilter,
  scoreColumn,
  scoreSort,
  sortedScore,
  summarize,
  toggleSort,
  traceListHref,
} from '../../web/src/features/traces/filters.js'
import { fullSummary, fullTrace } from '../fixtures/traces.js'
import { score, step } from './fixtures.js'

const summary = (fields: Partial<TraceSummary> = {}): TraceSummary =>
  fullSummary({
    name: 'answer',
    model: 'gpt-4o',
    latency: 1200,
    token_count: 300,
    tokens_reported: true,
    session_id: 's1',
    user_id: 'u1',
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
  const { step_count: _, scores: _scores, ...rest } = summary({ step_count: 2 })
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

t.test('search, cost ranges and the order live in the URL under the API names', async (t) => {
  const filter = parseFilter('q=%20refund%20status%20&min_cost=0.01&max_cost=2.5&sort=cost&order=asc&cursor=abc')
  t.same(filter, { q: 'refund status', min_cost: 0.01, max_cost: 2.5, sort: 'cost', order: 'asc' })
  t.equal(filterToSearch(filter), 'q=refund+status&min_cost=0.01&max_cost=2.5&sort=cost&order=asc')
  t.same(parseFilter(filterToSearch(filter)), filter, 'round trip')
  t.same(parseFilter('q=%20%20&sort=size&order=up&min_cost=-1'), {}, 'blank q, unknown sort and order, negative cost')
  t.same(parseFilter('sort=created_at&order=desc'), {}, 'the default order has no parameters: one URL for it')
  t.equal(parseFilter(`q=${'x'.repeat(300)}`).q?.length, 256, 'q cut to the length the API takes')
  t.equal(traceListHref({}), '/traces')
  t.equal(traceListHref({ q: 'a', sort: 'latency' }), '/traces?q=a&sort=latency')
})

t.test(
  'toggleSort: a new column sorts descending, the same column flips, time descending is the default',
  async (t) => {
    t.same(toggleSort({ status: 'failed' }, 'cost'), { status: 'failed', sort: 'cost' })
    t.same(toggleSort({ sort: 'cost' }, 'cost'), { sort: 'cost', order: 'asc' })
    t.same(toggleSort({ sort: 'cost', order: 'asc' }, 'cost'), { sort: 'cost' })
    t.same(toggleSort({ sort: 'cost', order: 'asc' }, 'latency'), { sort: 'latency' })
    t.same(toggleSort({}, 'created_at'), { order: 'asc' }, 'time flips to oldest first')
    t.same(toggleSort({ order: 'asc' }, 'created_at'), {}, 'and back to the default')
    t.ok(isNewestFirst({}))
    t.ok(isNewestFirst({ sort: 'created_at', order: 'desc' }))
    t.notOk(isNewestFirst({ order: 'asc' }))
    t.notOk(isNewestFirst({ sort: 'cost' }))
  },
)

t.test('a live trace matches q as the server searches: every word, a substring of its text, any case', async (t) => {
  const { step_count: _, scores: _scores, ...rest } = summary()
  const whole: Trace = {
    ...rest,
    name: 'Refund',
    prompt: 'Où est ma commande ?',
    response: null,
    failure_reason: 'Payment DECLINED',
    metadata: { secret: 'not searched' },
    steps: [step(0, { input: { query: '返金をお願いします' }, output: ['shipped', 42] })],
  }
  const cases: [string, string | undefined, boolean][] = [
    ['no search', undefined, true],
    ['name, any case', 'refund', true],
    ['two words in two fields', 'REFUND declined', true],
    ['one word missing', 'refund weather', false],
    ['accented text', 'commande', true],
    ['a substring', 'ship', true],
    ['Japanese in a step input', '返金', true],
    ['a number in a step output', '42', true],
    ['metadata is not searched', 'secret', false],
    ['keys are not searched', 'query', false],
  ]
  for (const [what, q, expected] of cases) t.equal(matchesSearch(whole, q), expected, what)
  t.notOk(matchesFilter(summary(), { q: 'refund' }), 'without the whole trace, a search never matches')
  t.ok(matchesFilter(summarize(whole), { q: 'refund' }, whole))
})

t.test('cost ranges: inclusive, and an unpriced trace never matches one', async (t) => {
  const priced = summary({ cost: 0.5 })
  t.ok(matchesFilter(priced, { min_cost: 0.5, max_cost: 0.5 }))
  t.notOk(matchesFilter(priced, { min_cost: 0.51 }))
  t.notOk(matchesFilter(priced, { max_cost: 0.49 }))
  t.notOk(matchesFilter(summary({ cost: null }), { max_cost: 100 }))
  t.notOk(matchesFilter(summary({ cost: null }), { min_cost: 0 }))
  t.ok(matchesFilter(summary({ cost: null }), {}))
})

t.test('the score filter lives in the URL under the API names; its bounds and label only with a name', async (t) => {
  const filter = parseFilter(
    'score_name=%20helpfulness%20&min_score=-1.5&max_score=0.5&score_label=good&sort=score:helpfulness',
  )
  t.same(filter, {
    score_name: 'helpfulness',
    min_score: -1.5,
    max_score: 0.5,
    score_label: 'good',
    sort: 'score:helpfulness',
  })
  t.equal(
    filterToSearch(filter),
    'score_name=helpfulness&min_score=-1.5&max_score=0.5&score_label=good&sort=score%3Ahelpfulness',
  )
  t.same(parseFilter(filterToSearch(filter)), filter, 'round trip')
  t.same(parseFilter('min_score=0&max_score=1&score_label=good'), {}, 'bounds and label without a name: refused')
  t.same(parseFilter('score_name=q&min_score=abc&max_score=Infinity&score_label='), { score_name: 'q' })
  t.same(parseFilter(`score_name=${'n'.repeat(65)}`), {}, 'a name longer than the API takes')
  t.same(parseFilter(`score_name=n&score_label=${'l'.repeat(257)}`), { score_name: 'n' }, 'a label too long')
  t.same(parseFilter('sort=score:'), {}, 'a score order without a name')
  t.same(parseFilter('sort=score:%20x'), {}, 'a name with a space at its start, as the API refuses')
  t.same(parseFilter(`sort=score:${'n'.repeat(65)}`), {}, 'an order longer than the API takes')
  t.same(parseFilter('sort=score:a b'), { sort: 'score:a b' }, 'a space inside a name is fine')
})

t.test('the score column: the score ordered by, else the one filtered by; its heading toggles its order', async (t) => {
  t.equal(scoreColumn({}), null)
  t.equal(sortedScore({ sort: 'latency' }), null)
  t.equal(scoreColumn({ score_name: 'a' }), 'a')
  t.equal(scoreColumn({ score_name: 'a', sort: scoreSort('b') }), 'b', 'the order wins: it is the one shown')
  t.equal(sortedScore({ sort: 'score:helpfulness' }), 'helpfulness')
  t.same(toggleSort({ score_name: 'a' }, scoreSort('a')), { score_name: 'a', sort: 'score:a' })
  t.same(toggleSort({ sort: 'score:a' }, scoreSort('a')), { sort: 'score:a', order: 'asc' })
  t.same(toggleSort({ sort: 'score:a', order: 'asc' }, 'latency'), { sort: 'latency' })
  t.notOk(isNewestFirst({ sort: 'score:a' }), 'a score order takes live traces as counted, not at the top')
})

t.test('a live trace matches a score filter only when one of its scores of the name does', async (t) => {
  const scores = [
    score({ name: 'helpfulness', data_type: 'numeric', value: 0.2, label: null }),
    score({ name: 'helpfulness', data_type: 'numeric', value: 0.9, label: null, step_index: 1 }),
    score({ name: 'quality', value: 2, label: 'good' }),
    score({ name: 'thumbs', data_type: 'boolean', value: 0, label: 'false' }),
  ]
  const whole = fullTrace({ scores, session_id: 's1' })
  const matches = (filter: Parameters<typeof belongsToList>[1]) => belongsToList(summarize(whole), filter, whole)
  t.ok(matches({}), 'no score condition')
  t.ok(matches({ score_name: 'helpfulness' }), 'any score of the name')
  t.notOk(matches({ score_name: 'accuracy' }), 'no score of the name')
  t.ok(matches({ score_name: 'helpfulness', max_score: 0.5 }), '0.2 of 0.2 and 0.9 matches ≤ 0.5')
  t.ok(matches({ score_name: 'helpfulness', min_score: 0.9 }), 'bounds are inclusive; a step’s score counts')
  t.notOk(matches({ score_name: 'helpfulness', min_score: 0.3, max_score: 0.8 }), 'neither lies between')
  t.ok(matches({ score_name: 'quality', score_label: 'good' }))
  t.notOk(matches({ score_name: 'quality', score_label: 'bad' }))
  t.notOk(matches({ score_name: 'helpfulness', score_label: 'good' }), 'the label of another name does not count')
  t.ok(matches({ score_name: 'thumbs', max_score: 0 }), 'a boolean false is 0')
  t.ok(matches({ score_name: 'thumbs', score_label: 'false' }))
  t.notOk(matches({ score_name: 'thumbs', min_score: 1 }))
  t.ok(matches({ sort: 'score:quality' }), 'ordered by a score it has')
  t.notOk(matches({ sort: 'score:accuracy' }), 'ordered by a score it lacks: the server lists it not')
  const bare = fullTrace({ session_id: 's1' })
  t.notOk(belongsToList(summarize(bare), { score_name: 'helpfulness' }, bare), 'pushed without scores: matches none')
  t.notOk(belongsToList(summarize(bare), { sort: 'score:helpfulness' }, bare), 'nor belongs to a score order')
  t.ok(belongsToList(summarize(bare), { session_id: 's1', sort: 'latency' }, bare))
  t.ok(matchesFilter(summarize(whole), { score_name: 'quality', session_id: 's1' }, whole), 'through matchesFilter')
  t.notOk(matchesFilter(summarize(whole), { score_name: 'quality', score_label: 'ok' }, whole))
  t.notOk(matchesFilter(summarize(whole), { score_name: 'quality' }), 'the summary alone cannot say')
  t.notOk(belongsToList(summarize(whole), { sort: 'score:quality' }), 'nor of a score order')
})

t.test('every filter of GET /traces is decided by the shared matcher, experiment fields too', async (t) => {
  t.same([...DECIDED_FILTERS].sort(), Object.keys(TraceFilterQuery.properties).sort())
  const base = summary()
  t.ok(matchesFilter({ ...base, experiment_id: 'x1' }, { experiment_id: 'x1' }))
  t.notOk(matchesFilter({ ...base, experiment_id: null }, { experiment_id: 'x1' }))
  t.notOk(matchesFilter({ ...base, dataset_item_id: 'i1' }, { dataset_item_id: 'i2' }))
})

t.test(
  'an agent filter: in the URL, and a live trace joins the list when one of its steps invokes that agent',
  async (t) => {
    t.same(parseFilter('?agent=planner'), { agent: 'planner' })
    t.equal(filterToSearch({ agent: 'planner', model: 'm' }), 'model=m&agent=planner')
    const whole = fullTrace({
      steps: [step(0, { name: 'planner', type: 'agent' }), step(1, { name: 'search', type: 'tool', tool: 'search' })],
    })
    t.ok(matchesFilter(summarize(whole), { agent: 'planner' }, whole))
    t.notOk(matchesFilter(summarize(whole), { agent: 'search' }, whole), 'a tool is no agent')
    t.notOk(matchesFilter(summarize(whole), { agent: 'planner' }), 'the summary alone cannot say')
  },
)
