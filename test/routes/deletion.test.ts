// DELETE /traces/{trace_id}, DELETE /traces?… and DELETE /projects/{project_id} over HTTP: what each deletes and
// answers, trace.deleted on /ws to the clients that may see the project, refusals, and protected mode; on SQLite,
// the space of deleted traces goes back to the file system.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createSqliteStore } from '../../src/store/sqlite/store.js'
import { buildTestApp, createProject, createTestStore, postBatch, postTrace } from '../helper.js'
import { connect, startServer } from '../ws-peer.js'

t.test('one trace: 204, then 404; gone from lists and analytics; announced on /ws', async (t) => {
  const { app, port } = await startServer(t)
  const { key, project_id } = await createProject(app)
  const other = await createProject(app, 'Other')
  const peer = await connect(t, port)
  const mine = await connect(t, port)
  mine.send({ type: 'subscribe', project_id: other.project_id })
  await mine.next('subscribed', (m) => m.type === 'subscribed')
  await postBatch(app, key, [
    { trace_id: 'd-1', prompt: 'a', status: 'failed' },
    { trace_id: 'd-2', prompt: 'b' },
  ])
  const res = await app.inject({ method: 'DELETE', url: '/traces/d-1' })
  t.equal(res.statusCode, 204)
  t.equal(res.body, '')
  t.equal((await app.inject('/traces/d-1')).statusCode, 404)
  t.equal((await app.inject({ method: 'DELETE', url: '/traces/d-1' })).statusCode, 404, 'a second delete: 404')
  const analytics = (await app.inject('/analytics')).json()
  t.equal(analytics.summary.total_traces, 1)
  t.equal(analytics.summary.failed_traces, 0)
  t.same(analytics.recent_failures, [])
  t.same(
    analytics.status_breakdown.map((b: { key: string }) => b.key),
    ['success'],
    'no breakdown entry at zero',
  )
  const deleted = await peer.next('trace.deleted', (m) => m.type === 'trace.deleted')
  t.same(deleted.data, { trace_id: 'd-1', project_id })
  await postTrace(app, other.key, { trace_id: 'd-3', prompt: 'c' })
  await app.inject({ method: 'DELETE', url: '/traces/d-3' })
  const seen = await mine.next('trace.deleted', (m) => m.type === 'trace.deleted')
  t.same(seen.data, { trace_id: 'd-3', project_id: other.project_id }, 'a subscriber hears only its project')
})

t.test('by filter: every GET /traces filter; no filter needs all=true', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app)
  const traces = Array.from({ length: 1300 }, (_, i) => ({ prompt: `p${i}`, status: i % 2 ? 'failed' : 'success' }))
  await postBatch(app, key, traces.slice(0, 1000))
  await postBatch(app, key, traces.slice(1000))
  const refused = await app.inject({ method: 'DELETE', url: '/traces' })
  t.equal(refused.statusCode, 400)
  t.match(refused.json().message, /all=true/)
  t.equal((await app.inject({ method: 'DELETE', url: '/traces?min_latency=-3' })).statusCode, 400)
  const failed = await app.inject({ method: 'DELETE', url: '/traces?status=failed' })
  t.same(failed.json(), { deleted: 650 }, 'more than one batch')
  t.equal((await app.inject('/traces?limit=1')).json().total, 650)
  t.same((await app.inject({ method: 'DELETE', url: '/traces?all=true' })).json(), { deleted: 650 })
  t.equal((await app.inject('/analytics')).json().summary.total_traces, 0)
})

t.test('search and cost filters: export and delete take the same traces GET /traces lists', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app)
  const traces = Array.from({ length: 60 }, (_, i) => ({
    trace_id: `qc-${i}`,
    prompt: i % 3 === 0 ? `refund order ${i}` : `weather ${i}`,
    cost: i % 4 === 0 ? null : i / 1000,
  }))
  await postBatch(app, key, traces)
  const queries = ['q=refund', 'min_cost=0.02', 'max_cost=0.01&q=weather', 'q=REFUND&min_cost=0.03']
  for (const query of queries) {
    const listed = (await app.inject(`/traces?limit=1000&${query}`)).json()
    t.ok(listed.total > 0, `${query}: some match`)
    const exported = (await app.inject(`/traces/export?${query}`)).body.split('\n').filter(Boolean)
    t.same(
      exported.map((line) => JSON.parse(line).trace_id),
      listed.items.map((x: { trace_id: string }) => x.trace_id),
      `${query}: the export holds the listed traces`,
    )
  }
  t.equal((await app.inject('/traces/export?q=%20%20')).statusCode, 400, 'a q of white space')
  const refused = await app.inject({ method: 'DELETE', url: '/traces?q=%20' })
  t.equal(refused.statusCode, 400)
  t.match(refused.json().message, /querystring\/q/)
  const expected = (await app.inject('/traces?limit=1&q=refund&min_cost=0.03')).json().total
  t.same((await app.inject({ method: 'DELETE', url: '/traces?q=refund&min_cost=0.03' })).json(), { deleted: expected })
  t.equal((await app.inject('/traces?limit=1&q=refund&min_cost=0.03')).json().total, 0, 'none left')
  t.equal((await app.inject('/traces?limit=1&q=refund')).json().total, 20 - expected, 'the rest kept')
  const summary = (await app.inject('/analytics')).json().summary
  t.equal(summary.total_traces, 60 - expected)
})

