// /experiments on the store under test: an experiment fixes its dataset's version; its runs are ordinary traces
// carrying experiment_id and dataset_item_id (filterable in GET /traces, exported); its answer gathers them item by
// item with their scores and aggregates; a comparison lines runs up with their differences; the expected output of a
// run's item is found from its trace; another project's experiment is unknown.
import t, { type Test } from 'tap'
import { CompareExperimentsResponse, ExperimentDetailResponse, ExperimentSchema } from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { experimentAggregates, runDelta } from '../../src/services/experiments.js'
import { buildTestApp, createProject, postBatch, schemaErrors } from '../helper.js'

const BASE = Date.parse('2026-11-28T08:00:00.000Z')

const json = (app: LoupeApp, method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: method as 'GET', url, payload: payload as object, headers })

async function setup(t: Test, adminToken?: string) {
  const clock = { now: BASE }
  const app = await buildTestApp(t, { now: () => clock.now, config: adminToken ? { adminToken } : {} })
  const admin: Record<string, string> = adminToken ? { authorization: `Bearer ${adminToken}` } : {}
  const { key, project_id } = await createProject(app, 'Support', 'development', adminToken)
  const dataset = await json(app, 'POST', '/datasets', { name: 'qa', project_id }, admin)
  const dataset_id = dataset.json().dataset_id as string
  const added = await json(
    app,
    'POST',
    `/datasets/${dataset_id}/items`,
    { items: [{ input: 'q1', expected_output: 'a1' }, { input: 'q2', expected_output: 'a2' }, { input: 'q3' }] },
    admin,
  )
  const items = added.json().items.map((i: { dataset_item_id: string }) => i.dataset_item_id) as string[]
  clock.now += 1000
  return { app, key, project_id, dataset_id, items, clock, admin }
}

/** One experiment: its runs as traces (per item: latency, a correctness score, failed or not; null: not run). */
async function runExperiment(
  app: LoupeApp,
  key: string,
  dataset_id: string,
  items: string[],
  runs: ({ latency: number; correct: number; failed?: boolean } | null)[],
  name = 'run',
) {
  const created = await json(app, 'POST', '/experiments', { dataset_id, name, metadata: { model: name } })
  if (created.statusCode !== 201) throw new Error(created.body)
  const experiment_id = created.json().experiment_id as string
  const traces = runs.flatMap((run, i) =>
    run === null
      ? []
      : [
          {
            trace_id: `${name}-${i}`,
            prompt: `q${i + 1}`,
            response: run.failed ? null : `answer ${i}`,
            latency: run.latency,
            token_count: 10,
            cost: 0.001,
            status: run.failed ? 'failed' : undefined,
            experiment_id,
            dataset_item_id: items[i],
            scores: [{ name: 'correctness', value: run.correct }],
          },
        ],
  )
  const res = await postBatch(app, key, traces)
  if (res.json().accepted !== traces.length) throw new Error(res.body)
  return experiment_id
}

