// Scores from the SDK, against a real server: `t.score()` on a trace being recorded (sent once the trace is
// delivered, whenever it is given), `loupe.score()` and `loupe.scores.*` (REST), and a public key's feedback.
import t, { type Test } from 'tap'
import { BatchScoresResponse, ListScoresResponse, ScoreSchema } from '../../schemas/index.js'
import { Loupe, LoupeError, type TraceContext } from '../../src/client/index.js'
import { createProject, schemaErrors, startTestServer } from '../helper.js'

async function setup(t: Test, options = {}) {
  const { app, url } = await startTestServer(t)
  const { key } = await createProject(app, 'Scored')
  const warnings: string[] = []
  // A long interval: the trace is still queued (not flushed) when it is scored.
  const loupe = new Loupe({
    baseUrl: url,
    apiKey: key,
    flushIntervalMs: 60_000,
    onWarning: (m) => warnings.push(m),
    ...options,
  })
  t.teardown(() => loupe.shutdown({ timeoutMs: 2000 }))
  return { app, url, key, loupe, warnings }
}

t.test('t.score() during the call: sent after the trace, with the trace’s id and step', async (t) => {
  const { app, loupe, warnings } = await setup(t)
  let traceId = ''
  await loupe.trace({ prompt: 'What is 2 + 2?' }, async (tr) => {
    traceId = tr.traceId
    await tr.step({ name: 'think' }, () => 'thinking')
    tr.score({ name: 'helpfulness', value: 0.75, comment: 'right', author: 'ci' })
    tr.score({ name: 'json_valid', value: true, stepIndex: 0, source: 'evaluator' })
    return '4'
  })
  t.equal(loupe.stats().pending, 1, 'the trace has not been sent yet')
  t.equal((await app.inject(`/scores?trace_id=${traceId}`)).json().total, 0, 'nor any score')

  t.equal(await loupe.flush(), true, 'flush() delivers the trace, then its scores')
  const listed = (await app.inject(`/scores?trace_id=${traceId}`)).json()
  t.same(schemaErrors(ListScoresResponse, listed), [])
  t.equal(listed.total, 2)
  const byName = Object.fromEntries(listed.items.map((s: { name: string }) => [s.name, s]))
  t.match(byName.helpfulness, {
    trace_id: traceId,
    step_index: null,
    data_type: 'numeric',
    value: 0.75,
    comment: 'right',
    author: 'ci',
    source: 'api',
  })
  t.match(byName.json_valid, { step_index: 0, data_type: 'boolean', value: 1, source: 'evaluator' })
  t.same(warnings, [])
})

t.test('t.score() after the call, before and after the trace is delivered', async (t) => {
  const { app, loupe } = await setup(t)
  let handle: TraceContext | undefined
  await loupe.trace({ prompt: 'p' }, (tr) => {
    handle = tr
    return 'r'
  })
  const id = handle!.traceId
  const given = new Date().toISOString()
  handle!.score({ name: 'thumbs', value: true, comment: 'queued' })
  await loupe.flush()
  const first = (await app.inject(`/scores?trace_id=${id}`)).json()
  t.equal(first.total, 1)
  t.ok(first.items[0].created_at >= given.slice(0, 19), 'created when it was given')

  // The user answers a while later: the trace is stored, the score goes at once.
  handle!.score({ name: 'thumbs', value: false, comment: 'changed my mind' })
  await loupe.flush()
  t.same(
    (await app.inject(`/scores?trace_id=${id}`)).json().items.map((s: { comment: string }) => s.comment),
    ['changed my mind', 'queued'],
  )
})

