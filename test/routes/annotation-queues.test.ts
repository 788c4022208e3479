// /annotation-queues on the store under test: a queue's life, its progress, the walk (oldest first, held per
// annotator, never the same trace to two at once, holds that expire), and a project key's confinement.
import t, { type Test } from 'tap'
import { ANNOTATION_HOLD_MS, AnnotationQueueSchema } from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { buildTestApp, createProject, createSharedStores, postBatch, schemaErrors } from '../helper.js'

const BASE = Date.parse('2026-11-28T08:00:00.000Z')

async function setup(t: Test, options: { traces?: number; adminToken?: string; clock?: { now: number } } = {}) {
  const clock = options.clock ?? { now: BASE + 3_600_000 }
  const app = await buildTestApp(t, {
    now: () => clock.now,
    config: options.adminToken ? { adminToken: options.adminToken } : {},
  })
  const admin: Record<string, string> = options.adminToken ? { authorization: `Bearer ${options.adminToken}` } : {}
  const { key, project_id } = await createProject(app, 'Annotated', 'development', options.adminToken)
  await seed(app, key, options.traces ?? 5)
  const config = await app.inject({
    method: 'POST',
    url: '/score-configs',
    headers: admin,
    payload: { name: 'helpfulness', data_type: 'numeric', min: 0, max: 1 },
  })
  if (config.statusCode !== 201) throw new Error(config.body)
  return { app, key, project_id, clock, admin }
}

/** `count` traces, one a minute from BASE, every other one failed: tr-0 (`prefix`-0) is the oldest. */
async function seed(app: LoupeApp, key: string, count: number, prefix = 'tr') {
  const traces = Array.from({ length: count }, (_, i) => ({
    trace_id: `${prefix}-${i}`,
    prompt: `question ${i}`,
    response: i % 2 === 0 ? `answer ${i}` : '',
    status: i % 2 === 0 ? 'success' : 'failed',
    created_at: new Date(BASE + i * 60_000).toISOString(),
  }))
  // Newest first in the batch: the queue's order must come from created_at, not from the order of storing.
  const res = await postBatch(app, key, traces.reverse())
  if (res.statusCode !== 200 || res.json().rejected.length > 0) throw new Error(res.body)
}