t.test('an experiment’s answer holds each item’s run, its scores and the aggregates', async (t) => {
  const { app, key, dataset_id, items, clock } = await setup(t)
  const bad = await json(app, 'POST', '/experiments', { dataset_id: 'nope', name: 'x' })
  t.equal(bad.statusCode, 404)
  const future = await json(app, 'POST', '/experiments', { dataset_id, name: 'x', as_of: BASE + 3_600_000 })
  t.equal(future.statusCode, 400)
  t.match(future.json().message, /as_of/)

  const id = await runExperiment(app, key, dataset_id, items, [
    { latency: 100, correct: 1 },
    { latency: 300, correct: 0, failed: true },
    null,
  ])
  const res = await json(app, 'GET', `/experiments/${id}`)
  t.equal(res.statusCode, 200)
  const detail = res.json()
  t.same(schemaErrors(ExperimentDetailResponse, detail), [])
  t.same(schemaErrors(ExperimentSchema, detail.experiment), [])
  t.match(detail.experiment, { dataset_id, name: 'run', metadata: { model: 'run' } })
  t.equal(detail.pending_evaluations, 0)
  t.same(
    detail.items.map((i: { input: string; run: { status: string } | null }) => [i.input, i.run?.status ?? null]),
    [
      ['q1', 'success'],
      ['q2', 'failed'],
      ['q3', null],
    ],
  )
  t.match(detail.items[0], {
    expected_output: 'a1',
    version: 1,
    run: {
      trace_id: 'run-0',
      output: 'answer 0',
      latency: 100,
      token_count: 10,
      cost: 0.001,
      scores: { correctness: 1 },
    },
  })
  t.same(detail.aggregates, {
    items: 3,
    completed: 2,
    failed: 1,
    missing: 1,
    pass_rate: 0.333333,
    latency_mean: 200,
    latency_p95: 300,
    total_tokens: 20,
    total_cost: 0.002,
    unpriced: 0,
    scores: { correctness: { count: 2, mean: 0.5 } },
  })

  // The runs are traces like any: filterable by experiment and item, and exported with both fields.
  const listed = await json(app, 'GET', `/traces?experiment_id=${id}`)
  t.same(
    listed
      .json()
      .items.map((tr: { trace_id: string }) => tr.trace_id)
      .sort(),
    ['run-0', 'run-1'],
  )
  const byItem = await json(app, 'GET', `/traces?dataset_item_id=${items[1]}`)
  t.same(
    byItem.json().items.map((tr: { trace_id: string }) => tr.trace_id),
    ['run-1'],
  )
  t.equal((await json(app, 'GET', '/traces?experiment_id=nope')).json().total, 0)
  const exported = await json(app, 'GET', `/traces/export?experiment_id=${id}`)
  t.match(JSON.parse(exported.body.split('\n')[0] as string), { experiment_id: id })
  const csv = await json(app, 'GET', `/traces/export?format=csv&experiment_id=${id}`)
  t.match(csv.body, new RegExp(`,${id},${items[1]},`))

  // The judge's `{{expected}}`: a run's trace leads to its item's expected output, in the version it ran on.
  const trace = (await json(app, 'GET', '/traces/run-0')).json()
  t.equal(await app.experiments.expectedOutput(trace), 'a1')
  clock.now += 1000
  await json(app, 'PUT', `/datasets/${dataset_id}/items/${items[0]}`, { input: 'q1', expected_output: 'a1 v2' })
  t.equal(await app.experiments.expectedOutput(trace), 'a1', 'the version the experiment ran on, not the edit')
  t.equal(await app.experiments.expectedOutput({ ...trace, experiment_id: null }), undefined)
  t.equal(await app.experiments.expectedOutput({ ...trace, project_id: 'other' }), undefined)

  const list = await json(app, 'GET', `/experiments?dataset_id=${dataset_id}`)
  t.equal(list.json().total, 1)
  t.equal((await json(app, 'GET', '/experiments/nope')).statusCode, 404)
})

t.test('an experiment runs on its dataset as of its as_of, whatever changes later', async (t) => {
  const { app, key, dataset_id, items, clock } = await setup(t)
  const id = await runExperiment(app, key, dataset_id, items, [{ latency: 1, correct: 1 }, null, null])
  clock.now += 1000
  await json(app, 'POST', `/datasets/${dataset_id}/items`, { input: 'q4' })
  await json(app, 'DELETE', `/datasets/${dataset_id}/items/${items[2]}`)
  const detail = (await json(app, 'GET', `/experiments/${id}`)).json()
  t.same(
    detail.items.map((i: { input: string }) => i.input),
    ['q1', 'q2', 'q3'],
    'the item added later is left out, the one archived later is in',
  )
})