t.test('a project: its traces, keys and pending spans; its key stops working', async (t) => {
  const app = await buildTestApp(t)
  const doomed = await createProject(app, 'Doomed')
  const kept = await createProject(app, 'Kept')
  await postBatch(app, doomed.key, [{ prompt: 'x' }, { prompt: 'y' }])
  await postTrace(app, kept.key, { prompt: 'z' })
  const res = await app.inject({ method: 'DELETE', url: `/projects/${doomed.project_id}` })
  t.equal(res.statusCode, 200)
  t.same(res.json(), {
    project_id: doomed.project_id,
    deleted_traces: 2,
    deleted_api_keys: 1,
    deleted_pending_spans: 0,
  })
  t.equal((await postTrace(app, doomed.key, { prompt: 'late' })).statusCode, 401, 'its key is gone')
  t.same(
    (await app.inject('/projects')).json().items.map((p: { project_id: string }) => p.project_id),
    [kept.project_id],
  )
  const analytics = (await app.inject('/analytics')).json()
  t.equal(analytics.summary.total_traces, 1)
  t.same(
    analytics.project_breakdown.map((b: { key: string }) => b.key),
    [kept.project_id],
  )
  t.equal((await app.inject({ method: 'DELETE', url: `/projects/${doomed.project_id}` })).statusCode, 404)
})

t.test('a project deletion the store stopped midway is finished by a second call', async (t) => {
  // The third batch fails as a full disk does: the batches before it are deleted, that one not at all.
  const store = await createTestStore(t)
  const deleteTraces = store.traces.delete.bind(store.traces)
  let batches = 0
  let failThird = false
  store.traces.delete = async (selection) => {
    if (failThird && ++batches === 3) {
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
    }
    return deleteTraces(selection)
  }
  const app = await buildTestApp(t, { store })
  const doomed = await createProject(app, 'Doomed')
  const kept = await createProject(app, 'Kept')
  await postBatch(
    app,
    doomed.key,
    Array.from({ length: 60 }, (_, i) => ({ prompt: `p${i}` })),
  )
  await postTrace(app, kept.key, { prompt: 'z' })
  failThird = true
  const first = await app.inject({ method: 'DELETE', url: `/projects/${doomed.project_id}` })
  t.equal(first.statusCode, 503, "the failure is the store's, told as such")
  const left = (await app.inject(`/traces?project_id=${doomed.project_id}&limit=1`)).json().total
  t.ok(left > 0 && left < 60, `some batches deleted, whole (${left} left)`)
  t.equal((await postTrace(app, doomed.key, { prompt: 'late' })).statusCode, 401, 'its keys stay revoked')
  const analytics = (await app.inject(`/analytics?project_id=${doomed.project_id}`)).json()
  t.equal(analytics.summary.total_traces, left, 'the figures count exactly the traces left')

  const second = await app.inject({ method: 'DELETE', url: `/projects/${doomed.project_id}` })
  t.equal(second.statusCode, 200, 'a second call finishes the deletion')
  t.match(second.json(), { project_id: doomed.project_id, deleted_traces: left, deleted_api_keys: 1 })
  t.same(
    (await app.inject('/projects')).json().items.map((p: { project_id: string }) => p.project_id),
    [kept.project_id],
  )
  t.equal((await app.inject('/analytics')).json().summary.total_traces, 1)
})

t.test('protected mode: a key deletes only its own traces; only the admin deletes a project', async (t) => {
  const adminToken = 'deletion-admin-token-0123456789'
  const app = await buildTestApp(t, { config: { adminToken } })
  const a = await createProject(app, 'A', 'production', adminToken)
  const b = await createProject(app, 'B', 'production', adminToken)
  await postTrace(app, a.key, { trace_id: 'pa', prompt: 'a' })
  await postTrace(app, b.key, { trace_id: 'pb', prompt: 'b' })
  const as = (token: string | null, method: 'DELETE', url: string) =>
    app.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {} })
  t.equal((await as(null, 'DELETE', '/traces/pa')).statusCode, 401)
  t.equal((await as(a.key, 'DELETE', '/traces/pb')).statusCode, 404, "another project's trace is unknown to a key")
  t.equal((await as(a.key, 'DELETE', `/traces?project_id=${b.project_id}`)).statusCode, 403)
  t.same((await as(a.key, 'DELETE', '/traces?all=true')).json(), { deleted: 1 }, 'all=true: its own trace only')
  t.equal((await as(a.key, 'DELETE', '/traces/pa')).statusCode, 404, 'already gone')
  t.equal((await as(a.key, 'DELETE', `/projects/${a.project_id}`)).statusCode, 403)
  t.equal((await as(adminToken, 'DELETE', '/traces/pb')).statusCode, 204)
  t.equal((await as(adminToken, 'DELETE', `/projects/${b.project_id}`)).statusCode, 200)
})

t.test('SQLite: a deletion gives the space of its traces back to the file system', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-reclaim-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const store = createSqliteStore(join(dir, 'loupe.db'))
  const app = await buildTestApp(t, { store })
  const { key } = await createProject(app)
  const pages = () => store.raw.pragma('page_count', { simple: true }) as number
  const empty = pages()
  // 16 MB of prompts: far more free pages than the batches of the deletion hand back one step each.
  for (let b = 0; b < 16; b++) {
    const traces = Array.from({ length: 50 }, (_, i) => ({ trace_id: `big-${b}-${i}`, prompt: 'x'.repeat(20_000) }))
    t.equal((await postBatch(app, key, traces)).json().accepted, 50)
  }
  const full = pages()
  t.ok(full > empty + 2000, `the prompts take pages (${empty} → ${full})`)
  t.same((await app.inject({ method: 'DELETE', url: '/traces?all=true' })).json(), { deleted: 800 })
  const after = pages()
  t.equal(store.raw.pragma('freelist_count', { simple: true }), 0, 'no free page is left in the file')
  t.ok(after < empty + (full - empty) / 4, `the pages went back (${full} → ${after})`)
  t.equal(store.raw.pragma('integrity_check', { simple: true }), 'ok')
})
