// The score filter's reads of one trace's scores, as SQLite plans them: the count's correction for the traces with
// several scores of a name, and the probe a list's walk makes of each trace, both enter the scores_trace index at
// (trace, name, value) — only that trace's scores of that name in the range, however many others the trace has.
import t from 'tap'
import { scoredCountSql } from '../../src/store/read-queries.js'
import { createSqliteStore } from '../../src/store/sqlite/store.js'
import { planOf } from '../helper.js'

const plan = (store: ReturnType<typeof createSqliteStore>, sql: string, params: unknown[]) =>
  planOf(store.raw, sql, ...params)

t.test('the count of a score filter reads a trace’s scores of the name in the range through the index', async (t) => {
  const store = createSqliteStore(':memory:')
  t.teardown(() => store.close())
  const params: unknown[] = []
  const sql = scoredCountSql(
    { score_name: 'helpfulness', max_score: 0.1 },
    (value) => {
      params.push(value)
      return '?'
    },
    'scores indexed by scores_trace',
  )
  const details = plan(store, sql, params)
  t.ok(
    details.some((d) => /scores USING (COVERING )?INDEX scores_trace \(trace_id=\? AND name=\? AND value<\?\)/.test(d)),
    `a trace's scores of the name below the bound, from the index: ${details.join(' | ')}`,
  )
})

t.test('one trace’s scores of a name in a range, as a probe asks them, are one range of the index', async (t) => {
  const store = createSqliteStore(':memory:')
  t.teardown(() => store.close())
  const details = plan(
    store,
    'select 1 from scores indexed by scores_trace where trace_id = ? and name = ? and value >= ? and value <= ?',
    ['t1', 'helpfulness', 0.25, 0.75],
  )
  t.match(details.join(' | '), /INDEX scores_trace \(trace_id=\? AND name=\? AND value>\? AND value<\?\)/)
})
