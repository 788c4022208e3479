// Evaluators on live traffic, on the store under test: a stored trace that a rule takes gets a job with it, the worker
// turns it into one score (source evaluator, author the rule's name) or one evaluation error; a judge that cannot be
// asked leaves the job waiting and answered later; a sample is chosen by trace id; the judge's budget holds jobs
// back; backfill runs evaluate past traces once and can be cancelled; a deleted rule or trace leaves no job behind; the
// worker claims a few jobs ahead of its free slots, and lets a job held too long in its lease go back to the queue.
import t, { type Test } from 'tap'
import { EvaluatorRunSchema, EvaluatorSchema } from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { samplePoint } from '../../src/evaluators/selection.js'
import type { Store } from '../../src/store/types.js'
import { buildTestApp, countRows, createProject, createTestStore, postBatch, schemaErrors, waitFor } from '../helper.js'
import { type FakeJudge, startFakeJudge } from './fake-judge.js'

const VERDICT = (score: number) => ({ answer: JSON.stringify({ score, reasoning: `scored ${score}` }) })

interface Setup {
  app: LoupeApp
  key: string
  project_id: string
  judge: FakeJudge
  clock: { now: number }
}

async function setup(t: Test, config: Record<string, unknown> = {}, store?: Store): Promise<Setup> {
  const judge = await startFakeJudge(t)
  const clock = { now: Date.now() }
  const app = await buildTestApp(t, {
    store,
    now: () => clock.now,
    config: { judgeBaseUrl: judge.url, judgeModel: 'gpt-4o-mini', judgeTimeoutMs: 1000, ...config },
  })
  const { project_id, key } = await createProject(app, 'Evals')
  return { app, key, project_id, judge, clock }
}

const trace = (id: string, extra: Record<string, unknown> = {}) => ({
  trace_id: id,
  prompt: `question ${id}`,
  response: '{"answer": 42}',
  model: 'gpt-4o-mini',
  latency: 100,
  ...extra,
})

async function addRule(app: LoupeApp, rule: Record<string, unknown>) {
  const res = await app.inject({ method: 'POST', url: '/evaluators', payload: rule })
  if (res.statusCode !== 201) throw new Error(res.body)
  return res.json() as { evaluator_id: string; name: string }
}

const scoresOf = async (app: LoupeApp, query: string) =>
  (await app.inject(`/scores?limit=500&${query}`)).json() as {
    total: number
    items: { trace_id: string; name: string; value: number; source: string; author: string; comment: string }[]
  }

const statsOf = async (app: LoupeApp, id: string) => {
  const res = await app.inject(`/evaluators/${id}`)
  return res.json().stats as { evaluated: number; errors: number; pending: number; last_error: string | null }
}

