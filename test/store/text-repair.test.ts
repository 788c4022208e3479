import t, { type Test } from 'tap'
import type { Trace, TraceInput } from '../../schemas/index.js'
import { normalizeTrace } from '../../src/ingest/normalize.js'
import { issueKey } from '../../src/services/projects.js'
import { unreported } from '../../src/store/reported-cost.js'
import { openDatabase, type SqliteDatabase } from '../../src/store/sqlite/driver.js'
import { createSqliteStore } from '../../src/store/sqlite/store.js'
import type { Store } from '../../src/store/types.js'
import { buildTestApp, TEST_DATABASE } from '../helper.js'
import { earlierSqliteDatabase } from './earlier-migrations.js'
import { everyTrace, recount, rollups } from './recount.js'

const DAY = 86_400_000
const NOW = Date.parse('2026-11-21T12:00:00Z')
const PROJECT = 'support-bot'
/** The migrations of the release before text was checked. */
const BEFORE_REPAIR = 9

/** A trace as the previous release stored it: normalized, its text as sent. */
function oldTrace(id: string, fields: Partial<TraceInput>, ageDays = 0): Trace {
  return normalizeTrace(
    { trace_id: id, prompt: 'Hi', created_at: NOW - ageDays * DAY, ...fields },
    { project_id: PROJECT, environment: 'production' },
    { now: NOW, newId: () => id },
  )
}

const OLD_TRACES = [
  oldTrace('u1', { user_id: '\ud800', session_id: 's1', model: 'gpt-4o' }),
  oldTrace('u2', { user_id: '\ud800', session_id: 'a\udc00b', model: 'gpt-4o' }),
  oldTrace('u3', { user_id: 'alice', session_id: 'a\udc00b', model: '\udfff\ud800' }),
  oldTrace('m1', { metadata: { '\ud800': 'key', v: ['a\udc00b'] }, tags: ['\udfff'], steps: [{ name: '\ud800' }] }),
  oldTrace('old1', { user_id: '\udfff\ud800', session_id: '\ud800' }, 40),
  oldTrace('old2', { user_id: 'bob', model: 'a\udc00b' }, 40),
  oldTrace('ok', { user_id: '💥', session_id: '💥' }),
]

/** The file the previous release left: its migrations, a project, the traces above written through its own SQL. */
function previousRelease(t: Test): string {
  const { file, db } = earlierSqliteDatabase(t, BEFORE_REPAIR)
  db.close()
  return file
}

/**
 * This release's store, unmigrated, writing rows into the previous release's file. It prepares statements at open
 * that name what later migrations added (the keys' `kind`, the traces' experiment columns, the evaluation jobs, the
 * calls of agents and tools): they
 * are there while it writes, and gone again once it is closed.
 */
async function writeWithThisStore(file: string, write: (store: ReturnType<typeof createSqliteStore>) => Promise<void>) {
  const before = openDatabase(file)
  before.exec(`alter table api_keys add kind text default 'secret' not null;
    alter table traces add experiment_id text;
    alter table traces add dataset_item_id text;
    create table evaluation_jobs (job_id integer primary key autoincrement, project_id text, evaluator_id text,
      trace_id text, run_id text, attempts integer, due_at integer, claimed_by text, last_error text,
      created_at integer, unique (evaluator_id, trace_id));
    create table trace_calls (trace_id text, project_id text, kind text, name text, calls integer, failures integer,
      latency_micros integer, timed integer, primary key (trace_id, kind, name));
    create table call_totals (project_id text, kind text, name text, traces integer, calls integer, failures integer,
      latency_hi integer, latency_lo integer, timed integer, primary key (project_id, kind, name));`)
  before.close()
  const store = createSqliteStore(file, { migrate: false })
  await write(store)
  await store.close()
  const after = openDatabase(file)
  after.exec(`alter table api_keys drop column kind;
    alter table traces drop column experiment_id;
    alter table traces drop column dataset_item_id;
    drop table evaluation_jobs;
    drop table trace_calls;
    drop table call_totals;`)
  after.close()
}

async function writeOldRows(file: string) {
  await writeWithThisStore(file, async (old) => {
    const { record } = issueKey(PROJECT, 'production', NOW)
    await old.projects.create(
      { project_id: PROJECT, name: 'Support', description: '', created_at: '2026-11-01T00:00:00.000' },
      record,
    )
    await old.traces.insert(OLD_TRACES.map(unreported))
  })
  const db = openDatabase(file)
  // The previous release's driver (better-sqlite3 12, V8's own strings) wrote a lone surrogate as ED A0 80; the
  // Node-API driver of Node.js 22 and later writes U+FFFD (EF BF BD) instead. Whichever wrote the rows, they are made
  // what the previous release left: every U+FFFD in a text column back to those bytes (JSON columns hold surrogates
  // as `\ud800` escapes with either driver).
  const tables = db
    .prepare(
      `select name from sqlite_schema where type = 'table' and sql not like 'create virtual%' and name not like '%fts%'`,
    )
    .pluck()
    .all() as string[]
  for (const table of tables) {
    const columns = db
      .prepare(`select name from pragma_table_info(?) where lower(type) = 'text'`)
      .pluck()
      .all(table) as string[]
    for (const column of columns) {
      db.prepare(
        `update "${table}" set "${column}" = cast(replace(cast("${column}" as blob), x'efbfbd', x'eda080') as text)
         where instr(cast("${column}" as blob), x'efbfbd') > 0`,
      ).run()
    }
  }
  // Straight into the file, as raw SQL would: a project description and a trace's name of bytes that are not UTF-8.
  db.prepare(`update projects set description = cast(x'41eda080' as text)`).run()
  db.prepare(`update traces set name = cast(x'eda080eda080' as text) where trace_id = 'ok'`).run()
  const hex = db.prepare(`select hex(user_id) as h from traces where trace_id = 'u1'`).get() as { h: string }
  db.close()
  return hex.h
}

