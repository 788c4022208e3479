// Scores inline on a trace (POST /traces and POST /traces/batch): checked with the trace before anything is stored,
// recorded through the score road once it is, once each (a re-sent trace records them again idempotently), announced
// on /ws after their trace, never part of the stored trace nor of its trace.created event.
import t from 'tap'
import type { Score } from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { createProject, postBatch, postTrace } from '../helper.js'
import { connect, startServer } from '../ws-peer.js'

const steps = [
  { type: 'llm', name: 'think', latency: 10 },
  { type: 'tool', tool: 'calc', latency: 5 },
]

async function scoresOf(app: LoupeApp, traceId: string): Promise<Score[]> {
  const res = await app.inject(`/scores?trace_id=${traceId}&limit=200`)
  return (res.json() as { items: Score[] }).items.sort((a, b) => a.name.localeCompare(b.name))
}

t.test('POST /traces with scores: the trace stored without them, each score recorded and announced once', async (t) => {
  const { app, port } = await startServer(t)
  const { key, project_id } = await createProject(app, 'Inline')
  const peer = await connect(t, port)
  const sent = {
    trace_id: 'in-1',
    prompt: 'What is 2 + 2?',
    response: '4',
    session_id: 'chat-1',
    steps,
    scores: [
      { name: 'helpfulness', value: 0.9, comment: 'to the point', author: 'ci' },
      { name: 'json_valid', value: true, step_index: 1, source: 'evaluator' },
      { name: 'tone', value: 'friendly' },
    ],
  }
  const res = await postTrace(app, key, sent)
  t.equal(res.statusCode, 201, res.body)
  t.notOk('scores' in res.json(), 'the answer is the stored trace, without the scores sent with it')
  const stored = await scoresOf(app, 'in-1')
  t.match(stored, [
    { name: 'helpfulness', data_type: 'numeric', value: 0.9, comment: 'to the point', author: 'ci', source: 'api' },
    { name: 'json_valid', data_type: 'boolean', value: 1, label: 'true', step_index: 1, source: 'evaluator' },
    { name: 'tone', data_type: 'categorical', label: 'friendly', step_index: null },
  ])
  for (const s of stored) t.match(s, { project_id, trace_id: 'in-1', session_id: 'chat-1' })
  const whole = (await app.inject('/traces/in-1')).json()
  t.equal(whole.scores.length, 3, 'the trace read whole carries its scores')

  const events = await peer.sync()
  t.same(
    events.map((m) => m.type),
    ['trace.created', 'score.created', 'score.created', 'score.created'],
    'the trace first, then one score.created per score',
  )
  t.notOk('scores' in (events[0]!.data as object), 'trace.created carries the trace without the scores sent')
  t.same(
    events
      .slice(1)
      .map((m) => (m.data as Score).score_id)
      .sort(),
    stored.map((s) => s.score_id).sort(),
  )

  // The same trace again (a client's retry): 200, its scores found stored, nothing new announced.
  const again = await postTrace(app, key, sent)
  t.equal(again.statusCode, 200, again.body)
  t.same(await scoresOf(app, 'in-1'), stored, 'a re-sent trace records its scores once: ids come from its trace')
  t.same(await peer.sync(), [], 'nothing new on /ws')

  // A re-send may add a score: it is recorded (the trace stays as it was).
  const more = await postTrace(app, key, {
    ...sent,
    scores: [...sent.scores, { score_id: 'mine-1', name: 'thumbs', value: false, source: 'feedback' }],
  })
  t.equal(more.statusCode, 200)
  t.equal((await scoresOf(app, 'in-1')).length, 4)
  t.same(
    (await peer.sync()).map((m) => [m.type, (m.data as Score).score_id]),
    [['score.created', 'mine-1']],
  )

  const analytics = (await app.inject('/analytics')).json()
  t.match(
    analytics.scores.find((s: { name: string }) => s.name === 'helpfulness'),
    { count: 1, mean: 0.9 },
    'the figures count each score once',
  )
})