t.test('each trace a rule takes gets one score from it; traces it does not take get none', async (t) => {
  const { app, key, judge } = await setup(t)
  const json = await addRule(app, {
    name: 'valid-json',
    score_name: 'json_valid',
    kind: 'json',
    config: { field: 'response' },
    filter: { model: 'gpt-4o-mini' },
  })
  const judged = await addRule(app, {
    name: 'helpful',
    score_name: 'helpfulness',
    kind: 'llm_judge',
    config: { template: 'Rate: {{prompt}} → {{response}}' },
    filter: { status: 'failed' },
  })
  judge.fallback = VERDICT(0.75)
  const res = await postBatch(app, key, [
    trace('t-1'),
    trace('t-2', { response: 'not json' }),
    trace('t-3', { model: 'claude' }),
    trace('t-4', { status: 'failed', error: 'boom' }),
  ])
  t.equal(res.statusCode, 200, res.body)
  await app.evaluationWorker.idle()
  const json_scores = await scoresOf(app, 'name=json_valid')
  t.same(
    json_scores.items.map((s) => [s.trace_id, s.value, s.source, s.author]).sort(),
    [
      ['t-1', 1, 'evaluator', 'valid-json'],
      ['t-2', 0, 'evaluator', 'valid-json'],
      ['t-4', 1, 'evaluator', 'valid-json'],
    ],
    'the model filter takes t-1, t-2 and t-4, not t-3',
  )
  const judged_scores = await scoresOf(app, 'name=helpfulness')
  t.same(
    judged_scores.items.map((s) => [s.trace_id, s.value, s.comment]),
    [['t-4', 0.75, 'scored 0.75']],
  )
  const { metadata } = (await app.inject(`/scores?name=helpfulness`)).json().items[0]
  t.match(metadata, { judge_model: 'gpt-4o-mini', judge_usage: { prompt_tokens: 100, completion_tokens: 20 } })
  t.ok(metadata.judge_cost > 0, 'the judge’s cost is on the score')
  t.equal(judge.requests.length, 1, 'the judge was asked once, for the failed trace')
  t.match(JSON.stringify(judge.requests[0]!.body), /question t-4/)

  const stats = await statsOf(app, json.evaluator_id)
  t.match(stats, { evaluated: 3, errors: 0, pending: 0 })
  const judgeStats = (await app.inject(`/evaluators/${judged.evaluator_id}`)).json()
  t.same(schemaErrors(EvaluatorSchema, judgeStats), [])
  t.match(judgeStats.stats, { evaluated: 1, judge_tokens: { prompt: 100, completion: 20 } })
  t.ok(judgeStats.stats.judge_cost > 0, 'the judge’s model has a price: its cost is counted')
  t.equal(await countRows(app.store, 'evaluation_jobs'), 0, 'no job is left')

  // The same traces sent again are not evaluated again.
  await postBatch(app, key, [trace('t-1'), trace('t-4', { status: 'failed', error: 'boom' })])
  await app.evaluationWorker.idle()
  t.equal((await scoresOf(app, 'source=evaluator')).total, 4)
  t.equal(judge.requests.length, 1)

  const metrics = (await app.inject('/metrics')).body
  t.match(metrics, /loupe_evaluations_total\{evaluator="valid-json",outcome="scored"\} 3/)
  t.match(metrics, /loupe_evaluation_jobs_pending\{evaluator="helpful"\} 0/)
})

t.test('the sample is chosen by trace id: the same traces on every run', async (t) => {
  const { app, key } = await setup(t)
  const rule = await addRule(app, {
    name: 'half',
    score_name: 'short',
    kind: 'length',
    config: { field: 'response', max: 1000 },
    sample_rate: 0.5,
  })
  const ids = Array.from({ length: 40 }, (_, i) => `s-${i}`)
  await postBatch(
    app,
    key,
    ids.map((id) => trace(id)),
  )
  await app.evaluationWorker.idle()
  const expected = ids.filter((id) => samplePoint(id) < 0.5).sort()
  t.ok(expected.length > 5 && expected.length < 35, 'the sample is neither none nor all')
  const scored = (await scoresOf(app, 'name=short')).items.map((s) => s.trace_id).sort()
  t.same(scored, expected)
  // A backfill of the same rule picks the same traces: all scored already, none enqueued.
  const run = await app.inject({ method: 'POST', url: `/evaluators/${rule.evaluator_id}/runs`, payload: {} })
  t.equal(run.statusCode, 202, run.body)
  const done = await waitFor(async () => {
    const r = (await app.inject(`/evaluator-runs/${run.json().run_id}`)).json()
    return r.status === 'done' ? r : null
  })
  t.match(done, { total: 0, done: 0, enumerated: true })
})

t.test('a judge that cannot be asked leaves the job waiting, then answered; a bad answer is an error', async (t) => {
  const { app, key, judge, clock } = await setup(t)
  const rule = await addRule(app, {
    name: 'helpful',
    score_name: 'helpfulness',
    kind: 'llm_judge',
    config: { template: '{{response}}' },
  })
  // Down: every attempt of the first evaluation fails (two transport attempts each).
  judge.script(
    { status: 500 },
    { status: 429, retryAfter: '120' },
    VERDICT(7),
    { answer: 'I think it is fine' },
    VERDICT(0.5),
  )
  await postBatch(app, key, [trace('d-1')])
  await app.evaluationWorker.idle()
  let stats = await statsOf(app, rule.evaluator_id)
  t.match(stats, { evaluated: 0, errors: 0, pending: 1 }, 'the job waits')
  t.match(stats.last_error, /429|500/, 'the failure to reach the judge is visible')
  t.equal((await scoresOf(app, 'name=helpfulness')).total, 0)
  const [job] = await app.store.evaluations.claim(1, clock.now + 119_000, 1000, 'probe')
  t.notOk(job, 'the judge’s Retry-After (120 s) holds the job back')

  // Two minutes later the judge answers — out of range, then not JSON: an evaluation error, no score.
  clock.now += 121_000
  app.evaluationWorker.poke()
  await app.evaluationWorker.idle()
  stats = await statsOf(app, rule.evaluator_id)
  t.match(stats, { evaluated: 0, errors: 1, pending: 0 })
  t.match(stats.last_error, /no usable verdict/)
  t.equal((await scoresOf(app, 'name=helpfulness')).total, 0)

  await postBatch(app, key, [trace('d-2')])
  await app.evaluationWorker.idle()
  t.same(
    (await scoresOf(app, 'name=helpfulness')).items.map((s) => [s.trace_id, s.value]),
    [['d-2', 0.5]],
  )
  t.equal((await statsOf(app, rule.evaluator_id)).evaluated, 1)
})

