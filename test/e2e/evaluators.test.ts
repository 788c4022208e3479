/// <reference lib="dom" />
// Evaluators in a real browser against a real server: a regex rule made on the page, tried on a trace before it is
// saved, saved, then judging the traces that arrive (its figures, errors and latest scores following on the page), run
// on past traces to the end of a backfill; its scores on the trace page with their reasoning and their rule; and an
// LLM-judge rule started from a shipped template and tried against a fake judge.
import t from 'tap'
import type { EvaluatorRun, ListEvaluatorsResponse, ListScoresResponse } from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { startFakeJudge } from '../evaluators/fake-judge.js'
import { createProject, startTestServer } from '../helper.js'
import { acmeServer, launchBrowser, noConsoleErrors, openPage, recentTraces, seed, whereViewerRuns } from './browser.js'

const PAST = recentTraces(3, 60_000, (i) => ({
  trace_id: `past-${i}`,
  name: `past ${i}`,
  response: i === 1 ? 'I cannot help with that.' : `{"answer": ${i}}`,
}))

const rulesOf = async (app: LoupeApp) =>
  (await app.inject({ method: 'GET', url: '/evaluators' })).json() as ListEvaluatorsResponse

await whereViewerRuns(t, 'evaluators in the viewer', async () => {
  const browser = await launchBrowser(t)

  t.test('a rule made, tried, saved, judging live traffic and past traces', async (t) => {
    const { app, url, key, project_id } = await acmeServer(t, PAST)
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/evaluators`)
    await page.getByText('No evaluators yet.').waitFor()
    await page.getByRole('link', { name: 'New evaluator' }).click()

    await page.getByLabel('Kind', { exact: true }).selectOption('regex')
    await page.getByLabel('Project', { exact: true }).selectOption(project_id)
    await page.getByLabel('Text checked', { exact: true }).selectOption('response')
    await page.getByLabel('Pattern', { exact: true }).fill('"answer"')

    // Tried before it is saved (and before it is named): on a trace of the latest, then on an id pasted.
    await page.locator('[data-trace-id="past-1"]').getByRole('button', { name: 'Try on this' }).click()
    await page.getByTestId('try-score').waitFor()
    t.equal(await page.getByTestId('try-score').textContent(), 'regex = false', 'named after its kind for now')
    await page.getByLabel('Name (the author of its scores)', { exact: true }).fill('answers')
    await page.getByLabel('Score name', { exact: true }).fill('has_answer')
    t.match(await page.getByTestId('try-comment').textContent(), /does not match/)
    await page.getByLabel('Trace id', { exact: true }).fill('past-0')
    await page.getByRole('button', { name: 'Try', exact: true }).click()
    await page.waitForFunction(
      () => document.querySelector('[data-testid="try-score"]')?.textContent === 'has_answer = true',
    )
    t.match(await page.getByTestId('try-comment').textContent(), /matches/)
    t.equal((await rulesOf(app)).total, 0, 'nothing stored by trying')

    // A setting the API would refuse is named before anything is sent.
    await page.getByLabel('Pattern', { exact: true }).fill('(')
    await page.getByRole('button', { name: 'Create' }).click()
    await page.getByText(/config\/pattern is not a usable regex/).waitFor()
    await page.getByLabel('Pattern', { exact: true }).fill('"answer"')
    await page.getByRole('button', { name: 'Create' }).click()
    await page.getByRole('heading', { name: 'answers', level: 1, exact: true }).waitFor()
    const [rule] = (await rulesOf(app)).items
    t.match(rule, {
      name: 'answers',
      score_name: 'has_answer',
      project_id,
      kind: 'regex',
      enabled: true,
      sample_rate: 1,
      config: { field: 'response', pattern: '"answer"', expect: 'match' },
    })
    if (!rule) return

    // Traces arrive: the page follows, with the figures, the error and the latest scores.
    await seed(t, app, key, [
      { trace_id: 'live-1', prompt: 'q', response: '{"answer": "yes"}' },
      { trace_id: 'live-2', prompt: 'q', response: 'nothing' },
      { trace_id: 'live-3', prompt: 'q' },
    ])
    await page.waitForFunction(() => document.querySelector('[data-testid="evaluated"]')?.textContent === '2')
    await page.waitForFunction(() => document.querySelector('[data-testid="errors"]')?.textContent === '1')
    t.ok(await page.getByTestId('last-error').textContent(), 'the last error is shown')
    await page.locator('[data-score-trace="live-2"]').waitFor()
    t.match(await page.locator('[data-score-trace="live-1"]').innerText(), /live-1[\s\S]*true[\s\S]*matches/)
    t.match(await page.locator('[data-score-trace="live-2"]').innerText(), /false[\s\S]*does not match/)

    // Past traces: a backfill run to its end, its progress bar full.
    await page.getByRole('button', { name: 'Run on past traces' }).click()
    await page.locator('[data-status="done"]').waitFor({ timeout: 20_000 })
    const runs = (await app.inject({ method: 'GET', url: `/evaluators/${rule.evaluator_id}/runs` })).json() as {
      items: EvaluatorRun[]
    }
    const [run] = runs.items
    t.match(run, { status: 'done', enumerated: true })
    if (!run) return
    t.equal(run.done, run.total)
    t.equal(
      await page.locator('[data-status="done"] [data-run-progress] .num').textContent(),
      `${run.total} / ${run.total}`,
    )
    t.equal(
      await page.locator('[data-status="done"] .progress-fill').evaluate((el) => (el as HTMLElement).style.width),
      '100%',
    )
    await page.waitForFunction(() => document.querySelector('[data-testid="evaluated"]')?.textContent === '5')
    const scores = (
      await app.inject({ method: 'GET', url: '/scores?source=evaluator&author=answers&limit=100' })
    ).json() as ListScoresResponse
    t.equal(scores.total, 5, 'one score for each trace with a response')
    await page.locator('[data-score-trace="past-2"]').waitFor()

    // The list: the rule with its figures.
    await page.getByRole('navigation').getByRole('link', { name: 'Evaluators' }).click()
    const row = page.locator('[data-evaluator="answers"]')
    await row.waitFor()
    t.equal(await row.locator('[data-evaluated]').textContent(), '5')
    // live-3 has no response: an error when it arrived, and again in the backfill (only scored traces are skipped).
    const { stats } = (await rulesOf(app)).items[0] ?? { stats: { errors: -1 } }
    t.ok(stats.errors >= 1)
    t.match(await row.locator('[data-errors]').innerText(), new RegExp(`^${stats.errors}\n.*no response`))
    t.equal(await row.locator('[data-pending]').textContent(), '0')

    // A score on the trace page: its reasoning, and its author a link to the rule.
    await page.goto(`${url}/ui/traces/live-2`)
    const score = page.locator('[data-score="has_answer"]')
    await score.waitFor()
    t.match(await score.locator('[data-comment]').textContent(), /the response does not match/)
    await score.locator('[data-author]').getByRole('link', { name: 'answers' }).click()
    await page.getByRole('heading', { name: 'answers', level: 1, exact: true }).waitFor()
    noConsoleErrors(t, page)
  })

  t.test('a rule edited keeps what it had, the filters the form has no field for too', async (t) => {
    const { app, url } = await acmeServer(t, PAST)
    const created = await app.inject({
      method: 'POST',
      url: '/evaluators',
      payload: {
        name: 'short',
        score_name: 'short',
        kind: 'length',
        config: { field: 'response', max: 10 },
        filter: { min_score: 0, score_name: 'thumbs' },
        enabled: false,
      },
    })
    const rule = created.json() as { evaluator_id: string }
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/evaluators/${rule.evaluator_id}`)
    await page.getByRole('link', { name: 'Edit' }).click()
    t.equal(await page.getByLabel('At most (characters)', { exact: true }).inputValue(), '10')
    await page.getByLabel('At most (characters)', { exact: true }).fill('12')
    await page.getByLabel('Enabled', { exact: true }).check()
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('heading', { name: 'short', level: 1, exact: true }).waitFor()
    const stored = (await app.inject({ method: 'GET', url: `/evaluators/${rule.evaluator_id}` })).json()
    t.match(stored, {
      enabled: true,
      config: { field: 'response', max: 12 },
      filter: { min_score: 0, score_name: 'thumbs' },
    })

    // The filter asks for a score no trace has: none is taken, so the run is done at once, 0 of 0.
    await page.getByRole('button', { name: 'Run on past traces' }).click()
    await page.locator('[data-status="done"]').waitFor({ timeout: 20_000 })
    t.equal(await page.locator('[data-status="done"] [data-run-progress] .num').textContent(), '0 / 0')

    noConsoleErrors(t, page)
  })

  t.test('an LLM-judge rule from a shipped template, tried against a fake judge; its backfill cancelled', async (t) => {
    const judge = await startFakeJudge(t)
    judge.fallback = { answer: '{"score": 0.8, "reasoning": "Clear and complete.\\nAnswers the question."}' }
    const { app, url } = await startTestServer(t, {
      config: { judgeBaseUrl: judge.url, judgeModel: 'judge-model', judgeTimeoutMs: 2000 },
    })
    const { key } = await createProject(app, 'Acme')
    await seed(t, app, key, [
      ...recentTraces(11, 60_000, (i) => ({ trace_id: `old-${i}`, response: `answer ${i}` })).map((tr) => ({
        ...tr,
        created_at: new Date(Date.parse(tr.created_at) - 3_600_000).toISOString(),
      })),
      { trace_id: 'q-1', name: 'refund question', prompt: 'Refund?', response: 'Yes, in 5 days.' },
    ])
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/evaluators/new`)
    await page.getByLabel('Kind', { exact: true }).selectOption('llm_judge')
    await page.getByRole('button', { name: 'helpfulness' }).click()
    const template = page.getByLabel('What the judge is asked', { exact: true })
    t.match(await template.inputValue(), /\{\{prompt\}\}[\s\S]*\{\{response\}\}/)
    t.equal(await page.getByLabel('Score name', { exact: true }).inputValue(), 'helpfulness')
    await template.fill(`${await template.inputValue()}\nBe strict.`)
    await page.locator('[data-trace-id="q-1"]').getByRole('button', { name: 'Try on this' }).click()
    await page.getByTestId('try-raw').waitFor()
    t.equal(await page.getByTestId('try-score').textContent(), 'helpfulness = 0.8')
    t.equal(await page.getByTestId('try-comment').textContent(), 'Clear and complete.\nAnswers the question.')
    t.match(await page.getByTestId('try-raw').textContent(), /"reasoning"/)
    const asked = JSON.stringify(judge.requests.at(-1)?.body)
    t.match(asked, /Be strict\./, 'the judge was asked the edited template')
    t.match(asked, /Yes, in 5 days\./, 'filled in from the trace')
    t.equal((await rulesOf(app)).total, 0, 'nothing stored by trying')

    // Saved, then run on past traces against a slow judge: cancelled while it runs.
    judge.fallback = { answer: '{"score": 0.5, "reasoning": "slow"}', delayMs: 1500 }
    await page.getByRole('button', { name: 'Create' }).click()
    await page.getByRole('heading', { name: 'helpfulness', level: 1, exact: true }).waitFor()
    await page.getByRole('button', { name: 'Run on past traces' }).click()
    await page.locator('[data-status="running"]').waitFor()
    await page.getByRole('button', { name: 'Cancel', exact: true }).click()
    await page.locator('[data-status="cancelled"]').waitFor()
    const [rule] = (await rulesOf(app)).items
    const runs = (await app.inject({ method: 'GET', url: `/evaluators/${rule?.evaluator_id}/runs` })).json()
    t.match(runs.items, [{ status: 'cancelled' }])
    t.ok(runs.items[0].done < 12, 'cancelled before the end')
    noConsoleErrors(t, page)
  })
})
