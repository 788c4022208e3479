// When the database cannot take writes — full (max_page_count, as a full disk reports it: SQLITE_FULL) or read-only
// (query_only: SQLITE_READONLY) — ingest and management answer 503 saying so, reads keep working (keyed reads too,
// though a key's last_used_at cannot be written), GET /health and /metrics say that writes fail (reads answering
// do not hide it), nothing half-written remains, and service resumes by itself as soon as the database takes writes
// again: at the next write, or at the health check's own probe when no client writes. Real SQLite errors on a real
// file database, not mocks.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { mulberry32, seed } from '../../src/seed/seed.js'
import { describeStoreUnavailable, isStoreUnavailableError, writeFailureOf } from '../../src/store/index.js'
import { createSqliteStore } from '../../src/store/sqlite/store.js'
import { PROBE_EVERY_MS, watchWrites } from '../../src/store/write-health.js'
import { buildTestApp, postBatch, postTrace } from '../helper.js'

const ADMIN = 'admin-token-for-failure-tests'
const NOW = Date.UTC(2026, 10, 21, 12)

async function setup(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-failure-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const store = createSqliteStore(join(dir, 'loupe.db'))
  const app = await buildTestApp(t, { store, config: { adminToken: ADMIN } })
  const admin = { authorization: `Bearer ${ADMIN}` }
  const created = await app.inject({
    method: 'POST',
    url: '/projects?name=Acme&environment=production',
    headers: admin,
  })
  const key = created.json().api_key.key as string
  for (let i = 0; i < 5; i++)
    t.equal((await postTrace(app, key, { trace_id: `before-${i}`, prompt: 'p' })).statusCode, 201)
  // A key never used yet: reading with it must not fail on writing its last_used_at.
  const issued = await app.inject({
    method: 'POST',
    url: '/api-keys',
    payload: { project_id: 'acme', environment: 'production' },
    headers: admin,
  })
  return { app, store, key, fresh: issued.json().key as string, admin }
}

/** Every read a dashboard makes, with the admin token and with a project key. */
async function readsWork(t: Test, app: Awaited<ReturnType<typeof buildTestApp>>, headers: Record<string, string>[]) {
  for (const h of headers) {
    for (const url of ['/traces', '/traces/before-1', '/analytics', '/failures', '/projects', '/api-keys']) {
      t.equal((await app.inject({ url, headers: h })).statusCode, 200, `GET ${url} still answers`)
    }
  }
}

type App = Awaited<ReturnType<typeof buildTestApp>>

/** GET /health and /metrics say writes fail for `reason`, however many reads succeeded meanwhile. */
async function healthSays(t: Test, app: App, reason: 'full' | 'read_only') {
  const metricsHeaders = { authorization: `Bearer ${ADMIN}` }
  const health = await app.inject('/health')
  t.equal(health.statusCode, 503, `/health: 503 while the database is ${reason}`)
  t.equal(health.headers['retry-after'], '5', 'with Retry-After')
  t.match(health.json(), {
    statusCode: 503,
    code: 'LOUPE_STORE_UNAVAILABLE',
    status: 'unavailable',
    message: reason === 'full' ? /full/ : /read-only/,
    database: { status: reason, dialect: 'sqlite', writes_failing_since: /^\d{4}-\d\d-\d\dT/ },
  })
  const metrics = (await app.inject({ url: '/metrics', headers: metricsHeaders })).body
  t.match(metrics, `loupe_store_write_failing{reason="${reason}"} 1`, `/metrics: writes failing, ${reason}`)
}

/** GET /health is ok again and /metrics says no write fails. */
async function healthOk(t: Test, app: App) {
  const metricsHeaders = { authorization: `Bearer ${ADMIN}` }
  const health = await app.inject('/health')
  t.equal(health.statusCode, 200, '/health: ok again')
  t.match(health.json(), { status: 'ok', database: { status: 'up' } })
  t.notOk('writes_failing_since' in health.json().database)
  const metrics = (await app.inject({ url: '/metrics', headers: metricsHeaders })).body
  t.match(metrics, 'loupe_store_write_failing{reason="full"} 0')
  t.match(metrics, 'loupe_store_write_failing{reason="read_only"} 0')
}

/** Trace rows and the rollup totals agree: no half-written batch. */
function consistent(t: Test, store: ReturnType<typeof createSqliteStore>, expected: number) {
  const rows = (store.raw.prepare('select count(*) as n from traces').get() as { n: number }).n
  const rolled = (store.raw.prepare('select coalesce(sum(traces), 0) as n from rollup_totals').get() as { n: number }).n
  t.equal(rows, expected, `${expected} traces stored`)
  t.equal(rolled, rows, 'rollup totals equal the trace rows')
}

