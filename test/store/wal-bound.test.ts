// The write-ahead log of a SQLite file stays within SQLITE_WAL_MAX_BYTES under sustained ingest (readers meanwhile),
// empties once the burst is over, and loses nothing that was acknowledged. The setting is read like every other one.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { loadConfig } from '../../src/config.js'
import { SettingError } from '../../src/errors.js'
import { openDatabase } from '../../src/store/sqlite/driver.js'
import { createSqliteStore } from '../../src/store/sqlite/store.js'
import { buildTestApp, createProject, postBatch, TEST_DATABASE, waitFor } from '../helper.js'

const BOUND = 1_048_576
/** Traces per request: some 2 KB of text each, so that one batch's transaction writes well under BOUND of log. */
const BATCH = 20
/**
 * A write that finds the log within its bound goes ahead, so the log can pass the bound by one transaction: a batch
 * here writes some 0.6 MB of log (its traces and the index pages they touch), up to 2.3 MB when its commit also merges
 * the search index's segments (measured between two samples). With 2 MB of slack the test failed now and then (the log
 * reached 3.19 MB); the bound held, the slack was short of one such transaction. A log left to grow reaches 30 MB.
 */
const SLACK = 3 * BOUND
const INGEST_MS = 4000

/** An app on a new SQLite file whose log is bounded to BOUND, a project's key, and the log's size. */
async function boundedApp(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-wal-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'loupe.db')
  const wal = () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0
  const store = createSqliteStore(path, { walMaxBytes: BOUND })
  const app = await buildTestApp(t, { store })
  const { key } = await createProject(app, 'wal')
  return { path, wal, store, app, key }
}

t.test(
  'the log stays within its bound during sustained ingest and empties after it',
  { skip: TEST_DATABASE },
  async (t) => {
    const { path, wal, store, app, key } = await boundedApp(t)

    const acknowledged = new Set<string>()
    const statuses = new Set<number>()
    let largest = 0
    let written = 0
    let previous = wal()
    const sample = () => {
      const size = wal()
      largest = Math.max(largest, size)
      if (size > previous) written += size - previous
      previous = size
    }
    // The worker checkpoints on its own thread: sampling between requests, and on a timer while they run.
    const timer = setInterval(sample, 5)
    const started = Date.now()
    for (let n = 0; Date.now() - started < INGEST_MS; n++) {
      const traces = Array.from({ length: BATCH }, (_, i) => ({
        prompt: `question ${n}-${i} ${'lorem ipsum dolor '.repeat(60)}`,
        response: `answer ${n}-${i} ${'sit amet consectetur '.repeat(40)}`,
        model: 'gpt-4o',
        user_id: `user-${(n * BATCH + i) % 500}`,
        session_id: `session-${(n * BATCH + i) % 2000}`,
      }))
      const res = await postBatch(app, key, traces)
      statuses.add(res.statusCode)
      for (const item of (res.json().items ?? []) as { trace_id: string }[]) acknowledged.add(item.trace_id)
      sample()
      // A reader now and then: the checkpoint must wait for it, not fail or grow the log without end.
      if (n % 10 === 0) statuses.add((await app.inject('/traces?limit=50')).statusCode)
    }
    clearInterval(timer)
    t.same([...statuses], [200], 'every write and read answered 200')
    t.ok(written > 10 * BOUND, `the ingest wrote ${(written / 1e6).toFixed(1)} MB of log, many times the bound`)
    t.ok(
      largest <= BOUND + SLACK,
      `the log never held more than ${(largest / 1e6).toFixed(2)} MB (bound ${BOUND / 1e6} MB + ${SLACK / 1e6} MB)`,
    )
    await waitFor(() => wal() === 0, 5000, 'the log to empty once the ingest stopped')
    await app.close()
    await store.close()

    const db = openDatabase(path, { readonly: true })
    t.teardown(() => db.close())
    const stored = db.prepare('select trace_id from traces').pluck().all() as string[]
    t.equal(stored.length, acknowledged.size, `${acknowledged.size} traces acknowledged, as many stored`)
    t.ok(
      stored.every((id) => acknowledged.has(id)),
      'each one of them',
    )
    t.equal(db.pragma('integrity_check', { simple: true }), 'ok')
  },
)

t.test(
  'a reader that holds an old snapshot never stops the writes: the log passes its bound meanwhile, then empties',
  { skip: TEST_DATABASE },
  async (t) => {
    const { path, wal, app, key } = await boundedApp(t)
    // Another process's reader (a backup, a CLI query) in a long transaction: no checkpoint can copy past its snapshot.
    const reader = openDatabase(path, { readonly: true })
    t.teardown(() => reader.open && reader.close())
    reader.exec('begin')
    reader.prepare('select count(*) from traces').pluck().get()

    const started = Date.now()
    let acknowledged = 0
    for (let n = 0; wal() <= 3 * BOUND; n++) {
      const traces = Array.from({ length: BATCH }, (_, i) => ({
        prompt: `held ${n}-${i} ${'lorem ipsum '.repeat(150)}`,
      }))
      const res = await postBatch(app, key, traces)
      t.equal(res.statusCode, 200, res.statusCode === 200 ? 'stored' : res.body)
      acknowledged += res.json().accepted
      if (Date.now() - started > 30_000) break
    }
    t.ok(wal() > 3 * BOUND, `the writes went on past the bound: ${(wal() / 1e6).toFixed(1)} MB of log`)
    t.ok(Date.now() - started < 30_000, `in ${Date.now() - started} ms (each wait for the log lasts a second at most)`)

    reader.exec('commit')
    reader.close()
    await waitFor(() => wal() === 0, 5000, 'the log to empty once the reader let go')
    const stored = await app.inject({ url: '/traces?limit=1', headers: { authorization: `Bearer ${key}` } })
    t.equal(stored.json().total, acknowledged, `${acknowledged} traces acknowledged, as many stored`)
  },
)

t.test('SQLITE_WAL_MAX_BYTES is read and checked like every setting', async (t) => {
  t.equal(loadConfig({}).sqliteWalMaxBytes, 64 * 1024 * 1024, '64 MiB by default')
  t.equal(loadConfig({ SQLITE_WAL_MAX_BYTES: '16777216' }).sqliteWalMaxBytes, 16_777_216)
  for (const bad of ['1000', '12.5', '64MB', '-1']) {
    t.throws(
      () => loadConfig({ SQLITE_WAL_MAX_BYTES: bad }),
      new SettingError(`SQLITE_WAL_MAX_BYTES must be a whole number ≥ 1048576 (got ${JSON.stringify(bad)}).`),
    )
  }
})
