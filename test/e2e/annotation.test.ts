/// <reference lib="dom" />
// Human annotation in a real browser against a real server: a trace scored with the keyboard (and the score changed),
// a queue walked to its end trace by trace, and the dashboard's score card changing live as a score is posted
// through the API.
import t from 'tap'
import type { ListScoresResponse } from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { acmeServer, launchBrowser, noConsoleErrors, openPage, recentTraces, whereViewerRuns } from './browser.js'

const TRACES = recentTraces(3, 60_000, (i) => ({ trace_id: `tr-${i}`, name: `question ${i}`, response: `answer ${i}` }))

async function configs(app: LoupeApp) {
  for (const payload of [
    { name: 'quality', data_type: 'categorical', categories: ['bad', 'ok', 'good'] },
    { name: 'thumbs', data_type: 'boolean' },
  ]) {
    const res = await app.inject({ method: 'POST', url: '/score-configs', payload })
    if (res.statusCode !== 201) throw new Error(res.body)
  }
}

const scoresOf = async (app: LoupeApp, traceId: string) =>
  (await app.inject({ method: 'GET', url: `/scores?trace_id=${traceId}` })).json() as ListScoresResponse

await whereViewerRuns(t, 'annotation in the viewer', async () => {
  const browser = await launchBrowser(t)

  t.test('a trace scored with the keyboard, then the score changed, without a reload', async (t) => {
    const { app, url } = await acmeServer(t, TRACES)
    await configs(app)
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/traces/tr-1`)
    // The annotator names themselves once.
    await page.getByLabel('Your name, as the author of your scores').fill('ana')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByTestId('annotator').waitFor()

    // quality (the first config) is active: 3 is its third category; a comment; Enter saves.
    await page.locator('[data-config="quality"][aria-current="true"]').waitFor()
    await page.keyboard.press('3')
    t.equal(await page.getByTestId('picked-value').textContent(), 'good')
    await page.getByLabel('Comment').fill('clear and right')
    await page.locator('body').click({ position: { x: 5, y: 5 } })
    await page.keyboard.press('Enter')
    await page.locator('[data-score="quality"]').waitFor()
    t.match(await page.locator('[data-score="quality"]').innerText(), /good[\s\S]*annotation[\s\S]*ana[\s\S]*clear/)
    let stored = await scoresOf(app, 'tr-1')
    t.match(stored.items, [
      { name: 'quality', label: 'good', source: 'annotation', author: 'ana', comment: 'clear and right' },
    ])

    // Changed: one score of ana's for quality, now 'bad'.
    await page.keyboard.press('1')
    await page.keyboard.press('Enter')
    await page.waitForFunction(
      () => document.querySelector('[data-score="quality"] [data-value]')?.textContent === 'bad',
    )
    stored = await scoresOf(app, 'tr-1')
    t.equal(stored.total, 1, 'the change replaced the score')
    t.match(stored.items[0], { label: 'bad', author: 'ana' })

    // ↓ moves to thumbs; 0 is false.
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('0')
    await page.keyboard.press('Enter')
    await page.locator('[data-score="thumbs"]').waitFor()
    t.match((await scoresOf(app, 'tr-1')).items, [{ name: 'thumbs', label: 'false', value: 0 }, { name: 'quality' }])

    // A step is scored when it is selected.
    await page.goto(`${url}/ui/traces/tr-1?step=0`).catch(() => {})
    await page.getByTestId('annotator').waitFor()
    t.equal(await page.getByTestId('annotator').textContent(), 'ana', 'the name is remembered')
    noConsoleErrors(t, page)
  })

  t.test('a queue walked to its end with the keyboard', async (t) => {
    const { app, url, project_id } = await acmeServer(t, TRACES)
    await configs(app)
    const created = await app.inject({
      method: 'POST',
      url: '/annotation-queues',
      payload: { name: 'Review', project_id, score_names: ['thumbs'] },
    })
    const queue = created.json()
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/queues`)
    await page.getByRole('link', { name: 'Review' }).click()
    await page.getByLabel('Your name, as the author of your scores').fill('bob')
    await page.getByRole('button', { name: 'Save' }).click()
    // Oldest first: tr-2, tr-1, tr-0 (recentTraces goes back from now).
    const expected = ['tr-2', 'tr-1', 'tr-0']
    for (const [i, traceId] of expected.entries()) {
      await page.getByRole('heading', { name: `question ${traceId.slice(3)}`, level: 1 }).waitFor()
      t.equal(await page.getByTestId('queue-progress').textContent(), `${i} / 3 done`)
      // The trace can be shown before the score configs have arrived: keys are read once the form offers thumbs.
      await page.locator('[data-config="thumbs"][aria-current="true"]').waitFor()
      await page.keyboard.press('1')
      await page.keyboard.press('Enter')
      await page.locator('[data-score="thumbs"]').waitFor()
      await page.keyboard.press('n')
    }
    await page.getByTestId('queue-end').waitFor()
    t.equal(await page.getByTestId('queue-progress').textContent(), '3 / 3 done')
    // p goes back to the last trace seen.
    await page.keyboard.press('p')
    await page.getByRole('heading', { name: 'question 0', level: 1 }).waitFor()
    const after = (await app.inject({ method: 'GET', url: `/annotation-queues/${queue.queue_id}` })).json()
    t.same(after.progress, { done: 3, total: 3 })
    const scores = (await app.inject({ method: 'GET', url: '/scores?author=bob&name=thumbs' })).json()
    t.equal(scores.total, 3, 'one score per trace, by the annotator')
    noConsoleErrors(t, page)
  })

  t.test('the dashboard’s score card changes live as a score is posted', async (t) => {
    const { app, url } = await acmeServer(t, TRACES)
    await configs(app)
    const post = (body: object) =>
      app.inject({ method: 'POST', url: '/scores', payload: { source: 'api', ...body } }).then((r) => {
        if (r.statusCode !== 201) throw new Error(r.body)
      })
    await post({ trace_id: 'tr-0', name: 'thumbs', value: true })
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/`)
    const card = page.locator('[data-score-card="thumbs"]')
    await card.waitFor()
    t.equal(await card.locator('[data-score-mean]').textContent(), '1')
    t.match(await card.locator('[data-score-count]').textContent(), /^1 score/)
    // Wait for the live stream, then score through the API: the card follows without a reload.
    await page.getByText('Live', { exact: true }).waitFor()
    await post({ trace_id: 'tr-1', name: 'thumbs', value: false })
    await page.waitForFunction(
      () => document.querySelector('[data-score-card="thumbs"] [data-score-mean]')?.textContent === '0.5',
    )
    t.match(await card.locator('[data-score-count]').textContent(), /^2 scores/)
    await post({ trace_id: 'tr-2', name: 'quality', value: 'good' })
    await page.locator('[data-score-card="quality"]').waitFor()
    t.equal(await page.locator('[data-score-card="quality"] [data-score-mean]').textContent(), 'good')
    noConsoleErrors(t, page)
  })
})