t.test('the judge’s budget holds jobs back to the next minute, never drops them', async (t) => {
  const { app, key, clock } = await setup(t, { evaluatorJudgePerMinute: 2 })
  const rule = await addRule(app, {
    name: 'helpful',
    score_name: 'helpfulness',
    kind: 'llm_judge',
    config: { template: '{{response}}' },
  })
  await postBatch(
    app,
    key,
    ['b-1', 'b-2', 'b-3', 'b-4', 'b-5'].map((id) => trace(id)),
  )
  await app.evaluationWorker.idle()
  t.match(await statsOf(app, rule.evaluator_id), { evaluated: 2, pending: 3 })
  clock.now += 60_000
  app.evaluationWorker.poke()
  await app.evaluationWorker.idle()
  t.match(await statsOf(app, rule.evaluator_id), { evaluated: 4, pending: 1 })
  clock.now += 60_000
  app.evaluationWorker.poke()
  await app.evaluationWorker.idle()
  t.match(await statsOf(app, rule.evaluator_id), { evaluated: 5, pending: 0 })
})

t.test('a backfill evaluates past traces once, shows its progress, and can be cancelled', async (t) => {
  const { app, key, judge, project_id } = await setup(t)
  const day = 86_400_000
  const base = Date.parse('2026-11-01T00:00:00Z')
  await postBatch(
    app,
    key,
    Array.from({ length: 30 }, (_, i) => trace(`p-${i}`, { created_at: new Date(base + i * day).toISOString() })),
  )
  const rule = await addRule(app, {
    name: 'valid-json',
    score_name: 'json_valid',
    kind: 'json',
    config: { field: 'response' },
  })
  t.equal(await countRows(app.store, 'evaluation_jobs'), 0, 'a new rule does not evaluate the past by itself')

  const bad = await app.inject({
    method: 'POST',
    url: `/evaluators/${rule.evaluator_id}/runs`,
    payload: { since: '2026-11-10T00:00:00Z', until: '2026-11-05T00:00:00Z' },
  })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().message, /until/)
  t.equal((await app.inject({ method: 'POST', url: '/evaluators/nope/runs', payload: {} })).statusCode, 404)

  const started = await app.inject({
    method: 'POST',
    url: `/evaluators/${rule.evaluator_id}/runs`,
    payload: { since: '2026-11-05T00:00:00Z', until: '2026-11-15T00:00:00Z' },
  })
  t.equal(started.statusCode, 202, started.body)
  t.same(schemaErrors(EvaluatorRunSchema, started.json()), [])
  t.match(started.json(), { status: 'running', since: '2026-11-05T00:00:00.000Z' })
  const runId = started.json().run_id as string
  const done = await waitFor(async () => {
    await app.evaluationWorker.idle()
    const r = (await app.inject(`/evaluator-runs/${runId}`)).json()
    return r.status === 'done' ? r : null
  })
  t.match(done, { total: 10, done: 10, errors: 0, enumerated: true })
  t.ok(done.finished_at)
  const scored = (await scoresOf(app, 'name=json_valid')).items.map((s) => s.trace_id).sort()
  t.same(scored, Array.from({ length: 10 }, (_, i) => `p-${i + 4}`).sort(), 'exactly the traces in [since, until)')
  const runs = (await app.inject(`/evaluators/${rule.evaluator_id}/runs`)).json()
  t.equal(runs.total, 1)

  // A judge that hangs keeps a second run going: cancelled, its waiting jobs go.
  const judged = await addRule(app, {
    name: 'helpful',
    score_name: 'helpfulness',
    kind: 'llm_judge',
    project_id,
    config: { template: '{{response}}' },
  })
  judge.fallback = { hang: true }
  const second = await app.inject({ method: 'POST', url: `/evaluators/${judged.evaluator_id}/runs`, payload: {} })
  const secondId = second.json().run_id as string
  await waitFor(async () => (await app.inject(`/evaluator-runs/${secondId}`)).json().enumerated === true)
  const cancelled = await app.inject({ method: 'DELETE', url: `/evaluator-runs/${secondId}` })
  t.equal(cancelled.statusCode, 200)
  t.match(cancelled.json(), { status: 'cancelled', total: 30 })
  t.ok(cancelled.json().done < 30)
  await waitFor(async () => (await statsOf(app, judged.evaluator_id)).pending === 0, 10_000, 'jobs dropped')
  t.equal((await app.inject({ method: 'DELETE', url: `/evaluator-runs/${secondId}` })).json().status, 'cancelled')
  t.equal((await app.inject('/evaluator-runs/none-such')).statusCode, 404)
})

