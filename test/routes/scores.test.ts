// POST /scores, /scores/batch, GET /scores, DELETE /scores/{id}, /score-configs, and a trace's scores, on the store
// under test.
import t, { type Test } from 'tap'
import { ScoreSchema } from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { buildTestApp, countRows, createProject, postTrace, schemaErrors } from '../helper.js'

async function setup(t: Test, config = {}) {
  const app = await buildTestApp(t, { config })
  const { key, project_id } = await createProject(app, 'Scores')
  const trace = (
    await postTrace(app, key, {
      trace_id: 'tr-1',
      prompt: 'What is 2 + 2?',
      response: '4',
      session_id: 'chat-1',
      user_id: 'u-1',
      steps: [
        { type: 'llm', name: 'think', latency: 10 },
        { type: 'tool', tool: 'calc', latency: 5 },
      ],
    })
  ).json()
  return { app, key, project_id, trace }
}

const score = (app: LoupeApp, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/scores', payload: payload as object, headers })

t.test('a numeric, a boolean and a categorical score: stored, typed from their value, read back whole', async (t) => {
  const { app, project_id } = await setup(t)
  const numeric = await score(app, {
    trace_id: 'tr-1',
    name: 'helpfulness',
    value: 0.8,
    comment: 'good',
    author: 'ana',
  })
  t.equal(numeric.statusCode, 201, numeric.body)
  const n = numeric.json()
  t.same(schemaErrors(ScoreSchema, n), [])
  t.match(n, {
    project_id,
    trace_id: 'tr-1',
    session_id: 'chat-1',
    step_index: null,
    name: 'helpfulness',
    data_type: 'numeric',
    value: 0.8,
    label: null,
    source: 'api',
    author: 'ana',
    comment: 'good',
  })
  const thumbs = (await score(app, { trace_id: 'tr-1', name: 'thumbs', value: true, step_index: 1 })).json()
  t.match(thumbs, { data_type: 'boolean', value: 1, label: 'true', step_index: 1 })
  const tone = (await score(app, { trace_id: 'tr-1', name: 'tone', value: 'friendly' })).json()
  t.match(tone, { data_type: 'categorical', value: 0, label: 'friendly' })

  const whole = (await app.inject({ method: 'GET', url: '/traces/tr-1' })).json()
  t.same(
    whole.scores.map((s: { score_id: string }) => s.score_id),
    [n.score_id, thumbs.score_id, tone.score_id],
    'the trace read by its id carries its scores, oldest first',
  )
  const listed = (await app.inject({ method: 'GET', url: '/scores?trace_id=tr-1&name=thumbs' })).json()
  t.equal(listed.total, 1)
  t.same(listed.items, [thumbs])
})

t.test('idempotent on score_id: the same score again is 200, other content 409', async (t) => {
  const { app } = await setup(t)
  const body = { score_id: 's-1', trace_id: 'tr-1', name: 'helpfulness', value: 1 }
  const first = await score(app, body)
  t.equal(first.statusCode, 201)
  const again = await score(app, body)
  t.equal(again.statusCode, 200)
  t.same(again.json(), first.json())
  const other = await score(app, { ...body, value: 0 })
  t.equal(other.statusCode, 409)
  t.match(other.json(), { code: 'LOUPE_SCORE_ID_TAKEN' })
  t.equal((await app.inject({ method: 'GET', url: '/scores' })).json().total, 1)
})

t.test('what a score names must exist: 404 for a trace or session, 400 for a step past the end', async (t) => {
  const { app } = await setup(t)
  const missing = await score(app, { trace_id: 'nope', name: 'x', value: 1 })
  t.equal(missing.statusCode, 404)
  t.match(missing.json(), { code: 'LOUPE_TRACE_NOT_FOUND' })
  const step = await score(app, { trace_id: 'tr-1', name: 'x', value: 1, step_index: 2 })
  t.equal(step.statusCode, 400)
  t.match(step.json().message, /step_index/)
  const session = await score(app, { session_id: 'chat-1', name: 'resolved', value: true })
  t.equal(session.statusCode, 201, session.body)
  t.match(session.json(), { trace_id: null, session_id: 'chat-1', data_type: 'boolean' })
  const noSession = await score(app, { session_id: 'chat-404', name: 'resolved', value: true })
  t.equal(noSession.statusCode, 404)
  const nothing = await score(app, { name: 'resolved', value: true })
  t.equal(nothing.statusCode, 400)
  t.match(nothing.json().message, /trace_id/)
  const badValue = await score(app, { trace_id: 'tr-1', name: 'x', value: 1e12 })
  t.equal(badValue.statusCode, 400)
  t.match(badValue.json().message, /value/)
})

t.test('a batch: each score on its own, answered like /traces/batch', async (t) => {
  const { app } = await setup(t)
  const res = await app.inject({
    method: 'POST',
    url: '/scores/batch',
    payload: {
      scores: [
        { trace_id: 'tr-1', name: 'a', value: 1 },
        { trace_id: 'missing', name: 'a', value: 1 },
        { trace_id: 'tr-1', name: '', value: 1 },
        { trace_id: 'tr-1', name: 'b', value: false },
      ],
    },
  })
  t.equal(res.statusCode, 200, res.body)
  const body = res.json()
  t.equal(body.accepted, 2)
  t.same(
    body.rejected.map((r: { index: number }) => r.index),
    [1, 2],
  )
  t.match(body.rejected[0].message, /body\/scores\/1\/trace_id/)
  t.match(body.rejected[1].message, /body\/scores\/2\/name/)
  t.equal(body.items.length, 2)
})

t.test('a score config checks the scores of its name', async (t) => {
  const { app } = await setup(t)
  const put = await app.inject({
    method: 'PUT',
    url: '/score-configs/helpfulness',
    payload: { data_type: 'numeric', min: 0, max: 1, description: 'did it help' },
  })
  t.equal(put.statusCode, 201, put.body)
  t.equal((await score(app, { trace_id: 'tr-1', name: 'helpfulness', value: 2 })).statusCode, 400)
  const tooHigh = await score(app, { trace_id: 'tr-1', name: 'helpfulness', value: 2 })
  t.match(tooHigh.json().message, /value must be <= 1/)
  t.equal((await score(app, { trace_id: 'tr-1', name: 'helpfulness', value: 'yes' })).statusCode, 400)
  t.equal((await score(app, { trace_id: 'tr-1', name: 'helpfulness', value: 0.5 })).statusCode, 201)

  const cat = await app.inject({
    method: 'POST',
    url: '/score-configs',
    payload: { name: 'tone', data_type: 'categorical', categories: ['rude', 'neutral', 'friendly'] },
  })
  t.equal(cat.statusCode, 201, cat.body)
  t.equal(
    (await app.inject({ method: 'POST', url: '/score-configs', payload: { name: 'tone', data_type: 'boolean' } }))
      .statusCode,
    409,
  )
  const friendly = await score(app, { trace_id: 'tr-1', name: 'tone', value: 'friendly' })
  t.match(friendly.json(), { value: 2, label: 'friendly' })
  const unknown = await score(app, { trace_id: 'tr-1', name: 'tone', label: 'sarcastic' })
  t.equal(unknown.statusCode, 400)
  t.match(unknown.json().message, /label must be one of/)
  const list = (await app.inject({ method: 'GET', url: '/score-configs' })).json()
  t.same(
    list.items.map((c: { name: string }) => c.name),
    ['helpfulness', 'tone'],
  )
  t.equal((await app.inject({ method: 'DELETE', url: '/score-configs/tone' })).statusCode, 204)
  t.equal((await app.inject({ method: 'GET', url: '/score-configs/tone' })).statusCode, 404)
  const bad = await app.inject({
    method: 'PUT',
    url: '/score-configs/x',
    payload: { data_type: 'numeric', min: 2, max: 1 },
  })
  t.equal(bad.statusCode, 400)
})

t.test('deleting a score, and a trace with its scores, keeps /analytics equal to the scores left', async (t) => {
  const { app, key } = await setup(t)
  await postTrace(app, key, { trace_id: 'tr-2', prompt: 'p' })
  const ids: string[] = []
  for (const [trace_id, value] of [
    ['tr-1', 0.25],
    ['tr-1', 0.5],
    ['tr-2', 1],
  ] as const) {
    ids.push((await score(app, { trace_id, name: 'helpfulness', value })).json().score_id)
  }
  const figure = async () =>
    (await app.inject({ method: 'GET', url: '/analytics' }))
      .json()
      .scores.find((s: { name: string }) => s.name === 'helpfulness')
  t.match(await figure(), { count: 3, mean: 0.583333, data_type: 'numeric' })
  t.equal((await app.inject({ method: 'DELETE', url: `/scores/${ids[1]}` })).statusCode, 204)
  t.match(await figure(), { count: 2, mean: 0.625 })
  t.equal((await app.inject({ method: 'DELETE', url: `/scores/${ids[1]}` })).statusCode, 404)
  t.equal((await app.inject({ method: 'DELETE', url: '/traces/tr-1' })).statusCode, 204)
  t.match(await figure(), { count: 1, mean: 1 })
  t.equal((await app.inject({ method: 'GET', url: '/scores' })).json().total, 1)
  const hourly = (await figure()).series.reduce((n: number, h: { count: number }) => n + h.count, 0)
  t.equal(hourly, 1, 'the hourly series counts what is left')
  // The last score of a name gone: the name is gone from every figure, and no rollup row is left holding nothing.
  t.equal((await app.inject({ method: 'DELETE', url: `/scores/${ids[2]}` })).statusCode, 204)
  t.equal(await figure(), undefined)
  t.same(
    [
      await countRows(app.store, 'score_hourly'),
      await countRows(app.store, 'trace_scores'),
      await countRows(app.store, 'score_values'),
    ],
    [0, 0, 0],
    'no empty rollup rows',
  )
})

t.test('GET /scores pages with a cursor, newest first', async (t) => {
  const { app } = await setup(t)
  for (let i = 0; i < 5; i++) {
    await score(app, { trace_id: 'tr-1', name: 'n', value: i, created_at: 1_800_000_000_000 + i * 1000 })
  }
  const seen: number[] = []
  let cursor: string | null = null
  do {
    const page: { items: { value: number }[]; next_cursor: string | null; total: number } = (
      await app.inject({ method: 'GET', url: '/scores', query: { limit: '2', ...(cursor ? { cursor } : {}) } })
    ).json()
    t.equal(page.total, 5)
    seen.push(...page.items.map((s) => s.value))
    cursor = page.next_cursor
  } while (cursor)
  t.same(seen, [4, 3, 2, 1, 0])
  t.equal((await app.inject({ method: 'GET', url: '/scores?cursor=garbage' })).statusCode, 400)
})
