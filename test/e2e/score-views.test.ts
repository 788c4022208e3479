/// <reference lib="dom" />
// Scores in the lists, in a real browser against a real server: the trace list filtered by a score's range and by a
// label (exactly the traces GET /traces answers), ordered by a score, a live trace without the score kept out of a
// filtered list; and the score means of sessions and users, in their lists and on their own pages.
import t, { type Test } from 'tap'
import type { ListTraceSummariesResponse } from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { postTrace } from '../helper.js'
import {
  acmeServer,
  launchBrowser,
  noConsoleErrors,
  openPage,
  recentTraces,
  shownTraceIds,
  whereViewerRuns,
} from './browser.js'

/** tr-0 the newest; s1 and u1 hold tr-0 and tr-1, s2 and u2 tr-2 and tr-3; tr-4 has neither. */
const TRACES = recentTraces(5, 60_000, (i) => ({
  trace_id: `tr-${i}`,
  name: `question ${i}`,
  ...(i < 2 ? { session_id: 's1', user_id: 'u1' } : i < 4 ? { session_id: 's2', user_id: 'u2' } : {}),
}))

/** helpfulness: tr-0 0.2, tr-1 0.9 and 0.1 (mean 0.5), tr-2 0.6, tr-4 0.4; quality: good, bad, good. */
const SCORES = [
  ['tr-0', 'helpfulness', 0.2],
  ['tr-1', 'helpfulness', 0.9],
  ['tr-1', 'helpfulness', 0.1],
  ['tr-2', 'helpfulness', 0.6],
  ['tr-4', 'helpfulness', 0.4],
  ['tr-0', 'quality', 'good'],
  ['tr-1', 'quality', 'bad'],
  ['tr-2', 'quality', 'good'],
] as const

async function scored(t: Test) {
  const server = await acmeServer(t, TRACES)
  const config = await server.app.inject({
    method: 'POST',
    url: '/score-configs',
    payload: { name: 'quality', data_type: 'categorical', categories: ['bad', 'ok', 'good'] },
  })
  t.equal(config.statusCode, 201)
  const res = await server.app.inject({
    method: 'POST',
    url: '/scores/batch',
    payload: { scores: SCORES.map(([trace_id, name, value]) => ({ trace_id, name, value })) },
  })
  t.equal(res.json().accepted, SCORES.length, 'scores stored')
  return server
}

/** The ids GET /traces answers for a query string, in its order. */
const listed = async (app: LoupeApp, query: string) =>
  ((await app.inject(`/traces?fields=summary&${query}`)).json() as ListTraceSummariesResponse).items.map(
    (i) => i.trace_id,
  )

