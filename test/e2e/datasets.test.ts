/// <reference lib="dom" />
// Datasets and experiments in a real browser against a real server: a dataset built from the trace list's selection,
// two experiments run with the SDK against a fake model, their comparison grid read (improved and regressed cells) and
// followed to the two traces side by side; a dataset's page in protected mode (an item edited and its versions, archived
// and brought back, the dataset read as it was, exported and imported, a trace against its item's expected output);
// a comparison of a 400-item dataset's runs, whose grid holds the rows in view and brings the rest as it scrolls; and
// two 1000-step traces compared, every step aligned.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { experimentFixture } from '../../scripts/bench-experiments.js'
import { Loupe } from '../../src/client/index.js'
import { createProject, startTestServer } from '../helper.js'
import { acmeServer, launchBrowser, noConsoleErrors, openPage, recentTraces, seed, whereViewerRuns } from './browser.js'

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

  t.test(
    "protected mode: an item's versions, the dataset as it was, archive, export and import, vs expected",
    async (t) => {
      const token = 'e2e-admin-token-long-enough-1234'
      const { app, url } = await startTestServer(t, { config: { adminToken: token } })
      const { key, project_id } = await createProject(app, 'Acme', 'production', token)
      await seed(
        t,
        app,
        key,
        recentTraces(2, 60_000, (i) => ({
          trace_id: `c-${i}`,
          prompt: QUESTIONS[i],
          response: i === 0 ? 'Paris' : 'Rome',
        })),
      )
      const auth = { authorization: `Bearer ${key}` }
      const created = await app.inject({
        method: 'POST',
        url: '/datasets',
        headers: auth,
        payload: { name: 'capitals', project_id },
      })
      const datasetId = created.json().dataset_id as string
      const page = await openPage(t, browser)

      // One trace added from its own page (the viewer signed in with the project's secret key).
      await page.goto(`${url}/ui/traces/c-0`)
      await page.getByLabel('Token or API key').fill(key)
      await page.getByRole('button', { name: 'Continue' }).click()
      await page.getByLabel('Dataset').selectOption({ label: 'capitals' })
      await page.getByRole('button', { name: 'Add', exact: true }).click()
      t.equal(await page.getByTestId('added-to-dataset').textContent(), '1 added')
      await app.inject({
        method: 'POST',
        url: `/datasets/${datasetId}/items`,
        headers: auth,
        payload: { input: 'Italy', expected_output: 'Rome' },
      })
      const before = (await app.inject({ url: `/datasets/${datasetId}/items`, headers: auth })).json().items
      const [france, italy] = before as { dataset_item_id: string; updated_at: string }[]
      const asOf = new Date(Date.parse(italy?.updated_at ?? '') + 1).toISOString()
      await new Promise((resolve) => setTimeout(resolve, 20)) // the edits below are made after `asOf`

      await page.goto(`${url}/ui/datasets/${datasetId}`)
      const rows = page.getByTestId('dataset-items').locator('tbody tr[data-item]')
      const row = (id: string | undefined) => page.locator(`tr[data-item="${id}"]`)
      await rows.nth(1).waitFor()

      // An edit is a new version; the item's history shows both, the field that changed marked.
      await row(france?.dataset_item_id).getByRole('button', { name: 'Edit' }).click()
      await page.getByLabel('Item expected output').fill('Paris, on the Seine')
      await page.getByRole('button', { name: 'Save as a new version' }).click()
      await page.waitForFunction(
        (id) => document.querySelector(`tr[data-item="${id}"] td:nth-child(3)`)?.textContent === '2',
        france?.dataset_item_id,
      )
      await row(france?.dataset_item_id).getByRole('button', { name: 'History' }).click()
      const versions = page.getByTestId('item-versions').locator('tbody tr')
      await versions.nth(1).waitFor()
      t.equal(await versions.count(), 2, 'two versions of the edited item')
      t.equal(await versions.nth(0).locator('td').nth(4).innerText(), 'Paris')
      t.equal(await versions.nth(1).locator('td.changed').innerText(), 'Paris, on the Seine', 'what the edit changed')

      // Archived: out of the dataset, shown with "Show archived", and back with Unarchive (a third version).
      await row(italy?.dataset_item_id).getByRole('button', { name: 'Archive' }).click()
      await row(italy?.dataset_item_id).waitFor({ state: 'detached' })
      t.equal(await rows.count(), 1, 'the archived item is left out')
      await page.getByLabel('Show archived').check()
      await page.locator(`tr[data-item="${italy?.dataset_item_id}"][data-status="archived"]`).waitFor()
      await row(italy?.dataset_item_id).getByRole('button', { name: 'Unarchive' }).click()
      await page.locator(`tr[data-item="${italy?.dataset_item_id}"][data-status="active"]`).waitFor()
      t.equal(await row(italy?.dataset_item_id).locator('td').nth(2).innerText(), '3', 'archived, then active again')

      // The dataset as it was before the edits: each item in its first version, nothing editable.
      await page.getByRole('textbox', { name: 'As of' }).fill(asOf)
      await page.getByRole('button', { name: 'Read as of' }).click()
      await page
        .getByTestId('items-shown')
        .filter({ hasText: `as it was at ${asOf}` })
        .waitFor()
      await page.waitForFunction(
        (id) => document.querySelector(`tr[data-item="${id}"] td:nth-child(3)`)?.textContent === '1',
        france?.dataset_item_id,
      )
      t.equal(await row(france?.dataset_item_id).locator('td').nth(1).innerText(), 'Paris')
      t.equal(await page.getByRole('button', { name: 'Edit' }).count(), 0, 'a past version is read only')

      // Exported as it was (JSONL), with the session's credential.
      const readDownload = async (button: string) => {
        const [file] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('button', { name: button }).click(),
        ])
        const path = await file.path()
        return { name: file.suggestedFilename(), text: path ? readFileSync(path, 'utf8') : '' }
      }
      const jsonl = await readDownload('Export JSONL')
      t.equal(jsonl.name, 'capitals.jsonl')
      t.same(
        jsonl.text
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line).expected_output),
        ['Paris', 'Rome'],
        'the items as they were',
      )
      // Back to now; the CSV holds the edit.
      await page.getByRole('button', { name: 'Now' }).click()
      await page.getByTestId('items-shown').filter({ hasText: 'now' }).waitFor()
      const csv = await readDownload('Export CSV')
      t.match(csv.text, /^input,expected_output,metadata,source_trace_id\r?\n/)
      t.match(csv.text, /Paris, on the Seine/)

      // Imported from a file: two more items.
      await page.getByLabel('Import items').setInputFiles({
        name: 'more.jsonl',
        mimeType: 'application/x-ndjson',
        buffer: Buffer.from(
          '{"input":"Spain","expected_output":"Madrid"}\n{"input":"Peru","expected_output":"Lima"}\n',
        ),
      })
      t.equal(await page.getByTestId('imported').textContent(), '2 imported')
      await rows.nth(3).waitFor()
      t.equal(await rows.count(), 4)
      await page.getByLabel('Import items').setInputFiles({
        name: 'bad.jsonl',
        mimeType: 'application/x-ndjson',
        buffer: Buffer.from('{"expected_output":"x"}\n'),
      })
      await page
        .getByRole('alert')
        .filter({ hasText: /line 1/ })
        .waitFor()
      t.equal(await rows.count(), 4, 'a bad file adds nothing')

      // The source trace against the item's expected output.
      await row(france?.dataset_item_id).getByRole('link', { name: 'vs expected' }).click()
      await page.getByTestId('diff-response').waitFor()
      t.match(await page.getByTestId('diff-response').locator('del').innerText(), /on the Seine/, 'expected, not said')
      t.match(await page.getByTestId('diff-input').innerText(), /^France$/, 'the input, as the prompt')
      // The 401s that made the viewer ask for a credential, and the refused import, are expected answers.
      noConsoleErrors(t, page, /status of (401|400)/)
    },
  )

  t.test('a 400-item comparison: the rows in view are in the page, and scrolling brings the last', async (t) => {
    const { url, key, project_id } = await acmeServer(
      t,
      recentTraces(1, 60_000, () => ({ trace_id: 'one' })),
    )
    const [a, b] = await experimentFixture(url, key, project_id, 400)
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/experiments?ids=${a},${b}`)
    const grid = page.getByTestId('experiment-grid')
    await grid.locator('tbody tr[data-index="0"]').waitFor()
    t.equal(await grid.getAttribute('data-items'), '400')
    const shown = await grid.locator('tbody tr[data-index]').count()
    t.ok(shown >= 5 && shown < 100, `only the rows near the view (${shown} of 400)`)
    t.match(await grid.locator('tbody tr[data-index="0"]').innerText(), /question 0[^0-9]/)
    await page.locator('main').evaluate((main) => main.scrollTo(0, main.scrollHeight))
    const last = grid.locator('tbody tr[data-index="399"]')
    await last.waitFor()
    t.match(await last.innerText(), /question 399/)
    t.ok((await last.locator('[data-trend]').count()) === 2, 'both runs of the last item')
    noConsoleErrors(t, page)
  })

  t.test('two traces ticked in the list open side by side, 1000 steps each, aligned', async (t) => {
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
    // How fast is the bench's to say (npm run bench: viewer rows); here, that every step is there and marked.
    await page.getByRole('button', { name: 'Compare' }).click()
    await page.getByTestId('aligned-steps').locator('tbody tr').nth(999).waitFor()
    const rows = page.getByTestId('aligned-steps').locator('tbody tr')
    t.ok((await rows.count()) >= 1000, 'every step of both, aligned')
    t.ok((await page.locator('tr[data-kind="added"]').count()) > 0, 'the inserted steps are marked added')
    t.ok((await page.locator('tr[data-kind="missing"]').count()) > 0, 'the removed ones missing')
    t.match(await page.getByTestId('diff-prompt').innerText(), /plan the trip, take/)
    noConsoleErrors(t, page)
  })
})
