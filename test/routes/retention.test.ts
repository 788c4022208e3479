// Retention: a project's own settings through the API (null follows the server's), the job deleting by age and by
// count — oldest first, analytics kept exact — reported in /metrics, and running by itself on its interval.
import t from 'tap'
import { buildTestApp, createProject, postBatch, waitFor } from '../helper.js'

const DAY = 86_400_000
const ago = (days: number, i = 0) => new Date(Date.now() - days * DAY - i * 1000).toISOString()

t.test('settings: GET and PUT, null follows the server, bad input is a 400, unknown project a 404', async (t) => {
  const app = await buildTestApp(t, { config: { retentionDays: 90, retentionMaxTraces: 1000 } })
  const { project_id } = await createProject(app, 'Kept')
  const get = await app.inject(`/projects/${project_id}/retention`)
  t.same(get.json(), {
    project_id,
    retention_days: null,
    retention_max_traces: null,
    effective: { retention_days: 90, retention_max_traces: 1000 },
  })
  const put = await app.inject({
    method: 'PUT',
    url: `/projects/${project_id}/retention`,
    payload: { retention_days: 7, retention_max_traces: null },
  })
  t.equal(put.statusCode, 200)
  t.same(put.json().effective, { retention_days: 7, retention_max_traces: 1000 })
  t.same((await app.inject(`/projects/${project_id}/retention`)).json().retention_days, 7, 'stored')
  const bad = await app.inject({
    method: 'PUT',
    url: `/projects/${project_id}/retention`,
    payload: { retention_days: -1, retention_max_traces: null },
  })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().message, /retention_days/)
  t.equal(
    (
      await app.inject({
        method: 'PUT',
        url: '/projects/none-such/retention',
        payload: { retention_days: 1, retention_max_traces: 1 },
      })
    ).statusCode,
    404,
  )
  t.equal((await app.inject('/projects/none-such/retention')).statusCode, 404)
})

t.test('the job deletes by age and by count, oldest first, and reports it', async (t) => {
  const app = await buildTestApp(t, { config: { retentionMaxTraces: 3 } })
  const aged = await createProject(app, 'Aged')
  const counted = await createProject(app, 'Counted')
  const forever = await createProject(app, 'Forever')
  await postBatch(app, aged.key, [
    { trace_id: 'a-old-1', prompt: 'x', created_at: ago(10) },
    { trace_id: 'a-old-2', prompt: 'x', created_at: ago(8) },
    { trace_id: 'a-new', prompt: 'x', created_at: ago(1) },
  ])
  await postBatch(
    app,
    counted.key,
    Array.from({ length: 5 }, (_, i) => ({ trace_id: `c-${i}`, prompt: 'x', created_at: ago(0, 10 - i) })),
  )
  await postBatch(
    app,
    forever.key,
    Array.from({ length: 5 }, (_, i) => ({ trace_id: `f-${i}`, prompt: 'x', created_at: ago(400) })),
  )
  const put = (project_id: string, body: object) =>
    app.inject({ method: 'PUT', url: `/projects/${project_id}/retention`, payload: body })
  await put(aged.project_id, { retention_days: 7, retention_max_traces: 0 })
  await put(forever.project_id, { retention_days: 0, retention_max_traces: 0 })

  const reports = await app.retention.runOnce()
  t.same(
    reports.sort((a, b) => a.project_id.localeCompare(b.project_id)),
    [
      { project_id: aged.project_id, reason: 'age', deleted: 2 },
      { project_id: counted.project_id, reason: 'count', deleted: 2 },
    ],
  )
  const ids = async (project_id: string) =>
    (await app.inject(`/traces?project_id=${project_id}&limit=100`))
      .json()
      .items.map((x: { trace_id: string }) => x.trace_id)
  t.same(await ids(aged.project_id), ['a-new'])
  t.same(await ids(counted.project_id), ['c-4', 'c-3', 'c-2'], 'the oldest went first')
  t.equal((await ids(forever.project_id)).length, 5, '0 overrides the server: kept')
  t.equal((await app.inject('/analytics')).json().summary.total_traces, 9)
  t.same(await app.retention.runOnce(), [], 'nothing more to do')

  const metrics = (await app.inject('/metrics')).body
  t.match(metrics, `loupe_retention_deleted_traces_total{project_id="${aged.project_id}",reason="age"} 2`)
  t.match(metrics, `loupe_retention_deleted_traces_total{project_id="${counted.project_id}",reason="count"} 2`)
})

t.test('the job runs by itself every RETENTION_INTERVAL_MS', async (t) => {
  const app = await buildTestApp(t, { config: { retentionDays: 30, retentionIntervalMs: 1000 } })
  const { key } = await createProject(app, 'Timed')
  await postBatch(app, key, [
    { trace_id: 't-old', prompt: 'x', created_at: ago(31) },
    { trace_id: 't-new', prompt: 'x' },
  ])
  await waitFor(async () => (await app.inject('/traces/t-old')).statusCode === 404, 10_000, 'the job to run')
  t.equal((await app.inject('/traces/t-new')).statusCode, 200)
})
