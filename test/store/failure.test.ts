// When the database cannot take writes — full (max_page_count, as a full disk reports it: SQLITE_FULL) or read-only
// (query_only: SQLITE_READONLY) — ingest and management answer 503 saying so, reads keep working (keyed reads too,
// though a key's last_used_at cannot be written), nothing half-written remains, and service resumes by itself as
// soon as the database takes writes again. Real SQLite errors on a real file database, not mocks.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { createSqliteStore } from '../../src/store/sqlite/store.js'
import { buildTestApp, postBatch, postTrace } from '../helper.js'

const ADMIN = 'admin-token-for-failure-tests'

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
  t.equal((await app.inject('/health')).statusCode, 200, 'the database still answers reads')
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

  store.raw.pragma('max_page_count = 1073741823')
  t.equal((await postTrace(app, key, big(0))).statusCode, 201, 'space again: ingest resumes without a restart')
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
  consistent(t, store, 5)

  store.raw.pragma('query_only = OFF')
  t.equal((await postTrace(app, key, { prompt: 'p' })).statusCode, 201, 'writable again: ingest resumes')
  t.equal(
    (await app.inject({ method: 'POST', url: '/projects?name=Other&environment=staging', headers: admin })).statusCode,
    201,
  )
  consistent(t, store, 6)
})