/** Every figure equals a recount from the traces left. */
async function sameAsRecount(t: Test, store: Store, what: string) {
  const fresh = await recount(t, await everyTrace(store))
  t.same(await rollups(store), await rollups(fresh), `${what}: every rollup row equals a recount`)
}

t.test(
  'SQLite: text stored as bytes that are not UTF-8 is repaired on open and can be deleted every way',
  { skip: TEST_DATABASE },
  async (t) => {
    const file = previousRelease(t)
    t.equal(await writeOldRows(file), 'EDA080', 'the previous release stored a lone surrogate as ED A0 80')

    const store = createSqliteStore(file)
    const app = await buildTestApp(t, { store, now: () => NOW, config: { retentionDays: 30 } })
    t.teardown(() => store.close())
    const raw = (store as Store & { raw: SqliteDatabase }).raw

    const bad = raw
      .prepare(
        `select count(*) as n from traces where instr(cast(coalesce(user_id, '') || coalesce(session_id, '') ||
       coalesce(model, '') || coalesce(name, '') as blob), x'eda0') > 0 or instr(steps || metadata || tags, '\\ud') > 0`,
      )
      .get() as { n: number }
    t.equal(bad.n, 0, 'no value holds a surrogate any more, as bytes or as a JSON escape')
    t.equal(
      (raw.prepare(`select description from projects`).get() as { description: string }).description,
      'A\ufffd\ufffd\ufffd',
    )
    t.equal(raw.prepare(`select 1 from loupe_meta where key = 'text_stale'`).get(), undefined, 'repaired once')
    await sameAsRecount(t, store, 'on open')

    const u1 = (await app.inject('/traces/u1')).json()
    t.equal(u1.user_id, '\ufffd\ufffd\ufffd', 'the text every reader saw before is now what is stored')
    const m1 = (await app.inject('/traces/m1')).json()
    t.same(m1.metadata, { '\ufffd': 'key', v: ['a\ufffdb'] })
    t.same(m1.tags, ['\ufffd'])
    t.equal(m1.steps[0].name, '\ufffd')
    t.ok(JSON.stringify(m1).isWellFormed())
    const users = (await app.inject(`/users?project_id=${PROJECT}`)).json()
    t.ok(
      users.items.some(
        (u: { user_id: string; traces: number }) => u.user_id === '\ufffd\ufffd\ufffd' && u.traces === 2,
      ),
      'the user is found by what it reads as',
    )

    t.equal((await app.inject({ method: 'DELETE', url: '/traces/u1' })).statusCode, 204, 'one trace')
    await sameAsRecount(t, store, 'after DELETE /traces/u1')

    const byFilter = await app.inject({
      method: 'DELETE',
      url: `/traces?session_id=${encodeURIComponent('a\ufffd\ufffd\ufffdb')}`,
    })
    t.equal(byFilter.statusCode, 200, 'by a filter')
    t.equal(byFilter.json().deleted, 2)
    await sameAsRecount(t, store, 'after DELETE /traces?session_id=')

    const passes = await app.retention.runOnce()
    t.same(
      passes.map((r) => r.deleted),
      [2],
      'a retention pass deletes the old ones',
    )
    await sameAsRecount(t, store, 'after a retention pass')

    const project = await app.inject({ method: 'DELETE', url: `/projects/${PROJECT}` })
    t.equal(project.statusCode, 200, 'a whole project')
    t.equal(project.json().deleted_traces, 2)
    t.same(await everyTrace(store), [])
    await sameAsRecount(t, store, 'after DELETE /projects')
  },
)

t.test('SQLite: a database without such text opens as it was', { skip: TEST_DATABASE }, async (t) => {
  const file = previousRelease(t)
  await writeWithThisStore(file, async (old) => {
    await old.traces.insert([unreported(oldTrace('k', { user_id: '한국어', prompt: '한국어 텍스트 💥' }))])
  })
  const store = createSqliteStore(file)
  t.teardown(() => store.close())
  t.match(
    await store.traces.get('k'),
    { user_id: '한국어', prompt: '한국어 텍스트 💥' },
    'text with the byte ED is kept',
  )
})
