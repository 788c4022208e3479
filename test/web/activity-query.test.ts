// The sessions and users lists: URL ⇄ query with the API's names, the pager, and a sum of costs with its unpriced part.
import t from 'tap'
import {
  activitySearch,
  costOfTotals,
  meanText,
  pagesAround,
  parseActivityQuery,
  scoreNamesOf,
  scoreOf,
} from '../../web/src/features/activity/activity-query.js'
import { formatCost } from '../../web/src/ui/format.js'

t.test('parseActivityQuery reads the API names; user_id only where the list has it', async (t) => {
  const search = '?project_id=acme&user_id=alice&since=2026-11-21&until=1795268700&offset=50&limit=3&q=x'
  t.same(parseActivityQuery(search, true), {
    project_id: 'acme',
    user_id: 'alice',
    since: '2026-11-21',
    until: '1795268700',
    offset: 50,
  })
  t.same(parseActivityQuery(search, false), {
    project_id: 'acme',
    since: '2026-11-21',
    until: '1795268700',
    offset: 50,
  })
  t.same(parseActivityQuery('offset=-5&project_id=%20', true), {}, 'bad offset and blank values left out')
  t.same(parseActivityQuery('offset=1.5', true), {})
})

t.test('activitySearch writes a query back in a stable order, page one without an offset', async (t) => {
  t.equal(activitySearch({ offset: 100, user_id: 'a b', project_id: 'acme' }), 'project_id=acme&user_id=a+b&offset=100')
  t.equal(activitySearch({ offset: 0 }), '')
  const query = parseActivityQuery('until=x&project_id=p&offset=50', true)
  t.same(parseActivityQuery(activitySearch(query), true), query, 'round trip')
})

t.test('pagesAround: previous and next pages, and the rows shown', async (t) => {
  t.same(pagesAround(0, 50, 120), { previous: null, next: 50, first: 1, last: 50 })
  t.same(pagesAround(50, 50, 120), { previous: 0, next: 100, first: 51, last: 100 })
  t.same(pagesAround(100, 20, 120), { previous: 50, next: null, first: 101, last: 120 })
  t.same(pagesAround(0, 0, 0), { previous: null, next: null, first: 0, last: 0 })
  t.same(pagesAround(30, 50, 200), { previous: 0, next: 80, first: 31, last: 80 }, 'an offset off the grid')
})

t.test('costOfTotals: all unpriced says so; some unpriced are counted beside the sum', async (t) => {
  t.equal(costOfTotals({ traces: 3, cost: 0, unpriced: 3 }), 'unpriced')
  t.equal(costOfTotals({ traces: 3, cost: 0.003, unpriced: 1 }), `${formatCost(0.003)} (+1 unpriced)`)
  t.equal(costOfTotals({ traces: 2, cost: 0.5, unpriced: 0 }), formatCost(0.5))
  t.equal(costOfTotals({ traces: 1, cost: 0, unpriced: 0 }), '$0', 'a reported cost of zero is zero')
})

t.test('score means: a column per name the rows carry, each cell the mean and how many make it', async (t) => {
  const rows = [
    { scores: { helpfulness: { count: 6, mean: 0.525 }, thumbs: { count: 2, mean: 0.5 } } },
    { scores: {} },
    { scores: JSON.parse('{"__proto__": {"count": 1, "mean": 3}, "accuracy": {"count": 1200, "mean": 1}}') },
  ]
  t.same(scoreNamesOf(rows), ['__proto__', 'accuracy', 'helpfulness', 'thumbs'], 'name ascending, each once')
  t.same(scoreNamesOf([]), [])
  t.equal(meanText(rows[0]!.scores, 'helpfulness'), '0.525 (6)')
  t.equal(meanText(rows[2]!.scores, 'accuracy'), '1 (1,200)')
  t.equal(meanText(rows[2]!.scores, '__proto__'), '3 (1)', 'any name is a name')
  t.equal(meanText(rows[1]!.scores, 'helpfulness'), '—', 'a row without that score')
  t.equal(scoreOf(rows[1]!.scores, 'constructor'), undefined, 'never an inherited member')
  t.equal(meanText(rows[1]!.scores, 'toString'), '—')
})
