/// <reference lib="dom" />
// Datasets and experiments in a real browser against a real server: a dataset built from the trace list's selection,
// two experiments run with the SDK against a fake model, their comparison grid read (improved and regressed cells) and
// followed to the two traces side by side; and two 1000-step traces compared within a second.
import t from 'tap'
import { Loupe } from '../../src/client/index.js'
import { acmeServer, launchBrowser, noConsoleErrors, openPage, recentTraces, whereViewerRuns } from './browser.js'

const QUESTIONS = ['France', 'Italy', 'Spain']
const CAPITALS: Record<string, string> = { France: 'Paris', Italy: 'Rome', Spain: 'Madrid' }

await whereViewerRuns(t, 'datasets and experiments in the viewer', async () => {
  const browser = await launchBrowser(t)

  t.test('a dataset from the list, two runs with the SDK, the grid, then two traces side by side', async (t) => {
    const traces = recentTraces(3, 60_000, (i) => ({
      trace_id: `q-${i}`,
      name: `capital of ${QUESTIONS[i]}`,
      prompt: QUESTIONS[i],
      response: CAPITALS[QUESTIONS[i] as string],
      steps: [
        { name: 'retrieve', type: 'retrieval', output: { docs: i } },
        { name: 'answer', type: 'llm', output: CAPITALS[QUESTIONS[i] as string] },
      ],
    }))
    const { app, url, key, project_id } = await acmeServer(t, traces)
    const page = await openPage(t, browser)

    // The dataset, made on the Datasets page.
    await page.goto(`${url}/ui/datasets`)
    await page.getByLabel('Dataset name').fill('capitals')
    await page.getByLabel('Project').fill(project_id)
    await page.getByRole('button', { name: 'Create' }).click()
    await page.locator('[data-dataset="capitals"]').waitFor()

    // Filled from the trace list's selection.
    await page.goto(`${url}/ui/traces`)
    for (const id of ['q-0', 'q-1', 'q-2']) await page.getByLabel(`Select ${id}`).click()
    await page.getByLabel('Dataset').selectOption({ label: 'capitals' })
    await page.getByRole('button', { name: 'Add', exact: true }).click()
    t.equal(await page.getByTestId('added-to-dataset').textContent(), '3 added')

    // Two runs of a fake model through the SDK: v2 gets Spain wrong.
    const loupe = new Loupe({ baseUrl: url, apiKey: key })
    t.teardown(() => loupe.shutdown({ timeoutMs: 2000 }))
    const run = (name: string, wrong: string | null) =>
      loupe.runExperiment({
        dataset: 'capitals',
        name,
        task: async (input) => (input === wrong ? 'Barcelona' : CAPITALS[input as string]),
        evaluators: { correctness: ({ output, expected }) => output === expected },
      })
    const v1 = await run('v1', null)
    const v2 = await run('v2', 'Spain')
    t.equal(v2.aggregates.scores.correctness?.mean, 0.666667)

    // The grid from the dataset's page: pick both runs, compare.
    const datasets = (await app.inject('/datasets')).json()
    await page.goto(`${url}/ui/datasets/${datasets.items[0].dataset_id}`)
    // The page reads the dataset after it is shown: its rows are waited for, then counted.
    await page.getByTestId('dataset-items').locator('tbody tr').nth(2).waitFor()
    t.equal(await page.getByTestId('dataset-items').locator('tbody tr').count(), 3)
    await page.getByLabel('Pick v1').check()
    await page.getByLabel('Pick v2').check()
    await page.getByRole('button', { name: 'Compare' }).click()
    const grid = page.getByTestId('experiment-grid')
    await grid.locator('tbody tr').nth(2).waitFor()
    t.equal(await grid.locator('tbody tr').count(), 3)
    t.equal(await grid.locator('[data-trend="regressed"]').count(), 1, 'Spain regressed')
    t.match(await grid.locator('[data-trend="regressed"]').innerText(), /Barcelona/)

    // The cell's link to the two traces side by side.
    await grid.locator('[data-trend="regressed"]').getByRole('link', { name: 'compare' }).click()
    await page.getByTestId('diff-response').waitFor()
    t.equal(await page.getByTestId('diff-response').locator('del').innerText(), 'Madrid')
    t.equal(await page.getByTestId('diff-response').locator('ins').innerText(), 'Barcelona')
    t.ok(v1.experiment.experiment_id !== v2.experiment.experiment_id)
    noConsoleErrors(t, page)
  })

  t.test('two traces ticked in the list open side by side; 1000-step traces within a second', async (t) => {
    const steps = (seed: number) =>
      Array.from({ length: 1000 }, (_, i) => ({
        name: `step-${(i * seed) % 40}`,
        type: 'tool',
        tool: `tool-${(i * seed) % 40}`,
        latency: 1 + (i % 7),
        output: `out ${i}`,
      }))
    const { url } = await acmeServer(
      t,
      recentTraces(2, 60_000, (i) => ({
        trace_id: `big-${i}`,
        prompt: `plan the trip, take ${i}`,
        response: i === 0 ? 'first answer' : 'second answer',
        steps: i === 0 ? steps(7) : [...steps(7).slice(0, 500), ...steps(11).slice(0, 50), ...steps(7).slice(550)],
      })),
    )
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/traces`)
    await page.getByLabel('Select big-0').click()
    await page.getByLabel('Select big-1').click()
    const started = Date.now()
    await page.getByRole('button', { name: 'Compare' }).click()
    await page.getByTestId('aligned-steps').locator('tbody tr').nth(999).waitFor()
    const ms = Date.now() - started
    t.ok(ms <= 1000, `compared and rendered in ${ms} ms`)
    const rows = page.getByTestId('aligned-steps').locator('tbody tr')
    t.ok((await rows.count()) >= 1000, 'every step of both, aligned')
    t.ok((await page.locator('tr[data-kind="added"]').count()) > 0, 'the inserted steps are marked added')
    t.ok((await page.locator('tr[data-kind="missing"]').count()) > 0, 'the removed ones missing')
    t.match(await page.getByTestId('diff-prompt').innerText(), /plan the trip, take/)
    noConsoleErrors(t, page)
  })
})
