/// <reference lib="dom" />
// The viewer in a real browser against a real server on a fresh database: the live list (traces arriving and
// deleted), filters, a trace's steps and failure reason, the dashboard's figures, a project's key shown once, and protected mode.
import t from 'tap'
import type { AnalyticsResponse } from '../../schemas/index.js'
import { formatCost, formatCount, formatMs, formatPercent } from '../../web/src/ui/format.js'
import { createProject, postTrace, startTestServer } from '../helper.js'
import {
  acmeServer,
  launchBrowser,
  noConsoleErrors,
  openPage,
  recentTraces,
  seed,
  shownTraceIds,
  whereViewerRuns,
} from './browser.js'

await whereViewerRuns(t, "the viewer's end-to-end tests", run)

async function run() {
  const browser = await launchBrowser(t)

  t.test(
    'a trace posted through the API appears in the open list without a reload; pause holds new ones',
    async (t) => {
      const { app, url, key } = await acmeServer(t, [{ trace_id: 'old', prompt: 'p', name: 'first' }])
      const page = await openPage(t, browser)
      await page.goto(`${url}/ui/traces`)
      await page.waitForSelector('[data-trace-id="old"]')
      await page.waitForSelector('.live-dot.open')

      const res = await postTrace(app, key, { trace_id: 'live-1', prompt: 'p', name: 'arrived live', model: 'gpt-4o' })
      t.equal(res.statusCode, 201)
      await page.waitForSelector('[data-trace-id="live-1"]')
      t.same(await shownTraceIds(page), ['live-1', 'old'], 'at the top')
      t.match(await page.textContent('[data-testid="trace-total"]'), /^2 traces/)

      await page.getByRole('button', { name: 'Pause live' }).click()
      await postTrace(app, key, { trace_id: 'held-1', prompt: 'p' })
      await postTrace(app, key, { trace_id: 'held-2', prompt: 'p' })
      await page.getByRole('button', { name: 'Resume · 2 new' }).waitFor()
      t.same(await shownTraceIds(page), ['live-1', 'old'], 'held back while paused')
      await page.getByRole('button', { name: /^Resume/ }).click()
      await page.waitForSelector('[data-trace-id="held-2"]')
      t.same(await shownTraceIds(page), ['held-2', 'held-1', 'live-1', 'old'])

      // A deletion leaves the open list at once, and marks the trace's open page.
      const detail = await openPage(t, browser)
      await detail.goto(`${url}/ui/traces/live-1`)
      await detail.waitForSelector('.live-dot.open')
      t.equal((await app.inject({ method: 'DELETE', url: '/traces/live-1' })).statusCode, 204)
      await page.waitForSelector('[data-trace-id="live-1"]', { state: 'detached' })
      t.same(await shownTraceIds(page), ['held-2', 'held-1', 'old'], 'gone without a reload')
      t.match(await page.textContent('[data-testid="trace-total"]'), /^3 traces/)
      await detail.waitForSelector('[data-testid="trace-deleted"]')
      noConsoleErrors(t, page)
      noConsoleErrors(t, detail)
    },
  )

  t.test('filters narrow the list, live traces included, and live in the URL with the API names', async (t) => {
    const { app, url, key } = await acmeServer(t, [
      { trace_id: 'f1', prompt: 'p', model: 'claude', failure_reason: 'boom', created_at: '2026-11-21T10:00:00Z' },
      { trace_id: 'f2', prompt: 'p', model: 'gpt-4o', failure_reason: 'boom', created_at: '2026-11-21T10:01:00Z' },
      { trace_id: 's1', prompt: 'p', model: 'gpt-4o', latency: 50, created_at: '2026-11-21T10:02:00Z' },
      { trace_id: 's2', prompt: 'p', model: 'claude', latency: 9000, created_at: '2026-11-21T10:03:00Z' },
    ])
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/traces?status=failed`)
    await page.waitForSelector('[data-trace-id="f2"]')
    t.same(await shownTraceIds(page), ['f2', 'f1'])
    t.match(await page.textContent('[data-testid="trace-total"]'), /^2 traces/)

    await page.getByLabel('Status').selectOption('')
    await page.waitForSelector('[data-trace-id="s2"]')
    t.same(await shownTraceIds(page), ['s2', 's1', 'f2', 'f1'])
    await page.getByLabel('Model').fill('claude')
    await page.getByLabel('Latency ≥ (ms)').fill('1000')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/min_latency=1000/)
    await page.waitForFunction(() => document.querySelectorAll('[data-trace-id]').length === 1)
    t.same(await shownTraceIds(page), ['s2'])
    t.match(new URL(page.url()).search, /model=claude/)

    await postTrace(app, key, { trace_id: 'live-gpt', prompt: 'p', model: 'gpt-4o', latency: 5000 })
    await postTrace(app, key, { trace_id: 'live-claude', prompt: 'p', model: 'claude', latency: 5000 })
    await page.waitForSelector('[data-trace-id="live-claude"]')
    t.same(await shownTraceIds(page), ['live-claude', 's2'], 'a live trace outside the filter stays out')

    await page.reload()
    await page.waitForSelector('[data-trace-id="s2"]')
    t.same((await shownTraceIds(page)).sort(), ['live-claude', 's2'], 'the filtered list survives a reload')
    t.equal(await page.getByLabel('Model').inputValue(), 'claude')
    noConsoleErrors(t, page)
  })

  t.test('the detail page shows every step, the failure reason, the selected step; j/k and Copy JSON', async (t) => {
    const steps = [
      { name: 'plan', type: 'llm', latency: 100, input: { goal: 'answer' } },
      { name: 'lookup', tool: 'orders', status: 'error', error: 'timeout after 5 s', parent_index: 0 },
      { name: 'lookup again', tool: 'orders', parent_index: 0, output: { order: 42 } },
      { name: 'compose', type: 'llm', latency: 300 },
      { name: 'send', tool: 'email', status: 'failed', error: 'mailbox full' },
    ]
    const { app, url } = await acmeServer(t, [
      { trace_id: 'tr-1', name: 'support', prompt: 'Where is my order?', session_id: 'sess-9', steps },
    ])
    const stored = (await app.inject('/traces/tr-1')).json()
    const page = await openPage(t, browser, { clipboard: true })
    await page.goto(`${url}/ui/traces/tr-1`)
    await page.waitForSelector('[data-step-index]')
    const names = await page.$$eval('[data-step-index]', (rows) => rows.map((r) => r.getAttribute('data-step-index')))
    t.same(names, ['0', '1', '2', '3', '4'], 'every step, in tree order')
    for (const step of steps) t.ok(await page.getByText(step.name, { exact: true }).isVisible(), step.name)
    t.match(await page.getByRole('note', { name: 'Failure reason' }).textContent(), stored.failure_reason)
    t.equal(await page.locator('[data-step-index="2"] .marker.retry').count(), 1, 'the retried tool is marked')
    t.equal(await page.locator('[data-step-index="1"] .marker.failed').count(), 1, 'the failed step is marked')
    t.equal(
      await page.getByRole('link', { name: 'sess-9' }).getAttribute('href'),
      `/ui/sessions/sess-9?project_id=${stored.project_id}`,
    )

    await page.locator('[data-step-index="1"]').click()
    await page.getByRole('complementary', { name: 'Step' }).getByText('timeout after 5 s').waitFor()
    await page.keyboard.press('j')
    await page.waitForURL(/step=2/)
    await page.getByRole('complementary', { name: 'Step' }).getByText('"order": 42').waitFor()
    await page.keyboard.press('k')
    await page.keyboard.press('k')
    await page.waitForURL(/step=0/)
    await page.reload()
    await page.getByRole('complementary', { name: 'Step' }).getByText('"goal": "answer"').waitFor()

    await page.getByRole('button', { name: 'Copy JSON' }).click()
    await page.getByRole('button', { name: 'Copied' }).waitFor()
    const copied = await page.evaluate(() => navigator.clipboard.readText())
    t.same(JSON.parse(copied), stored, 'the whole trace, as the API has it')
    noConsoleErrors(t, page)
  })

  t.test('a trace of 1000 steps opens, and its last step is reachable', async (t) => {
    const steps = Array.from({ length: 1000 }, (_, i) => ({
      name: `step ${i}`,
      tool: `tool-${i % 7}`,
      latency: 5,
      started_at: new Date(Date.parse('2026-11-21T10:00:00Z') + i * 5).toISOString(),
      parent_index: i === 0 ? null : i % 10 === 0 ? 0 : i - (i % 10),
    }))
    const { url } = await acmeServer(t, [{ trace_id: 'big', prompt: 'p', created_at: '2026-11-21T10:00:00Z', steps }])
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/traces/big`)
    await page.getByText('1000 steps').waitFor()
    await page.locator('.wbody').evaluate((el: HTMLElement) => el.scrollTo(0, el.scrollHeight))
    await page.waitForSelector('[data-step-index="999"]')
    t.ok((await page.locator('[data-step-index]').count()) < 200, 'only the visible rows are in the page')
    noConsoleErrors(t, page)
  })

  t.test('the dashboard shows the figures of /analytics, and follows new traces', async (t) => {
    const { app, url, key } = await acmeServer(
      t,
      recentTraces(30, 1_800_000, (i) => ({
        model: i % 3 ? 'gpt-4o' : 'claude',
        latency: 100 * i + 0.5,
        token_count: i * 7,
        failure_reason: i % 5 === 0 ? 'boom' : null,
        steps: i % 4 === 0 ? [{ tool: 'a' }, { tool: 'a' }] : [],
      })),
    )
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/`)
    const figures = async () =>
      Object.fromEntries(
        await page.$$eval('[data-figure]', (cards) =>
          cards.map((c) => [c.getAttribute('data-figure'), c.querySelector('.value')?.textContent ?? '']),
        ),
      )
    const expected = (a: AnalyticsResponse) => ({
      Traces: formatCount(a.summary.total_traces),
      'Success rate': formatPercent(a.summary.success_rate),
      'Average latency': formatMs(a.summary.average_latency),
      'p95 latency': formatMs(a.summary.p95_latency),
      Tokens: formatCount(a.summary.total_token_usage),
      Cost:
        a.summary.total_traces > 0 && a.summary.unpriced_traces === a.summary.total_traces
          ? 'unpriced'
          : formatCost(a.summary.total_cost),
      'Unpriced traces': formatCount(a.summary.unpriced_traces),
      Failed: formatCount(a.summary.failed_traces),
      Warnings: formatCount(a.summary.warning_traces),
      Retried: formatCount(a.summary.retries),
      Slow: formatCount(a.summary.slow_requests),
    })
    await page.waitForSelector('[data-figure]')
    const before = (await app.inject('/analytics')).json() as AnalyticsResponse
    t.same(await figures(), expected(before), 'every summary figure equals /analytics')
    t.equal(await page.locator('.chart canvas').count(), 4, 'four charts drawn')
    const breakdown = await page.getByRole('region', { name: 'Models' }).textContent()
    for (const entry of before.model_breakdown) t.match(breakdown, `${entry.key}${formatCount(entry.count)}`)

    await postTrace(app, key, { prompt: 'p', latency: 99_999, failure_reason: 'late failure' })
    const after = (await app.inject('/analytics')).json() as AnalyticsResponse
    await page.waitForFunction(
      (n) => document.querySelector('[data-figure="Traces"] .value')?.textContent === n,
      formatCount(after.summary.total_traces),
    )
    t.same(await figures(), expected(after), 'updated by itself')
    await page.getByRole('region', { name: 'Recent failures' }).getByText('late failure').waitFor()
    noConsoleErrors(t, page)
  })

  t.test('creating a project shows its key once; add and revoke keys', async (t) => {
    const { app, url } = await startTestServer(t)
    const page = await openPage(t, browser, { clipboard: true })
    await page.goto(`${url}/ui/projects`)
    await page.getByLabel('Name').fill('Support Bot')
    await page.getByRole('button', { name: 'Create' }).click()
    const secret = (await page.getByTestId('new-key').textContent()) ?? ''
    t.match(secret, /^loupe_sk_[A-Za-z0-9]{32}$/)
    const used = await postTrace(app, secret, { prompt: 'with the new key' })
    t.equal(used.statusCode, 201, 'the key shown is the real key')
    await page.getByRole('status', { name: 'New API key' }).getByRole('button', { name: 'Copy' }).click()
    t.equal(await page.evaluate(() => navigator.clipboard.readText()), secret, 'copied')
    await page.getByRole('button', { name: 'Done' }).click()
    await page.reload()
    await page.waitForSelector('[data-project-id="support-bot"]')
    t.notOk((await page.content()).includes(secret), 'never shown again')
    t.match(await page.locator('[data-project-id="support-bot"]').textContent(), 'loupe_sk_')

    const project = page.locator('[data-project-id="support-bot"]')
    await project.getByLabel(/Environment of a new key/).selectOption('staging')
    await project.getByRole('button', { name: 'Add key' }).click()
    const second = (await page.getByTestId('new-key').textContent()) ?? ''
    t.match(second, /^loupe_sk_/)
    t.not(second, secret)
    await project.locator('tr', { hasText: 'staging' }).waitFor()

    page.once('dialog', (dialog) => dialog.accept())
    await project.locator('tr', { hasText: 'staging' }).getByRole('button', { name: 'Revoke' }).click()
    await project.locator('tr', { hasText: 'staging' }).getByText('revoked').waitFor()
    t.equal((await postTrace(app, second, { prompt: 'p' })).statusCode, 401, 'the revoked key is refused')
    noConsoleErrors(t, page)
  })

  t.test('protected mode: the viewer asks for a credential, and a project key sees only its project', async (t) => {
    const token = 'e2e-admin-token-long-enough-1234'
    const { app, url } = await startTestServer(t, { config: { adminToken: token } })
    const a = await createProject(app, 'Alpha', 'production', token)
    const b = await createProject(app, 'Beta', 'production', token)
    await seed(t, app, a.key, [{ trace_id: 'a-1', prompt: 'p' }])
    await seed(t, app, b.key, [{ trace_id: 'b-1', prompt: 'p' }])

    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/traces`)
    await page.getByLabel('Token or API key').fill(a.key)
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.waitForSelector('[data-trace-id="a-1"]')
    t.same(await shownTraceIds(page), ['a-1'], "another project's traces are not shown")
    await page.waitForSelector('.live-dot.open')
    await postTrace(app, b.key, { trace_id: 'b-live', prompt: 'p' })
    await postTrace(app, a.key, { trace_id: 'a-live', prompt: 'p' })
    await page.waitForSelector('[data-trace-id="a-live"]')
    t.same(await shownTraceIds(page), ['a-live', 'a-1'], "nor pushed live: the stream carries this project's only")

    await page.goto(`${url}/ui/`)
    await page.waitForSelector('[data-figure="Traces"]')
    t.equal(await page.textContent('[data-figure="Traces"] .value'), '2', 'the dashboard counts this project only')
    t.equal(await page.evaluate(() => sessionStorage.getItem('loupe.token')), a.key, 'kept for the session')

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByLabel('Token or API key').fill(token)
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.waitForFunction(() => document.querySelector('[data-figure="Traces"] .value')?.textContent === '4')
    t.pass('the admin token sees every project')
    // The 401s that made the viewer ask for a credential are the browser's notes on expected answers.
    noConsoleErrors(t, page, /status of 401/)
  })
}
