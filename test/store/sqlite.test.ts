// The SQLite store: migrations at open, rows read back conform to the contract, file and URL forms, a file's log
// checkpointed by its worker.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { TraceSchema } from '../../schemas/index.js'
import { createSqliteStore, sqlitePath } from '../../src/store/sqlite/store.js'
import { buildTestApp, createProject, postBatch, postTrace, schemaErrors } from '../helper.js'

t.test('database URL forms', async (t) => {
  t.equal(sqlitePath(':memory:'), ':memory:')
  t.equal(sqlitePath('./data/loupe.db'), './data/loupe.db')
  t.equal(sqlitePath('file:./data/x.db'), './data/x.db')
  t.equal(sqlitePath('file:///var/lib/loupe.db'), '/var/lib/loupe.db')
})

t.test('rows read back from the table conform to TraceSchema', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app)
  await postTrace(app, key, {
    prompt: 'p',
    model: 'm',
    tags: ['a'],
    metadata: { nested: { x: [1, 2] } },
    steps: [{ tool: 'search', input: { q: 1 }, output: 'r', started_at: 1_700_000_000 }],
  })
  const rows = await app.store.traces.list({}, { limit: 10, offset: 0 })
  t.equal(rows.items.length, 1)
  for (const trace of rows.items) t.same(schemaErrors(TraceSchema, trace), [])
})

t.test('a file database is created with its folder, migrated, and keeps data across opens', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-store-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const url = `file:${join(dir, 'nested', 'loupe.db')}`
  const first = createSqliteStore(url)
  await first.projects.create(
    { project_id: 'p', name: 'P', description: '', created_at: '2026-11-21T13:45:00.123' },
    {
      key_id: 'k',
      key_hash: 'h',
      kind: 'secret',
      key_preview: 'loupe_sk_abcd…wxyz',
      project_id: 'p',
      environment: 'production',
      created_at: 1,
    },
  )
  await first.close()
  const second = createSqliteStore(url)
  t.teardown(() => second.close())
  t.same(
    (await second.projects.list()).map((p) => p.project_id),
    ['p'],
  )
  t.equal(second.raw.pragma('journal_mode', { simple: true }), 'wal')
})

t.test("a file database's log is copied into it by a worker, never by a commit on the event loop", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-store-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'loupe.db')
  const store = createSqliteStore(path)
  t.equal(store.raw.pragma('wal_autocheckpoint', { simple: true }), 0, 'commits do not checkpoint')
  const app = await buildTestApp(t, { store })
  const { key } = await createProject(app)
  const before = statSync(path).size
  // About 100 pages: below SQLite's own threshold, so only the worker copies them into the file.
  const traces = Array.from({ length: 100 }, (_, i) => ({ prompt: `${i} ${'x'.repeat(3000)}` }))
  t.equal((await postBatch(app, key, traces)).json().accepted, 100)
  for (let i = 0; i < 100 && statSync(path).size <= before; i++) await sleep(50)
  t.ok(statSync(path).size > before, `the database file grew (${before} → ${statSync(path).size} bytes)`)
})