t.test('t.score() is sent at the trace’s own pace, without flush()', async (t) => {
  const { app, loupe } = await setup(t, { flushIntervalMs: 20 })
  let id = ''
  await loupe.trace({ prompt: 'p' }, (tr) => {
    id = tr.traceId
    tr.score({ name: 'tone', value: 'friendly' })
  })
  const deadline = Date.now() + 5000
  let total = 0
  while (Date.now() < deadline && total === 0) {
    total = (await app.inject(`/scores?trace_id=${id}`)).json().total
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  t.equal(total, 1)
  t.match((await app.inject(`/scores?trace_id=${id}`)).json().items[0], { data_type: 'categorical', label: 'friendly' })
})

t.test('a score the server refuses is a warning naming it and the field, never an exception', async (t) => {
  const { loupe, warnings } = await setup(t)
  await loupe.trace({ prompt: 'p' }, (tr) => {
    tr.score({ name: 'helpfulness', value: 0.5, stepIndex: 7 })
    tr.score({ name: '', value: 1 })
    // Not even a score: still nothing thrown.
    tr.score(undefined as never)
  })
  await loupe.flush()
  t.equal(warnings.length, 3, warnings.join('\n'))
  t.match(warnings[0], /rejected score 'helpfulness' of trace .*step_index/)
  t.match(warnings[1], /rejected score '' of trace .*name/)
})

t.test('loupe.score(): one score over REST, after delivering the trace it names', async (t) => {
  const { app, loupe } = await setup(t)
  let id = ''
  await loupe.trace({ prompt: 'p' }, (tr) => {
    id = tr.traceId
  })
  t.equal(loupe.stats().pending, 1)
  const score = await loupe.score({ trace_id: id, name: 'helpfulness', value: 0.9, score_id: 'sc-1' })
  t.same(schemaErrors(ScoreSchema, score), [])
  t.match(score, { score_id: 'sc-1', trace_id: id, value: 0.9 })
  t.equal(loupe.stats().pending, 0, 'the trace went first')
  t.same(await loupe.score({ trace_id: id, name: 'helpfulness', value: 0.9, score_id: 'sc-1' }), score, 'idempotent')

  const batch = await loupe.scores.batch([
    { trace_id: id, name: 'thumbs', value: true },
    { trace_id: 'no-such-trace', name: 'thumbs', value: true },
  ])
  t.same(schemaErrors(BatchScoresResponse, batch), [])
  t.equal(batch.accepted, 1)
  t.equal(batch.rejected[0]?.index, 1)

  const list = await loupe.scores.list({ trace_id: id })
  t.equal(list.total, 2)
  t.same(await loupe.scores.get('sc-1'), score)
  await loupe.scores.delete('sc-1')
  t.equal((await app.inject(`/scores?trace_id=${id}`)).json().total, 1)
  const missing = await loupe.score({ trace_id: 'no-such-trace', name: 'x', value: 1 }).catch((e) => e)
  t.ok(missing instanceof LoupeError)
  t.equal(missing.status, 404)
})

t.test('a browser’s public key sends feedback through loupe.score(), and reads nothing', async (t) => {
  const { loupe, url } = await setup(t)
  let id = ''
  await loupe.trace({ prompt: 'p' }, (tr) => {
    id = tr.traceId
  })
  await loupe.flush()
  const created = await loupe.apiKeys.create({ project_id: 'scored', environment: 'development', kind: 'public' })
  t.match(created.key, /^loupe_pk_/)
  const browser = new Loupe({ baseUrl: url, apiKey: created.key, enabled: false })
  const thumbs = await browser.score({ trace_id: id, name: 'thumbs', value: true })
  t.equal(thumbs.source, 'feedback')
  const read = await browser.scores.list().catch((e) => e)
  t.equal(read.status, 403)
})

t.test('score configs through the SDK', async (t) => {
  const { loupe } = await setup(t)
  const config = await loupe.scores.configs.create({ name: 'stars', data_type: 'numeric', min: 1, max: 5 })
  t.match(config, { name: 'stars', min: 1, max: 5 })
  t.equal((await loupe.scores.configs.list()).total, 1)
  t.match(await loupe.scores.configs.get('stars'), { name: 'stars' })
  t.match(await loupe.scores.configs.set('stars', { data_type: 'numeric', min: 0, max: 10 }), { max: 10 })
  await loupe.scores.configs.delete('stars')
  t.equal((await loupe.scores.configs.list()).total, 0)
})
