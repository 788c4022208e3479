// A SQLite file's deletions run on a worker's connection (src/store/sqlite/background.ts): through the deletion service,
// by filter, by id and by project, what is left is counted exactly by the event loop's connection, every deleted trace
// is announced, the space goes back to the file system; an ingest meanwhile loses nothing, and closing the store during
// a deletion stops it between two batches with every figure still exact.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { Trace } from '../../schemas/index.js'
import { TraceNotFound } from '../../src/errors.js'
import type { EventHub } from '../../src/events/hub.js'
import { mulberry32, seed } from '../../src/seed/seed.js'
import { createDeletionService } from '../../src/services/deletion.js'
import { unreported } from '../../src/store/reported-cost.js'
import { createSqliteStore } from '../../src/store/sqlite/store.js'
import type { DeletedTrace } from '../../src/store/types.js'
import { TEST_DATABASE } from '../helper.js'

const NOW = Date.UTC(2026, 10, 21, 13, 30)

/** A SQLite file in a new folder, removed when the test ends; `open` opens it (again), closed at the end too. */
function tempFile(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-background-'))
  const path = join(dir, 'loupe.db')
  const opened: ReturnType<typeof createSqliteStore>[] = []
  t.teardown(async () => {
    for (const store of opened) await store.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return {
    open() {
      const store = createSqliteStore(path)
      opened.push(store)
      return store
    },
  }
}

/** A hub that keeps what was announced as deleted. */
function recordingHub() {
  const deleted: DeletedTrace[] = []
  return { hub: { publishDeleted: (ds: DeletedTrace[]) => deleted.push(...ds) } as unknown as EventHub, deleted }
}

type SqliteStore = ReturnType<typeof createSqliteStore>
const countRows = (store: SqliteStore, where = '', ...params: unknown[]) =>
  (store.raw.prepare(`select count(*) as n from traces ${where}`).get(...params) as { n: number }).n

/** Every count the store keeps equals a count of the rows themselves. */
async function exactCounts(t: Test, store: SqliteStore, what: string) {
  const rows = countRows(store)
  t.equal((await store.stats()).traces, rows, `${what}: the rollups count every trace left`)
  t.equal((await store.traces.list({}, { limit: 1, offset: 0 })).total, rows, `${what}: the list total`)
  t.equal(
    (await store.traces.analytics({ now: NOW, slowThresholdMs: 5000 })).summary.total_traces,
    rows,
    `${what}: /analytics`,
  )
  const search = (store.raw.prepare('select count(*) as n from traces_search').get() as { n: number }).n
  t.equal(search, rows, `${what}: one search entry a trace`)
}

t.test(
  'deletions by filter, id and project on a file, counted exactly and announced',
  { skip: TEST_DATABASE },
  async (t) => {
    const store = tempFile(t).open()
    await seed({ store, traces: 1500, days: 2, now: NOW, random: mulberry32(5) })
    const { hub, deleted } = recordingHub()
    const deletion = createDeletionService({ store, hub, now: () => NOW })
    const [sample] = await store.traces.list({}, { limit: 1, offset: 0 }).then((page) => page.items)
    // A search counted (and kept) before the deletions: the next count must see them.
    await store.traces.list({ q: ['the'] }, { limit: 1, offset: 0 })
    const pagesBefore = store.raw.pragma('page_count', { simple: true }) as number

    const until = NOW - 86_400_000
    const old = countRows(store, 'where created_at <= ?', until)
    t.ok(old > 100, `${old} traces older than a day`)
    const byProject = await deletion.deleteMatching({ until })
    t.equal(
      [...byProject.values()].reduce((a, b) => a + b, 0),
      old,
      'every old trace deleted',
    )
    t.equal(deleted.length, old, 'every deleted trace announced')
    t.equal(countRows(store, 'where created_at <= ?', until), 0, 'none left')
    await exactCounts(t, store, 'after a deletion by filter')
    t.equal(
      (await store.traces.list({ q: ['the'] }, { limit: 1, offset: 0 })).total,
      countRows(store, 'where rowid in (select rowid from traces_search where traces_search match \'"the"\')'),
      'a search counted before the deletion counts what is left',
    )
    t.equal(store.raw.pragma('freelist_count', { simple: true }), 0, 'the freed pages went back')
    t.ok((store.raw.pragma('page_count', { simple: true }) as number) < pagesBefore, 'the file shrank')

    const survivor = (await store.traces.list({}, { limit: 1, offset: 0 })).items[0]!
    await deletion.deleteTrace(survivor.trace_id, null)
    t.equal(await store.traces.get(survivor.trace_id), null, 'one trace deleted by id')
    t.equal(deleted.at(-1)?.trace_id, survivor.trace_id, 'and announced')
    await t.rejects(deletion.deleteTrace(survivor.trace_id, null), new TraceNotFound(survivor.trace_id), 'then unknown')
    await exactCounts(t, store, 'after a deletion by id')

    const project = sample?.project_id ?? 'support-bot'
    const inProject = countRows(store, 'where project_id = ?', project)
    const removed = await deletion.deleteProject(project)
    t.equal(removed.traces, inProject, 'the project and its every trace deleted')
    t.equal(await store.projects.get(project), null)
    await exactCounts(t, store, 'after a project deletion')
  },
)

t.test('an ingest during a deletion on a file loses nothing', { skip: TEST_DATABASE }, async (t) => {
  const store = tempFile(t).open()
  await seed({ store, traces: 1500, days: 2, now: NOW, random: mulberry32(6) })
  const template = (await store.traces.list({}, { limit: 1, offset: 0 })).items[0]!
  const { hub } = recordingHub()
  const deletion = createDeletionService({ store, hub, now: () => NOW })
  const projects = (await store.projects.list()).map((p) => p.project_id)
  const [doomed, kept] = [projects[0]!, projects[1]!]
  const running = deletion.deleteMatching({ project_id: doomed })
  let done = false
  void running.finally(() => {
    done = true
  })
  const stored: Trace[] = []
  for (let i = 0; !done || i < 20; i++) {
    const trace: Trace = {
      ...template,
      trace_id: `during-${i}`,
      project_id: kept,
      created_at: new Date(NOW - i * 1000).toISOString(),
    }
    // Each batch also stores one trace again: that transaction reads before it writes.
    const outcomes = await store.traces.insert((stored.length > 0 ? [trace, stored.at(-1)!] : [trace]).map(unreported))
    t.equal(outcomes[0]!.kind, 'created')
    stored.push(trace)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  await running
  t.equal(countRows(store, 'where project_id = ?', doomed), 0, 'the project has no trace left')
  const missing = []
  for (const trace of stored) if (!(await store.traces.get(trace.trace_id))) missing.push(trace.trace_id)
  t.same(missing, [], `all ${stored.length} traces stored during the deletion are there`)
  await exactCounts(t, store, 'after a deletion during an ingest')
})

t.test('closing the store during a deletion stops it between batches', { skip: TEST_DATABASE }, async (t) => {
  const file = tempFile(t)
  const store = file.open()
  await seed({ store, traces: 2000, days: 2, now: NOW, random: mulberry32(7) })
  const before = countRows(store)
  const { hub, deleted } = recordingHub()
  const deletion = createDeletionService({ store, hub, now: () => NOW })
  const running = deletion.deleteMatching({}).then(
    () => 'finished',
    () => 'stopped',
  )
  while (deleted.length === 0) await new Promise((resolve) => setTimeout(resolve, 1))
  await store.close()
  t.equal(await running, 'stopped', 'the deletion ends with the store')

  const again = file.open()
  const left = countRows(again)
  t.ok(left > 0 && left < before, `${before - left} of ${before} deleted before the store closed`)
  t.equal(before - left, deleted.length, 'every batch that was committed was announced, no other')
  await exactCounts(t, again, 'after a deletion cut short')
  const byProject = await createDeletionService({ store: again, hub, now: () => NOW }).deleteMatching({})
  t.equal(
    [...byProject.values()].reduce((a, b) => a + b, 0),
    left,
    'the rest deleted after a restart',
  )
  await exactCounts(t, again, 'after the rest')
})