t.test('a comparison lines runs up item by item with each one’s difference from the first', async (t) => {
  const { app, key, dataset_id, items } = await setup(t)
  const a = await runExperiment(
    app,
    key,
    dataset_id,
    items,
    [{ latency: 100, correct: 1 }, { latency: 200, correct: 1 }, null],
    'a',
  )
  const b = await runExperiment(
    app,
    key,
    dataset_id,
    items,
    [
      { latency: 80, correct: 1 },
      { latency: 260, correct: 0 },
      { latency: 50, correct: 1 },
    ],
    'b',
  )
  const res = await json(app, 'GET', `/experiments/compare?ids=${a},${b}`)
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(schemaErrors(CompareExperimentsResponse, body), [])
  t.same(
    body.experiments.map((e: { name: string }) => e.name),
    ['a', 'b'],
  )
  t.equal(body.items.length, 3)
  t.same(body.items[0].deltas, [
    { latency: 0, token_count: 0, cost: 0, scores: { correctness: 0 } },
    { latency: -20, token_count: 0, cost: 0, scores: { correctness: 0 } },
  ])
  t.same(body.items[1].deltas[1], { latency: 60, token_count: 0, cost: 0, scores: { correctness: -1 } })
  t.same(body.items[2].runs[0], null, 'an item the baseline did not run')
  t.same(body.items[2].deltas, [null, null])
  t.match(body.aggregate_deltas[1], { pass_rate: 0.333333, total_tokens: 10, scores: { correctness: -0.333333 } })

  for (const ids of [a, `${a},${a}`, `${a},nope`, `${a},${b},${a},${b}`, `${a},`]) {
    const bad = await json(app, 'GET', `/experiments/compare?ids=${ids}`)
    t.ok([400, 404].includes(bad.statusCode), `ids=${ids} is refused`)
  }
  t.equal((await json(app, 'GET', `/experiments/compare?ids=${a},nope`)).statusCode, 404)
})

t.test('a project key reads only its own project’s experiments', async (t) => {
  const adminToken = 'admin-token-of-the-experiments-test'
  const { app, dataset_id, admin } = await setup(t, adminToken)
  const other = await createProject(app, 'Other', 'development', adminToken)
  const created = await json(app, 'POST', '/experiments', { dataset_id, name: 'x' }, admin)
  t.equal(created.statusCode, 201)
  const id = created.json().experiment_id
  const theirs = { authorization: `Bearer ${other.key}` }
  t.equal((await json(app, 'GET', `/experiments/${id}`, undefined, theirs)).statusCode, 404)
  t.equal((await json(app, 'POST', '/experiments', { dataset_id, name: 'y' }, theirs)).statusCode, 404)
  t.equal((await json(app, 'GET', '/experiments', undefined, theirs)).json().total, 0)
  t.equal((await json(app, 'GET', `/experiments/compare?ids=${id},${id}x`, undefined, theirs)).statusCode, 404)
})

t.test('the aggregates and differences are exact on purpose-built runs', async (t) => {
  const run = (latency: number, cost: number | null, scores: Record<string, number>, status = 'success') => ({
    trace_id: 't',
    status: status as 'success',
    output: null,
    error: null,
    latency,
    token_count: 1,
    cost,
    scores,
  })
  t.same(experimentAggregates([]), {
    items: 0,
    completed: 0,
    failed: 0,
    missing: 0,
    pass_rate: 0,
    latency_mean: null,
    latency_p95: null,
    total_tokens: 0,
    total_cost: 0,
    unpriced: 0,
    scores: {},
  })
  const agg = experimentAggregates([
    { run: run(10, 0.1, { a: 1 }) },
    { run: run(30, 0.2, { a: 0, b: 1 }, 'failed') },
    { run: run(20, null, {}) },
    { run: null },
  ])
  t.match(agg, { completed: 3, failed: 1, missing: 1, pass_rate: 0.5, latency_mean: 20, latency_p95: 30 })
  t.equal(agg.total_cost, 0.3, 'costs summed in nano-dollars: no float noise')
  t.equal(agg.unpriced, 1)
  t.same(agg.scores, { a: { count: 2, mean: 0.5 }, b: { count: 1, mean: 1 } })
  t.same(runDelta(run(5, null, { a: 1 }), run(2, 0.1, { a: 0.25, b: 1 })), {
    latency: 3,
    token_count: 0,
    cost: null,
    scores: { a: 0.75 },
  })
  t.equal(runDelta(null, run(1, 1, {})), null)
})
