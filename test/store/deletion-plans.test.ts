// A deletion works out again the span of each session and user it touched (trace-writes.ts RESPAN_SESSION and
// RESPAN_USER). With a file's statistics, SQLite planned those reads through the project's index, walking a whole
// project in time order to find one session's first or last trace; here they must enter the session's or the user's
// index. The statistics are those of a seeded file (5 projects, about 1,000 users, 26,000 sessions, 100,000 traces).
import t from 'tap'
import { createSqliteStore } from '../../src/store/sqlite/store.js'
import { RESPAN_SESSION, RESPAN_USER } from '../../src/store/sqlite/trace-writes.js'
import { planOf } from '../helper.js'

const STATS: [string, string][] = [
  ['traces_project_created', '100000 20000 1 1 1 1'],
  ['traces_created', '100000 1 1 1 1'],
  ['traces_user_created', '100000 100 1 1'],
  ['traces_session_created', '100000 4 1 1'],
  ['traces_project_status_created', '100000 20000 6667 1 1'],
  ['traces_status_created', '100000 33334 1 1'],
  ['traces_model_created', '100000 12500 1 1'],
  ['traces_environment_created', '100000 33334 1 1'],
  ['sqlite_autoindex_traces_1', '100000 1'],
]

const SPAN_KEYS = { project_id: 'p', session_id: 's', user_id: 'u', first_at: 0, last_at: 0, user_at: 0 }

t.test('a deletion reads a session’s and a user’s traces left through their own index', async (t) => {
  const store = createSqliteStore(':memory:')
  t.teardown(() => store.close())
  const db = store.raw
  db.exec('analyze')
  db.exec('delete from sqlite_stat1')
  const put = db.prepare(`insert into sqlite_stat1 (tbl, idx, stat) values ('traces', ?, ?)`)
  for (const [idx, stat] of STATS) put.run(idx, stat)
  // Makes the planner read the statistics just written.
  db.exec('analyze sqlite_schema')

  const session = planOf(db, RESPAN_SESSION, SPAN_KEYS)
  const fromTraces = session.filter((d) => /\btraces\b/.test(d))
  t.ok(fromTraces.length >= 4, `the span's and the user's reads: ${session.join(' | ')}`)
  for (const d of fromTraces) t.match(d, /USING (COVERING )?INDEX traces_session_created \(session_id=\?\)/)

  const user = planOf(db, RESPAN_USER, SPAN_KEYS)
  const fromUserTraces = user.filter((d) => /\btraces\b/.test(d))
  t.ok(fromUserTraces.length >= 2, `the span's reads: ${user.join(' | ')}`)
  for (const d of fromUserTraces) t.match(d, /USING (COVERING )?INDEX traces_user_created \(user_id=\?\)/)
})