t.test('a deleted rule or trace leaves no job; a disabled rule takes no new trace', async (t) => {
  const { app, key, judge } = await setup(t)
  judge.fallback = { hang: true }
  const rule = await addRule(app, {
    name: 'helpful',
    score_name: 'helpfulness',
    kind: 'llm_judge',
    config: { template: '{{response}}' },
  })
  const other = await addRule(app, {
    name: 'short',
    score_name: 'short',
    kind: 'length',
    config: { field: 'response', max: 5 },
    enabled: false,
  })
  await postBatch(app, key, [trace('x-1'), trace('x-2')])
  await waitFor(async () => (await statsOf(app, rule.evaluator_id)).pending === 2)
  t.equal((await statsOf(app, other.evaluator_id)).pending, 0, 'a disabled rule takes nothing')
  t.equal((await app.inject({ method: 'DELETE', url: `/evaluators/${rule.evaluator_id}` })).statusCode, 204)
  t.equal(await countRows(app.store, 'evaluation_jobs'), 0)

  const live = await addRule(app, {
    name: 'valid-json',
    score_name: 'json_valid',
    kind: 'json',
    config: { field: 'response' },
  })
  judge.fallback = VERDICT(1)
  await app.evaluationWorker.stop()
  await postBatch(app, key, [trace('y-1'), trace('y-2')])
  t.equal((await statsOf(app, live.evaluator_id)).pending, 2)
  t.equal((await app.inject({ method: 'DELETE', url: '/traces/y-1' })).statusCode, 204)
  await app.evaluationWorker.start()
  await app.evaluationWorker.idle()
  t.same(
    (await scoresOf(app, 'name=json_valid')).items.map((s) => s.trace_id),
    ['y-2'],
  )
  t.equal(await countRows(app.store, 'evaluation_jobs'), 0)
})

t.test(
  'an experiment’s trace is judged against its item’s expected output, and the experiment waits for it',
  async (t) => {
    const { app, key, judge, project_id } = await setup(t)
    const dataset = await app.inject({ method: 'POST', url: '/datasets', payload: { name: 'qa', project_id } })
    const dataset_id = dataset.json().dataset_id as string
    const added = await app.inject({
      method: 'POST',
      url: `/datasets/${dataset_id}/items`,
      payload: { items: [{ input: 'What is 6×7?', expected_output: 'forty-two' }] },
    })
    const item = added.json().items[0].dataset_item_id as string
    const experiment = await app.inject({ method: 'POST', url: '/experiments', payload: { dataset_id, name: 'v2' } })
    const experiment_id = experiment.json().experiment_id as string
    await addRule(app, {
      name: 'correct',
      score_name: 'correctness',
      kind: 'llm_judge',
      config: { template: 'Expected: {{expected}}. Answer: {{response}}' },
      filter: { experiment_id },
    })
    judge.fallback = VERDICT(1)
    await app.evaluationWorker.stop()
    await postBatch(app, key, [trace('e-1', { response: '42', experiment_id, dataset_item_id: item }), trace('e-2')])
    t.equal((await app.inject(`/experiments/${experiment_id}`)).json().pending_evaluations, 1, 'one evaluation to come')
    await app.evaluationWorker.start()
    await app.evaluationWorker.idle()
    t.equal((await app.inject(`/experiments/${experiment_id}`)).json().pending_evaluations, 0)
    t.equal(judge.requests.length, 1, 'only the experiment’s trace matched the rule')
    t.match(JSON.stringify(judge.requests[0]!.body), /Expected: \\"forty-two\\"|Expected: forty-two/)
    t.same(
      (await scoresOf(app, 'name=correctness')).items.map((s) => [s.trace_id, s.value]),
      [['e-1', 1]],
    )
    // The dry run reads the same expected output.
    const dry = await app.inject({
      method: 'POST',
      url: '/evaluators/test',
      payload: {
        evaluator: { name: 'c', score_name: 'correctness', kind: 'llm_judge', config: { template: '{{expected}}' } },
        trace_id: 'e-1',
      },
    })
    t.equal(dry.statusCode, 200, dry.body)
    t.match(JSON.stringify(judge.requests.at(-1)!.body), /forty-two/)
  },
)