await whereViewerRuns(t, 'scores in the lists', async () => {
  const browser = await launchBrowser(t)

  t.test('the trace list filtered by a score range, then by a label: exactly the matching traces', async (t) => {
    const { app, url } = await scored(t)
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/traces`)
    await page.waitForSelector('[data-trace-id="tr-4"]')
    t.equal(await page.locator('.thead').getByText('score:').count(), 0, 'no score column before one is chosen')

    // A numeric name: a range.
    await page.locator('select[name="score_name"]').selectOption('helpfulness')
    await page.waitForURL(/score_name=helpfulness/)
    await page.getByLabel('Score ≤').fill('0.3')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/max_score=0.3/)
    await page.waitForFunction(() => document.querySelectorAll('[data-trace-id]').length === 2)
    t.same(await shownTraceIds(page), ['tr-0', 'tr-1'], 'one of its scores ≤ 0.3 (tr-1 has 0.1 beside 0.9)')
    t.same(await shownTraceIds(page), await listed(app, 'score_name=helpfulness&max_score=0.3'), 'as the API lists')
    t.equal(await page.getByTestId('trace-total').textContent(), '2 traces')
    const cells = () =>
      page.$$eval('[data-trace-id] [data-score]', (cells) => cells.map((c) => c.textContent?.trim() ?? ''))
    t.same(await cells(), ['0.2', '0.5'], "each trace's mean of the score in its column")

    await page.getByLabel('Score ≥').fill('0.5')
    await page.getByLabel('Score ≤').fill('0.7')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/min_score=0.5&max_score=0.7/)
    await page.waitForFunction(() => document.querySelectorAll('[data-trace-id]').length === 1)
    t.same(await shownTraceIds(page), ['tr-2'])

    await page.reload()
    await page.waitForSelector('[data-trace-id="tr-2"]')
    t.equal(await page.getByLabel('Score ≥').inputValue(), '0.5', 'the filter is the URL: a reload keeps it')

    // A categorical name: a label, and a new name starts without the old bounds.
    await page.locator('select[name="score_name"]').selectOption('quality')
    await page.waitForURL((u) => u.search.includes('score_name=quality') && !u.search.includes('min_score'))
    t.equal(await page.getByLabel('Score ≥').count(), 0, 'no range for a categorical score')
    t.same(
      await page.getByLabel('Label').locator('option').allTextContents(),
      ['Any', 'bad', 'ok', 'good'],
      "the config's categories",
    )
    await page.getByLabel('Label').selectOption('good')
    await page.waitForURL(/score_label=good/)
    await page.waitForFunction(() => document.querySelectorAll('[data-trace-id]').length === 2)
    t.same(await shownTraceIds(page), ['tr-0', 'tr-2'])
    t.same(await shownTraceIds(page), await listed(app, 'score_name=quality&score_label=good'))
    noConsoleErrors(t, page)
  })

  t.test('the list ordered by a score, both ways; a live trace without it stays out', async (t) => {
    const { app, url, key } = await scored(t)
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/traces?score_name=helpfulness`)
    await page.waitForSelector('[data-trace-id="tr-4"]')
    t.same(await shownTraceIds(page), ['tr-0', 'tr-1', 'tr-2', 'tr-4'], 'the traces with a helpfulness score')
    await page.getByRole('button', { name: 'score: helpfulness' }).click()
    await page.waitForURL(/sort=score%3Ahelpfulness/)
    await page.waitForFunction(
      () => document.querySelector('[data-trace-id]')?.getAttribute('data-trace-id') === 'tr-2',
    )
    t.same(await shownTraceIds(page), ['tr-2', 'tr-1', 'tr-4', 'tr-0'], 'highest mean first')
    t.same(await shownTraceIds(page), await listed(app, 'score_name=helpfulness&sort=score:helpfulness'))
    await page.getByRole('button', { name: 'score: helpfulness' }).click()
    await page.waitForURL(/order=asc/)
    await page.waitForFunction(
      () => document.querySelector('[data-trace-id]')?.getAttribute('data-trace-id') === 'tr-0',
    )
    t.same(await shownTraceIds(page), ['tr-0', 'tr-4', 'tr-1', 'tr-2'], 'lowest first')

    // Newest first again, filtered: a new trace joins the plain list but not the filtered one (it has no score).
    await page.goto(`${url}/ui/traces?score_name=helpfulness`)
    await page.waitForSelector('[data-trace-id="tr-4"]')
    const plain = await openPage(t, browser)
    await plain.goto(`${url}/ui/traces`)
    await plain.waitForSelector('[data-trace-id="tr-3"]')
    const res = await postTrace(app, key, { trace_id: 'tr-live', prompt: 'p' })
    t.equal(res.statusCode, 201)
    await plain.waitForSelector('[data-trace-id="tr-live"]')
    t.same(await shownTraceIds(page), ['tr-0', 'tr-1', 'tr-2', 'tr-4'], 'the filtered list left it out')
    t.equal(await page.getByTestId('trace-total').textContent(), '4 traces')
    noConsoleErrors(t, page)
    noConsoleErrors(t, plain)
  })

  t.test("sessions and users show their score means, in the lists and on each one's page", async (t) => {
    const { url, project_id } = await scored(t)
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/sessions`)
    await page.waitForSelector('[data-session-id="s1"]')
    const cell = (row: string, name: string) => page.locator(`${row} [data-score="${name}"]`).textContent()
    t.equal(await cell('[data-session-id="s1"]', 'helpfulness'), '0.4 (3)', 'mean of 0.2, 0.9 and 0.1')
    t.equal(await cell('[data-session-id="s2"]', 'helpfulness'), '0.6 (1)')
    t.equal(await cell('[data-session-id="s1"]', 'quality'), '1 (2)', 'good (2) and bad (0)')
    t.ok(await page.getByRole('columnheader', { name: 'score: helpfulness' }).isVisible())

    await page.goto(`${url}/ui/sessions/s1?project_id=${project_id}`)
    await page.waitForSelector('[data-fact="score: helpfulness"]')
    t.equal(await page.locator('[data-fact="score: helpfulness"] dd').textContent(), '0.4 (3)')
    t.equal(await page.locator('[data-fact="score: quality"] dd').textContent(), '1 (2)')

    await page.goto(`${url}/ui/users`)
    await page.waitForSelector('[data-user-id="u2"]')
    t.equal(await cell('[data-user-id="u1"]', 'helpfulness'), '0.4 (3)')
    t.equal(await cell('[data-user-id="u2"]', 'quality'), '2 (1)')

    await page.goto(`${url}/ui/users/u2?project_id=${project_id}`)
    await page.waitForSelector('[data-fact="score: helpfulness"]')
    t.equal(await page.locator('[data-fact="score: helpfulness"] dd').textContent(), '0.6 (1)')
    t.equal(await cell('[data-session-id="s2"]', 'helpfulness'), '0.6 (1)', 'their sessions too')
    noConsoleErrors(t, page)
  })
})