const createQueue = (app: LoupeApp, payload: object, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/annotation-queues', payload, headers })

const next = (app: LoupeApp, queueId: string, annotator: string, extra: object = {}, headers = {}) =>
  app.inject({
    method: 'POST',
    url: `/annotation-queues/${queueId}/next`,
    payload: { annotator, ...extra },
    headers,
  })

const act = (app: LoupeApp, queueId: string, traceId: string, what: 'done' | 'release', annotator: string) =>
  app.inject({
    method: 'POST',
    url: `/annotation-queues/${queueId}/items/${traceId}/${what}`,
    payload: { annotator },
  })

t.test('a queue: created, listed, read with its progress, changed and deleted with its items', async (t) => {
  const { app, project_id } = await setup(t)
  const created = await createQueue(app, {
    name: 'Errors',
    project_id,
    filter: { status: 'failed' },
    score_names: ['helpfulness'],
    description: 'Rate the failed answers.',
  })
  t.equal(created.statusCode, 201, created.body)
  const queue = created.json()
  t.same(schemaErrors(AnnotationQueueSchema, queue), [])
  t.match(queue, { name: 'Errors', project_id, filter: { status: 'failed' }, progress: { done: 0, total: 2 } })

  const listed = (await app.inject({ method: 'GET', url: '/annotation-queues' })).json()
  t.equal(listed.total, 1)
  t.same(listed.items[0], queue)
  t.same((await app.inject({ method: 'GET', url: `/annotation-queues/${queue.queue_id}` })).json(), queue)

  const first = (await next(app, queue.queue_id, 'ana')).json()
  t.equal(first.trace_id, 'tr-1', 'the oldest trace of the filter')
  t.equal((await act(app, queue.queue_id, 'tr-1', 'done', 'ana')).statusCode, 200)
  t.match((await app.inject({ method: 'GET', url: `/annotation-queues/${queue.queue_id}` })).json(), {
    progress: { done: 1, total: 2 },
  })

  const changed = await app.inject({
    method: 'PUT',
    url: `/annotation-queues/${queue.queue_id}`,
    payload: { name: 'Everything', score_names: ['helpfulness'] },
  })
  t.equal(changed.statusCode, 200, changed.body)
  t.match(changed.json(), { name: 'Everything', filter: {}, description: null, progress: { done: 1, total: 5 } })

  const removed = await app.inject({ method: 'DELETE', url: `/annotation-queues/${queue.queue_id}` })
  t.equal(removed.statusCode, 204)
  t.equal((await app.inject({ method: 'GET', url: `/annotation-queues/${queue.queue_id}` })).statusCode, 404)
  t.equal(
    (await app.inject({ method: 'DELETE', url: `/annotation-queues/${queue.queue_id}` })).statusCode,
    404,
    'a second delete: nothing left',
  )
  t.same(await app.store.annotation.items(queue.queue_id, ['tr-1']), new Map(), 'its items went with it')
})

t.test('bad input: 400 naming the field', async (t) => {
  const { app, project_id } = await setup(t)
  const cases: [object, RegExp][] = [
    [{ name: 'x', project_id, score_names: ['nope'] }, /score_names\/0.*nope/],
    [{ name: 'x', project_id, score_names: [] }, /score_names/],
    [{ name: 'x', project_id, score_names: ['helpfulness'], filter: { sort: 'latency' } }, /filter/],
    [{ name: 'x', project_id, score_names: ['helpfulness'], filter: { status: 'maybe' } }, /filter\/status/],
    [{ name: 'x', project_id, score_names: ['helpfulness'], filter: { q: '   ' } }, /body\/filter\/q/],
    [
      { name: 'x', project_id, score_names: ['helpfulness'], filter: JSON.parse('{"__proto__": {"status": "x"}}') },
      /./,
    ],
    [{ name: '', project_id, score_names: ['helpfulness'] }, /name/],
    [{ name: 'x', score_names: ['helpfulness'] }, /project_id/],
  ]
  for (const [payload, message] of cases) {
    const res = await createQueue(app, payload)
    t.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`)
    t.match(res.json().message, message)
  }
  const noProject = await createQueue(app, { name: 'x', project_id: 'nope', score_names: ['helpfulness'] })
  t.equal(noProject.statusCode, 404)
  const queue = (await createQueue(app, { name: 'q', project_id, score_names: ['helpfulness'] })).json()
  const noName = await next(app, queue.queue_id, '')
  t.equal(noName.statusCode, 400)
  t.match(noName.json().message, /annotator/)
  t.equal((await next(app, 'nope', 'ana')).statusCode, 404)
  t.equal((await act(app, queue.queue_id, 'missing', 'done', 'ana')).statusCode, 404)
})

t.test('the walk: oldest first, held per annotator, done and released, null at the end', async (t) => {
  const { app, project_id, clock } = await setup(t, { traces: 4 })
  const queue = (await createQueue(app, { name: 'All', project_id, score_names: ['helpfulness'] })).json()
  const id = queue.queue_id

  const ana = (await next(app, id, 'ana')).json()
  t.match(ana, { trace_id: 'tr-0', held_by: 'ana', progress: { done: 0, total: 4 } })
  t.equal(Date.parse(ana.held_until), clock.now + ANNOTATION_HOLD_MS)
  t.equal((await next(app, id, 'ana')).json().trace_id, 'tr-0', 'asking again: the same trace')
  t.equal((await next(app, id, 'bob')).json().trace_id, 'tr-1', 'another annotator: the next one')

  // Someone else's hold refuses a done; a release by someone who does not hold it changes nothing.
  const refused = await act(app, id, 'tr-0', 'done', 'bob')
  t.equal(refused.statusCode, 409)
  t.match(refused.json(), { code: 'LOUPE_ANNOTATION_ITEM_HELD' })
  t.match((await act(app, id, 'tr-0', 'release', 'bob')).json(), { held_by: 'ana' })

  // Skipping: given back and passed over.
  const skipped = await act(app, id, 'tr-0', 'release', 'ana')
  t.match(skipped.json(), { held_by: null, held_until: null })
  t.equal((await next(app, id, 'ana', { exclude: ['tr-0'] })).json().trace_id, 'tr-2')
  t.equal((await next(app, id, 'cy')).json().trace_id, 'tr-0', 'a released trace is free again')

  // A hold that expires is free for others.
  clock.now += ANNOTATION_HOLD_MS + 1
  t.equal((await next(app, id, 'dee')).json().trace_id, 'tr-0')

  for (const [traceId, who] of [
    ['tr-0', 'dee'],
    ['tr-1', 'bob'],
    ['tr-2', 'ana'],
  ] as const) {
    const done = await act(app, id, traceId, 'done', who)
    t.equal(done.statusCode, 200, done.body)
    t.match(done.json(), { held_by: null })
  }
  t.match((await act(app, id, 'tr-0', 'done', 'ana')).json(), { progress: { done: 3 } }, 'done again: idempotent')
  const last = (await next(app, id, 'ana')).json()
  t.match(last, { trace_id: 'tr-3', progress: { done: 3, total: 4 } })
  await act(app, id, 'tr-3', 'done', 'ana')
  const end = await next(app, id, 'ana')
  t.equal(end.statusCode, 200)
  t.equal(end.json(), null, 'nothing left')
  t.match((await app.inject({ method: 'GET', url: `/annotation-queues/${id}` })).json(), {
    progress: { done: 4, total: 4 },
  })
})

t.test('many annotators at once never get the same trace', async (t) => {
  const { app, project_id } = await setup(t, { traces: 12 })
  const queue = (await createQueue(app, { name: 'All', project_id, score_names: ['helpfulness'] })).json()
  const annotators = Array.from({ length: 8 }, (_, i) => `annotator-${i}`)
  const got = await Promise.all(annotators.map(async (a) => (await next(app, queue.queue_id, a)).json().trace_id))
  t.equal(new Set(got).size, annotators.length, `all different: ${got.join(', ')}`)
  t.same([...got].sort(), Array.from({ length: 8 }, (_, i) => `tr-${i}`).sort(), 'the oldest eight')
})

t.test('two replicas over one database, asking at once, never hand out the same trace', async (t) => {
  const [one, two] = await createSharedStores(t)
  const clock = { now: BASE + 3_600_000 }
  const first = await buildTestApp(t, { store: one, now: () => clock.now })
  const second = await buildTestApp(t, { store: two, now: () => clock.now })
  const { key, project_id } = await createProject(first, 'Shared')
  await seed(first, key, 10)
  await first.inject({ method: 'POST', url: '/score-configs', payload: { name: 'ok', data_type: 'boolean' } })
  const queue = (await createQueue(first, { name: 'All', project_id, score_names: ['ok'] })).json()
  for (let round = 0; round < 3; round++) {
    const asks = Array.from({ length: 6 }, (_, i) => next(i % 2 ? second : first, queue.queue_id, `r${round}-${i}`))
    const ids = (await Promise.all(asks)).map((r) => r.json()?.trace_id).filter(Boolean)
    t.equal(new Set(ids).size, ids.length, `round ${round}: ${ids.join(', ')}`)
    // Each round's holds end, so that the next round competes for the same oldest traces again.
    clock.now += ANNOTATION_HOLD_MS + 1
  }
  const held = await one.annotation.items(
    queue.queue_id,
    Array.from({ length: 10 }, (_, i) => `tr-${i}`),
  )
  t.ok(held.size >= 6, 'the holds are stored where both replicas see them')
})

t.test('a project key sees and walks only its own project’s queues', async (t) => {
  const adminToken = 'admin-token-annotation-test-0123456789'
  const { app, key, project_id, admin } = await setup(t, { adminToken })
  const other = await createProject(app, 'Other', 'development', adminToken)
  const mine = { authorization: `Bearer ${key}` }
  const theirs = { authorization: `Bearer ${other.key}` }

  const own = await createQueue(app, { name: 'Mine', score_names: ['helpfulness'] }, mine)
  t.equal(own.statusCode, 201, own.body)
  t.equal(own.json().project_id, project_id, 'a project key creates in its own project')
  const foreign = await createQueue(app, { name: 'X', project_id, score_names: ['helpfulness'] }, theirs)
  t.equal(foreign.statusCode, 403)
  const byAdmin = await createQueue(
    app,
    { name: 'Theirs', project_id: other.project_id, score_names: ['helpfulness'] },
    admin,
  )
  t.equal(byAdmin.statusCode, 201, byAdmin.body)
  const theirQueue = byAdmin.json().queue_id

  const listed = (await app.inject({ method: 'GET', url: '/annotation-queues', headers: mine })).json()
  t.same(
    listed.items.map((q: { name: string }) => q.name),
    ['Mine'],
  )
  t.equal((await app.inject({ method: 'GET', url: '/annotation-queues', headers: admin })).json().total, 2)
  for (const [method, url, payload] of [
    ['GET', `/annotation-queues/${theirQueue}`, undefined],
    ['PUT', `/annotation-queues/${theirQueue}`, { name: 'x', score_names: ['helpfulness'] }],
    ['DELETE', `/annotation-queues/${theirQueue}`, undefined],
    ['POST', `/annotation-queues/${theirQueue}/next`, { annotator: 'ana' }],
    ['POST', `/annotation-queues/${theirQueue}/items/tr-0/done`, { annotator: 'ana' }],
  ] as const) {
    const res = await app.inject({ method, url, payload, headers: mine })
    t.equal(res.statusCode, 404, `${method} ${url}: another project's queue is unknown`)
  }
  t.equal((await app.inject({ method: 'GET', url: '/annotation-queues' })).statusCode, 401)
  t.equal((await next(app, own.json().queue_id, 'ana', {}, mine)).json().trace_id, 'tr-0')
})

t.test('deleting a project deletes its queues and their items, not another project’s', async (t) => {
  const { app, project_id } = await setup(t, { traces: 2 })
  const kept = await createProject(app, 'Kept')
  await seed(app, kept.key, 1, 'kept')
  const doomed = (await createQueue(app, { name: 'Doomed', project_id, score_names: ['helpfulness'] })).json()
  const other = (
    await createQueue(app, { name: 'Kept', project_id: kept.project_id, score_names: ['helpfulness'] })
  ).json()
  await next(app, doomed.queue_id, 'ana')
  await next(app, other.queue_id, 'ana')
  const res = await app.inject({ method: 'DELETE', url: `/projects/${project_id}` })
  t.equal(res.statusCode, 200, res.body)
  t.equal((await app.inject({ method: 'GET', url: `/annotation-queues/${doomed.queue_id}` })).statusCode, 404)
  t.same(await app.store.annotation.items(doomed.queue_id, ['tr-0', 'tr-1']), new Map(), 'its items are gone')
  t.match((await app.inject({ method: 'GET', url: `/annotation-queues/${other.queue_id}` })).json(), {
    progress: { done: 0, total: 1 },
  })
  t.equal((await app.store.annotation.items(other.queue_id, ['kept-0'])).size, 1, 'the other queue’s hold stays')
})