/** A judge rule asked about each trace's prompt (so that its requests name the trace: `question <id>`). */
const addPromptJudge = (app: LoupeApp) =>
  addRule(app, { name: 'helpful', score_name: 'helpfulness', kind: 'llm_judge', config: { template: '{{prompt}}' } })

/** The traces the judge was asked about, in the order asked. */
const judgedTraces = (judge: FakeJudge) =>
  judge.requests.map((r) => JSON.stringify(r.body).match(/question ([\w-]+)/)?.[1])

t.test('the worker claims a few jobs ahead of its free slots, and runs each claimed job once', async (t) => {
  const store = await createTestStore(t)
  const claims: { limit: number; got: number }[] = []
  const evaluations: Store['evaluations'] = {
    ...store.evaluations,
    async claim(limit, ...rest) {
      const jobs = await store.evaluations.claim(limit, ...rest)
      claims.push({ limit, got: jobs.length })
      return jobs
    },
  }
  const { app, key, judge } = await setup(t, { evaluatorConcurrency: 2 }, { ...store, evaluations })
  await app.evaluationWorker.stop()
  const rule = await addPromptJudge(app)
  const ids = Array.from({ length: 10 }, (_, i) => `ahead-${i}`)
  await postBatch(
    app,
    key,
    ids.map((id) => trace(id)),
  )
  judge.fallback = { answer: JSON.stringify({ score: 1, reasoning: 'fine' }), delayMs: 20 }
  await app.evaluationWorker.start()
  await app.evaluationWorker.idle()
  t.match(await statsOf(app, rule.evaluator_id), { evaluated: 10, pending: 0 })
  // Two slots free: two jobs to run and two more held for when a slot frees.
  t.equal(claims[0]?.limit, 4, `claims: ${JSON.stringify(claims)}`)
  t.ok(claims.length < ids.length, `fewer claims than jobs: ${JSON.stringify(claims)}`)
  t.same(judgedTraces(judge).sort(), [...ids].sort(), 'the judge was asked once for each trace')
})

t.test('a job held past half its lease is let go, claimed again when the lease ends, and run once', async (t) => {
  const { app, key, judge, clock } = await setup(t, { evaluatorConcurrency: 1 })
  await app.evaluationWorker.stop()
  const rule = await addPromptJudge(app)
  await postBatch(app, key, [trace('held-1'), trace('held-2')])
  // One slot: the first job runs (its judge answers slowly), the second is claimed with it and held.
  judge.script({ answer: JSON.stringify({ score: 1, reasoning: 'slow' }), delayMs: 300 })
  await app.evaluationWorker.start()
  await waitFor(() => judge.requests.length === 1)
  // Four minutes pass while the first runs: past half the held job's lease (five minutes), not past all of it.
  clock.now += 240_000
  await app.evaluationWorker.idle()
  t.equal(judge.requests.length, 1, 'the held job was not started so late in its lease')
  t.match(await statsOf(app, rule.evaluator_id), { evaluated: 1, pending: 1 })
  // Its lease ends: due again, claimed again, run.
  clock.now += 120_000
  app.evaluationWorker.poke()
  await app.evaluationWorker.idle()
  t.match(await statsOf(app, rule.evaluator_id), { evaluated: 2, pending: 0 })
  t.same(judgedTraces(judge).sort(), ['held-1', 'held-2'], 'each trace judged once')
})