t.test('a bad inline score rejects its trace before anything is stored, naming the field', async (t) => {
  const { app, port } = await startServer(t)
  const { key } = await createProject(app, 'Inline')
  const peer = await connect(t, port)
  const put = await app.inject({
    method: 'PUT',
    url: '/score-configs/rating',
    payload: { data_type: 'numeric', min: 1, max: 5 },
  })
  t.equal(put.statusCode, 201, put.body)
  const cases: [unknown[], string][] = [
    [
      [
        { name: 'ok', value: 1 },
        { name: 'x', value: 'a', data_type: 'numeric' },
      ],
      'body/scores/1/value must be a number',
    ],
    [[{ name: 'x', value: 1, step_index: 2 }], 'body/scores/0/step_index must be below 2'],
    [[{ name: 'rating', value: 9 }], 'body/scores/0/value must be <= 5'],
    [[{ name: 'x', label: 'a', value: 'b' }], 'body/scores/0/label must equal value'],
    [[{ name: ' x', value: 1 }], 'body/scores/0/name'],
    [[{ name: 'x', value: 1, trace_id: 'other' }], 'body/scores/0 must NOT have additional properties'],
    [[{ name: 'x', metadata: { pad: 'x'.repeat(17_000) }, value: 1 }], 'body/scores/0/metadata must be at most'],
    [[{ name: 'x' }], "body/scores/0 must have property 'value'"],
    [Array.from({ length: 101 }, () => ({ name: 'x', value: 1 })), 'body/scores must NOT have more than 100 items'],
  ]
  for (const [scores, message] of cases) {
    const res = await postTrace(app, key, { trace_id: 'bad-1', prompt: 'p', steps, scores })
    t.equal(res.statusCode, 400, message)
    t.match(res.json().message, message)
  }
  t.equal((await app.inject('/traces/bad-1')).statusCode, 404, 'no trace stored')
  t.equal((await app.inject('/scores')).json().total, 0, 'no score stored')
  t.same(await peer.sync(), [], 'nothing announced')
})

t.test('POST /traces/batch: each trace with its scores on its own; one bad score rejects only its trace', async (t) => {
  const { app } = await startServer(t)
  const { key } = await createProject(app, 'Inline')
  const created: string[] = []
  app.hub.subscribeScores((type, scores) => {
    for (const s of scores) created.push(`${type} ${s.trace_id}`)
  })
  const res = await postBatch(app, key, [
    { trace_id: 'b-0', prompt: 'p', scores: [{ name: 'a', value: 1 }] },
    {
      trace_id: 'b-1',
      prompt: 'p',
      steps,
      scores: [
        { name: 'a', value: 1 },
        { name: 'b', value: 2, step_index: 5 },
      ],
    },
    {
      trace_id: 'b-2',
      prompt: 'p',
      scores: [
        { name: 'a', value: 0.5 },
        { name: 'b', label: 'x' },
      ],
    },
    { trace_id: 'b-3', prompt: 'p' },
  ])
  t.equal(res.statusCode, 200, res.body)
  const body = res.json()
  t.equal(body.accepted, 3)
  t.same(body.rejected, [
    { index: 1, message: 'body/traces/1/scores/1/step_index must be below 2: the trace has 2 steps' },
  ])
  t.same(
    body.items.map((i: { trace_id: string }) => i.trace_id),
    ['b-0', 'b-2', 'b-3'],
  )
  t.equal((await app.inject('/traces/b-1')).statusCode, 404, 'the trace of the bad score is not stored')
  t.match(await scoresOf(app, 'b-2'), [
    { name: 'a', value: 0.5 },
    { name: 'b', data_type: 'categorical', label: 'x' },
  ])
  t.same(created.sort(), ['score.created b-0', 'score.created b-2', 'score.created b-2'])
  // The whole batch again: nothing new.
  const again = await postBatch(app, key, [
    { trace_id: 'b-0', prompt: 'p', scores: [{ name: 'a', value: 1 }] },
    {
      trace_id: 'b-2',
      prompt: 'p',
      scores: [
        { name: 'a', value: 0.5 },
        { name: 'b', label: 'x' },
      ],
    },
  ])
  t.equal(again.json().accepted, 2)
  t.equal(created.length, 3, 'a re-sent batch records no score twice')
  t.equal((await app.inject('/scores')).json().total, 3)
})

