// loupe.runExperiment against a real server: each item run inside a trace carrying the experiment's and the item's ids,
// local evaluators' scores on each run, a task that throws is a failed item (the run goes on), an evaluator that throws
// loses only its scores, the dataset found by name, and the summary equal to GET /experiments/{id}.
import t from 'tap'
import { Loupe, LoupeError } from '../../src/client/index.js'
import { createProject, startTestServer } from '../helper.js'

t.test('runExperiment runs the task on every item, scores each run and answers the results', async (t) => {
  const { app, url } = await startTestServer(t)
  const { key, project_id } = await createProject(app, 'Experimented')
  const warnings: string[] = []
  const loupe = new Loupe({ baseUrl: url, apiKey: key, onWarning: (m) => warnings.push(m) })
  t.teardown(() => loupe.shutdown({ timeoutMs: 2000 }))

  const dataset = await loupe.datasets.create({ name: 'arithmetic', project_id })
  await loupe.datasets.items.add(dataset.dataset_id, [
    { input: { a: 1, b: 2 }, expected_output: 3 },
    { input: { a: 2, b: 2 }, expected_output: 4 },
    { input: { a: 0, b: 0 }, expected_output: 0 },
    { input: 'boom', expected_output: null },
  ])

  const seen: unknown[] = []
  const summary = await loupe.runExperiment({
    dataset: 'arithmetic',
    name: 'adder v1',
    concurrency: 2,
    metadata: { model: 'fake' },
    task: async (input, { trace }) => {
      seen.push(input)
      if (input === 'boom') throw new Error('the fake model broke')
      trace.setTokens({ prompt_tokens: 5, completion_tokens: 1 })
      const { a, b } = input as { a: number; b: number }
      return a === 2 ? a * b + 1 : a + b // wrong on the second item
    },
    evaluators: {
      correctness: ({ output, expected }) => Number(output) === expected,
      exploding: ({ input }) => {
        if (input === 'boom') throw new Error('evaluator bug')
        return { value: 1, comment: 'fine' }
      },
    },
  })

  t.equal(seen.length, 4, 'every item was run')
  t.equal(summary.task_errors, 1)
  t.equal(summary.evaluator_errors, 1)
  t.match(warnings, [/evaluator 'exploding' failed/])
  t.match(summary.experiment, { name: 'adder v1', dataset_id: dataset.dataset_id, metadata: { model: 'fake' } })
  t.match(summary.aggregates, {
    items: 4,
    completed: 4,
    failed: 1,
    missing: 0,
    pass_rate: 0.75,
    total_tokens: 18,
    scores: { correctness: { count: 4, mean: 0.5 }, exploding: { count: 3, mean: 1 } },
  })
  const failed = summary.items.find((i) => i.input === 'boom')
  t.match(failed?.run, { status: 'failed', error: /the fake model broke/ })
  const second = summary.items.find((i) => (i.input as { a: number }).a === 2)
  t.match(second?.run, { output: '5', scores: { correctness: 0 } })

  const fresh = await loupe.experiments.get(summary.experiment.experiment_id)
  t.same(fresh.aggregates, summary.aggregates, 'the summary is the experiment as the server has it')
  const traces = await loupe.listTraces({ experiment_id: summary.experiment.experiment_id })
  t.equal(traces.total, 4, 'each run is a trace carrying the experiment id')
  t.ok(
    traces.items.every((tr) => tr.dataset_item_id !== null),
    'and its item id',
  )

  await t.rejects(
    loupe.runExperiment({ dataset: 'none-such', name: 'x', task: () => 1 }),
    LoupeError,
    'an unknown dataset is an error before anything runs',
  )
  const readOnly = new Loupe({ baseUrl: url, enabled: false })
  await t.rejects(readOnly.runExperiment({ dataset: 'arithmetic', name: 'x', task: () => 1 }), /API key/)
})