t.test('database full: 503 saying so, reads keep working, recovery by itself', async (t) => {
  const { app, store, key, fresh, admin } = await setup(t)
  await healthOk(t, app)
  const pages = (store.raw.pragma('page_count', { simple: true }) as number) + 0
  store.raw.pragma(`max_page_count = ${pages}`)

  const big = (i: number) => ({ trace_id: `full-${i}`, prompt: 'x'.repeat(200_000) })
  const one = await postTrace(app, key, big(0))
  t.equal(one.statusCode, 503)
  t.match(one.json(), {
    statusCode: 503,
    error: 'Service Unavailable',
    code: 'LOUPE_STORE_UNAVAILABLE',
    message: /full/,
  })
  t.equal(one.headers['retry-after'], '5')
  const batch = await postBatch(app, key, [big(1), big(2), { prompt: 'small' }])
  t.equal(batch.statusCode, 503, 'a batch is one transaction: all or nothing')
  consistent(t, store, 5)
  await readsWork(t, app, [admin, { authorization: `Bearer ${key}` }, { 'x-api-key': fresh }])
  // Reads succeeded (and the probe, 64 KB, found no room either): still full.
  await healthSays(t, app, 'full')
  await healthSays(t, app, 'full')

  store.raw.pragma('max_page_count = 1073741823')
  t.equal((await postTrace(app, key, big(0))).statusCode, 201, 'space again: ingest resumes without a restart')
  await healthOk(t, app)
  t.equal((await postBatch(app, key, [big(1), big(2)])).json().accepted, 2)
  consistent(t, store, 8)
  t.equal(store.raw.pragma('integrity_check', { simple: true }), 'ok')
})

t.test('database read-only: 503 saying so for every write, reads keep working, recovery by itself', async (t) => {
  const { app, store, key, fresh, admin } = await setup(t)
  store.raw.pragma('query_only = ON')

  const res = await postTrace(app, key, { prompt: 'p' })
  t.equal(res.statusCode, 503)
  t.match(res.json().message, /read-only/)
  t.equal((await postBatch(app, key, [{ prompt: 'p' }])).statusCode, 503)
  const project = await app.inject({ method: 'POST', url: '/projects?name=Other&environment=staging', headers: admin })
  t.equal(project.statusCode, 503, 'management writes too')
  t.notOk(project.body.includes('SQLITE'), 'no internals in the message')
  await readsWork(t, app, [admin, { authorization: `Bearer ${key}` }, { 'x-api-key': fresh }])
  await healthSays(t, app, 'read_only')
  consistent(t, store, 5)

  store.raw.pragma('query_only = OFF')
  t.equal((await postTrace(app, key, { prompt: 'p' })).statusCode, 201, 'writable again: ingest resumes')
  await healthOk(t, app)
  t.equal(
    (await app.inject({ method: 'POST', url: '/projects?name=Other&environment=staging', headers: admin })).statusCode,
    201,
  )
  consistent(t, store, 6)
})

t.test('with no client writing, the health check finds room again by itself, and reads never clear it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-failure-'))
  const raw = createSqliteStore(join(dir, 'loupe.db'))
  t.teardown(async () => {
    await raw.close()
    rmSync(dir, { recursive: true, force: true })
  })
  let clock = 0
  const { store, health } = watchWrites(raw, () => clock)
  await seed({ store, traces: 20, now: NOW, random: mulberry32(1) })
  t.equal(await health.check(), 'ok')
  raw.raw.pragma(`max_page_count = ${raw.raw.pragma('page_count', { simple: true })}`)
  await t.rejects(seed({ store, traces: 200, now: NOW, random: mulberry32(2) }), { code: 'SQLITE_FULL' })
  t.equal(health.state(), 'full')
  t.equal(health.since(), 0)
  await store.traces.list({}, { limit: 10, offset: 0 })
  await store.ping()
  t.equal(await health.check(), 'full', 'reads succeed, the probe finds no room: still full')

  raw.raw.pragma('max_page_count = 1073741823')
  clock += PROBE_EVERY_MS - 1
  t.equal(await health.check(), 'full', 'probed at most every 5 s')
  clock += 1
  t.equal(await health.check(), 'ok', 'the probe could write: ok again')
  t.equal(health.since(), null)
  t.equal(raw.raw.prepare("select count(*) as n from loupe_meta where key = 'write_probe'").pluck().get(), 0)
})

t.test('the errors that mean full or read-only, on both stores', async (t) => {
  const coded = (code: string) => Object.assign(new Error('x'), { code })
  const wrapped = (code: string) => new Error('query failed', { cause: coded(code) })
  t.equal(writeFailureOf(coded('SQLITE_FULL')), 'full')
  t.equal(writeFailureOf(wrapped('53100')), 'full', "PostgreSQL's disk_full, through the ORM's wrapper")
  t.equal(writeFailureOf(coded('SQLITE_READONLY_DBMOVED')), 'read_only')
  t.equal(writeFailureOf(coded('25006')), 'read_only')
  for (const other of ['SQLITE_BUSY', '53300', '23505', 'ECONNREFUSED']) t.equal(writeFailureOf(coded(other)), null)
  t.match(describeStoreUnavailable(wrapped('53100')), /full/)
  t.ok(isStoreUnavailableError(coded('25006')), 'a read-only PostgreSQL is a 503, not a 500')
})