t.test('a score id taken by a different score: the trace is stored, the score answered on its own', async (t) => {
  const { app } = await startServer(t)
  const { key } = await createProject(app, 'Inline')
  t.equal((await postTrace(app, key, { trace_id: 'first', prompt: 'p' })).statusCode, 201)
  const taken = await app.inject({
    method: 'POST',
    url: '/scores',
    headers: { authorization: `Bearer ${key}` },
    payload: { score_id: 'taken', trace_id: 'first', name: 'a', value: 1 },
  })
  t.equal(taken.statusCode, 201)
  const one = await postTrace(app, key, {
    trace_id: 'second',
    prompt: 'p',
    scores: [
      { name: 'b', value: 1 },
      { score_id: 'taken', name: 'a', value: 1 },
    ],
  })
  t.equal(one.statusCode, 409)
  t.match(one.json().message, "body/scores/1/score_id: score_id 'taken' is already used by a different score")
  t.equal((await app.inject('/traces/second')).statusCode, 200, 'the trace is stored')
  t.same(
    (await scoresOf(app, 'second')).map((s) => s.name),
    ['b'],
    'its other scores are recorded',
  )
  const batch = await postBatch(app, key, [
    { trace_id: 'third', prompt: 'p', scores: [{ score_id: 'taken', name: 'a', value: 2 }] },
  ])
  t.match(batch.json(), {
    accepted: 1,
    items: [{ trace_id: 'third' }],
    rejected: [
      { index: 0, message: "body/traces/0/scores/0/score_id: score_id 'taken' is already used by a different score" },
    ],
  })
})

t.test('inline scores are written in the key’s project only', async (t) => {
  const { app } = await startServer(t, { adminToken: 'admin-token-0123456789abcdef' } as never)
  const admin = { authorization: 'Bearer admin-token-0123456789abcdef' }
  const a = await createProject(app, 'A', 'development', 'admin-token-0123456789abcdef')
  const b = await createProject(app, 'B', 'development', 'admin-token-0123456789abcdef')
  t.equal((await postTrace(app, a.key, { trace_id: 'a-1', prompt: 'p' })).statusCode, 201)
  // B's key sends a trace of A's id: a conflict; its scores never reach A's trace.
  const res = await postTrace(app, b.key, { trace_id: 'a-1', prompt: 'p', scores: [{ name: 'x', value: 1 }] })
  t.equal(res.statusCode, 409)
  const scores = (await app.inject({ url: '/scores', headers: admin })).json()
  t.equal(scores.total, 0)
  const ok = await postTrace(app, b.key, { trace_id: 'b-1', prompt: 'p', scores: [{ name: 'x', value: 1 }] })
  t.equal(ok.statusCode, 201)
  t.match((await app.inject({ url: '/scores', headers: admin })).json().items, [
    { project_id: b.project_id, trace_id: 'b-1' },
  ])
})

t.test(
  'hostile inline scores: a 4xx naming the score, or stored as sent; never a 5xx, no prototype touched',
  async (t) => {
    const { app } = await startServer(t)
    const { key } = await createProject(app, 'Inline')
    const hostile: [unknown, number][] = [
      [{ name: '__proto__', value: 1 }, 201],
      [{ name: 'constructor', value: 'toString', metadata: { toString: 'x', hasOwnProperty: 1 } }, 201],
      [{ name: 'x', value: 1e308 }, 400],
      [{ name: 'x', value: -1e10 }, 400],
      [{ name: 'x', value: 1, comment: 'c'.repeat(10_001) }, 400],
      [{ name: 'x', value: 1, step_index: -1 }, 400],
      [{ name: 'x', value: 1, created_at: 'yesterday' }, 400],
      [{ name: 'x'.repeat(65), value: 1 }, 400],
      [{ name: 'x', value: 1, score_id: '../etc' }, 400],
      [null, 400],
      ['thumbs up', 400],
    ]
    for (const [i, [score, status]] of hostile.entries()) {
      const res = await postTrace(app, key, { trace_id: `h-${i}`, prompt: 'p', scores: [score] })
      t.equal(res.statusCode, status, `${JSON.stringify(score)?.slice(0, 60)}: ${res.body.slice(0, 120)}`)
      if (status === 400) t.match(res.json().message, /^body\/scores\/0/)
    }
    t.same(
      (await scoresOf(app, 'h-0')).map((s) => s.name),
      ['__proto__'],
    )
    t.match(await scoresOf(app, 'h-1'), [
      { name: 'constructor', label: 'toString', metadata: { toString: 'x', hasOwnProperty: 1 } },
    ])
    // A body carrying `__proto__` is refused as a whole before the trace is read.
    const proto = await app.inject({
      method: 'POST',
      url: '/traces',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"prompt": "p", "scores": [{"name": "x", "value": 1, "metadata": {"__proto__": {"polluted": 1}}}]}',
    })
    t.equal(proto.statusCode, 400)
    t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was touched')
  },
)
