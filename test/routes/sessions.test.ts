// GET /sessions and /users: filters, time ranges, unknown ids, and a project key seeing only its own project.
import t from 'tap'
import { SessionDetailResponse, type Trace, UserDetailResponse } from '../../schemas/index.js'
import { buildTestApp, createProject, postBatch, schemaErrors } from '../helper.js'

const NOW = Date.parse('2026-11-21T13:45:00.000Z')
const HOUR = 3_600_000

t.test('a conversation in order, its user, time ranges and filters', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const a = await createProject(app, 'Chat A')
  const b = await createProject(app, 'Chat B')
  await postBatch(app, a.key, [
    { trace_id: 'a3', prompt: 'third', session_id: 'conv', user_id: 'ann', created_at: NOW - HOUR, latency: 1.5 },
    { trace_id: 'a1', prompt: 'first', session_id: 'conv', created_at: NOW - 3 * HOUR, latency: 2, cost: 0.1 },
    { trace_id: 'a2', prompt: 'second', session_id: 'conv', user_id: 'bob', created_at: NOW - 2 * HOUR, cost: 0.2 },
    { trace_id: 'a4', prompt: 'alone', session_id: 'solo', user_id: 'ann', created_at: NOW - 10 * HOUR },
    { trace_id: 'a5', prompt: 'nobody', created_at: NOW },
  ])
  await postBatch(app, b.key, [{ trace_id: 'b1', prompt: 'x', session_id: 'conv', user_id: 'ann', created_at: NOW }])

  const conv = await app.inject({ url: '/sessions/conv', query: { project_id: a.project_id } })
  t.equal(conv.statusCode, 200)
  t.strictSame(schemaErrors(SessionDetailResponse, conv.json()), [])
  t.strictSame(
    conv.json().traces.map((tr: Trace) => tr.prompt),
    ['first', 'second', 'third'],
    'oldest first',
  )
  t.match(conv.json().session, {
    session_id: 'conv',
    project_id: a.project_id,
    user_id: 'bob', // the earliest trace naming a user
    traces: 3,
    first_at: new Date(NOW - 3 * HOUR).toISOString(),
    last_at: new Date(NOW - HOUR).toISOString(),
    latency_total: 3.5,
    cost: 0.3, // exactly, not 0.1 + 0.2 in floating point
    unpriced: 1,
  })
  const newest = await app.inject('/sessions/conv')
  t.equal(newest.json().session.project_id, b.project_id, 'without a project: the most recently active')

  const list = async (url: string, query: Record<string, string>) =>
    (await app.inject({ url, query }))
      .json()
      .items.map((s: { session_id?: string; user_id?: string }) =>
        url === '/sessions' ? `${s.session_id}` : `${s.user_id}`,
      )
  t.strictSame(await list('/sessions', {}), ['conv', 'conv', 'solo'], 'newest activity first')
  t.strictSame(await list('/sessions', { project_id: a.project_id }), ['conv', 'solo'])
  t.strictSame(await list('/sessions', { user_id: 'bob' }), ['conv'])
  t.strictSame(await list('/sessions', { since: new Date(NOW - 5 * HOUR).toISOString(), until: String(NOW) }), ['conv'])
  t.strictSame(await list('/users', { project_id: a.project_id }), ['ann', 'bob'])

  const ann = await app.inject({ url: '/users/ann', query: { project_id: a.project_id } })
  t.strictSame(schemaErrors(UserDetailResponse, ann.json()), [])
  t.match(ann.json().user, { user_id: 'ann', traces: 2, sessions: 1 })
  t.strictSame(
    ann.json().sessions.map((s: { session_id: string }) => s.session_id),
    ['solo'],
    'the sessions that are hers (conv is bob’s: he spoke first)',
  )

  t.equal((await app.inject('/sessions/nope')).statusCode, 404)
  t.equal((await app.inject('/users/nope')).statusCode, 404)
  const bad: Record<string, string>[] = [{ limit: '0' }, { since: 'soon' }, { offset: '-1' }]
  for (const query of bad) {
    const res = await app.inject({ url: '/sessions', query })
    t.equal(res.statusCode, 400, JSON.stringify(query))
    t.match(res.json().message, Object.keys(query)[0]!)
  }
})

t.test('in protected mode a project key sees only its own sessions and users', async (t) => {
  const ADMIN = 'admin-token-for-sessions-0123456789'
  const app = await buildTestApp(t, { config: { adminToken: ADMIN }, now: () => NOW })
  const a = await createProject(app, 'Mine', 'production', ADMIN)
  const b = await createProject(app, 'Theirs', 'production', ADMIN)
  await postBatch(app, a.key, [{ prompt: 'p', session_id: 's-a', user_id: 'u-a' }])
  await postBatch(app, b.key, [{ prompt: 'p', session_id: 's-b', user_id: 'u-b' }])
  const asA = { authorization: `Bearer ${a.key}` }
  const sessions = (await app.inject({ url: '/sessions', headers: asA })).json()
  t.strictSame(
    sessions.items.map((s: { session_id: string }) => s.session_id),
    ['s-a'],
  )
  t.equal((await app.inject({ url: '/sessions/s-b', headers: asA })).statusCode, 404)
  t.equal((await app.inject({ url: '/users/u-b', headers: asA })).statusCode, 404)
  t.equal((await app.inject({ url: '/users', headers: asA, query: { project_id: b.project_id } })).statusCode, 403)
  t.equal((await app.inject({ url: '/sessions' })).statusCode, 401)
})
