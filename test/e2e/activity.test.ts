/// <reference lib="dom" />
// Cost, sessions, users, search and sorting in a real browser against a real server on a fresh database: a posted
// conversation shown in order, a user's sessions, a search that narrows the list, a sort by cost, the list paged to
// its end by cursor, and the dashboard's cost equal to /analytics.
import t from 'tap'
import type {
  AnalyticsResponse,
  ListSessionsResponse,
  ListTraceSummariesResponse,
  UserDetailResponse,
} from '../../schemas/index.js'
import { formatCost, formatCount } from '../../web/src/ui/format.js'
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

const at = (minute: number) => new Date(Date.parse('2026-11-21T10:00:00Z') + minute * 60_000).toISOString()

/** Two users, three sessions; the first conversation posted out of order. */
const CONVERSATIONS = [
  {
    trace_id: 'c1-2',
    session_id: 'conv-1',
    user_id: 'alice',
    name: 'follow-up',
    prompt: 'And when will it arrive?',
    response: 'Thursday.',
    latency: 800,
    cost: 0.002,
    created_at: at(2),
  },
  {
    trace_id: 'c1-1',
    session_id: 'conv-1',
    user_id: 'alice',
    name: 'first question',
    prompt: 'Where is my order?',
    response: 'It shipped yesterday.',
    latency: 1200,
    cost: 0.001,
    created_at: at(1),
  },
  {
    trace_id: 'c1-3',
    session_id: 'conv-1',
    user_id: 'alice',
    name: 'thanks',
    prompt: 'Thanks!',
    failure_reason: 'the model timed out',
    latency: 30_000,
    created_at: at(3),
  },
  {
    trace_id: 'c2-1',
    session_id: 'conv-2',
    user_id: 'alice',
    prompt: 'Can I get a refund?',
    response: 'Yes.',
    cost: 0.01,
    created_at: at(10),
  },
  {
    trace_id: 'c3-1',
    session_id: 'conv-3',
    user_id: 'bob',
    prompt: 'Hello',
    response: 'Hi!',
    cost: 0.5,
    created_at: at(5),
  },
]

await whereViewerRuns(t, 'the end-to-end tests of cost, sessions, users and search', run)

async function run() {
  const browser = await launchBrowser(t)

  t.test('the sessions list shows a posted conversation, and its page the thread oldest first', async (t) => {
    const { app, url, key, project_id } = await acmeServer(t, CONVERSATIONS)
    const api = (await app.inject('/sessions')).json() as ListSessionsResponse
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/sessions`)
    await page.waitForSelector('[data-session-id="conv-1"]')
    const shown = await page.$$eval('[data-session-id]', (rows) => rows.map((r) => r.getAttribute('data-session-id')))
    t.same(shown, ['conv-2', 'conv-3', 'conv-1'], 'newest activity first')
    t.same(
      shown,
      api.items.map((s) => s.session_id),
      'as GET /sessions orders them',
    )
    t.match(await page.getByTestId('session-total').textContent(), /^3 sessions/)
    const conv1 = page.locator('[data-session-id="conv-1"]')
    t.match(await conv1.textContent(), formatCost(0.003), 'the sum of its priced traces')
    t.match(await conv1.textContent(), '1 unpriced', 'its unpriced trace is said, not counted as $0')

    await page.getByLabel('User').fill('bob')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/user_id=bob/)
    await page.waitForFunction(() => document.querySelectorAll('[data-session-id]').length === 1)
    t.equal(await page.locator('[data-session-id]').getAttribute('data-session-id'), 'conv-3', 'filtered by user')

    await page.goto(`${url}/ui/sessions`)
    await conv1.getByRole('link', { name: 'conv-1' }).click()
    await page.waitForURL(new RegExp(`/ui/sessions/conv-1\\?project_id=${project_id}$`))
    await page.waitForSelector('[data-thread-trace]')
    const thread = async () =>
      page.$$eval('[data-thread-trace]', (rows) => rows.map((r) => r.getAttribute('data-thread-trace')))
    t.same(await thread(), ['c1-1', 'c1-2', 'c1-3'], 'the conversation in order, oldest first')
    const first = page.locator('[data-thread-trace="c1-1"]')
    t.match(await first.locator('[data-turn="user"]').textContent(), 'Where is my order?')
    t.match(await first.locator('[data-turn="assistant"]').textContent(), 'It shipped yesterday.')
    t.match(await first.textContent(), formatCost(0.001))
    t.match(await page.locator('[data-thread-trace="c1-3"]').textContent(), 'unpriced')
    t.match(await page.locator('[data-thread-trace="c1-3"]').textContent(), 'the model timed out')
    t.match(await page.getByTestId('session-cost').textContent(), formatCost(0.003))

    await page.reload()
    await page.waitForSelector('[data-thread-trace]')
    t.same(await thread(), ['c1-1', 'c1-2', 'c1-3'], 'the deep link survives a reload')

    await postTrace(app, key, { trace_id: 'c1-4', session_id: 'conv-1', user_id: 'alice', prompt: 'One more thing' })
    await page.waitForSelector('[data-thread-trace="c1-4"]')
    t.same(await thread(), ['c1-1', 'c1-2', 'c1-3', 'c1-4'], 'a new turn joins the thread by itself')

    await page.locator('[data-thread-trace="c1-2"]').getByRole('link', { name: 'follow-up' }).click()
    await page.waitForURL(/\/ui\/traces\/c1-2$/)
    await page.getByRole('link', { name: 'conv-1', exact: true }).click()
    await page.waitForURL(/\/ui\/sessions\/conv-1\?project_id=/)
    await page.waitForSelector('[data-thread-trace="c1-2"]')
    t.pass("the trace's session links to the session page")
    noConsoleErrors(t, page)
  })

  t.test('the users page lists users, and a user their sessions', async (t) => {
    const { app, url, project_id } = await acmeServer(t, CONVERSATIONS)
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/users`)
    await page.waitForSelector('[data-user-id="alice"]')
    const users = await page.$$eval('[data-user-id]', (rows) => rows.map((r) => r.getAttribute('data-user-id')))
    t.same(users, ['alice', 'bob'], 'newest activity first')

    await page.locator('[data-user-id="alice"]').getByRole('link', { name: 'alice' }).click()
    await page.waitForURL(new RegExp(`/ui/users/alice\\?project_id=${project_id}$`))
    await page.waitForSelector('[data-session-id]')
    const api = (await app.inject(`/users/alice?project_id=${project_id}`)).json() as UserDetailResponse
    const sessions = async () =>
      page.$$eval('[data-session-id]', (rows) => rows.map((r) => r.getAttribute('data-session-id')))
    t.same(await sessions(), ['conv-2', 'conv-1'], 'their sessions, newest activity first')
    t.same(
      await sessions(),
      api.sessions.map((s) => s.session_id),
    )
    t.equal(await page.locator('[data-fact="Sessions"] dd').textContent(), '2')
    t.equal(await page.locator('[data-fact="Traces"] dd').textContent(), formatCount(api.user.traces))
    t.match(await page.locator('[data-fact="Cost"] dd').textContent(), formatCost(api.user.cost))

    await page.reload()
    await page.waitForSelector('[data-session-id="conv-1"]')
    t.pass('the deep link survives a reload')

    await page.goto(`${url}/ui/traces/c3-1`)
    await page.getByRole('link', { name: 'bob', exact: true }).click()
    await page.waitForURL(/\/ui\/users\/bob\?project_id=/)
    await page.waitForSelector('[data-session-id="conv-3"]')
    t.pass("the trace's user links to the user page")
    noConsoleErrors(t, page)
  })

  t.test('search narrows the list, with every other filter, and marks what matched', async (t) => {
    const { app, url, key } = await acmeServer(t, [
      { trace_id: 'r1', name: 'refund request', prompt: 'I want a REFUND', created_at: at(1) },
      { trace_id: 'r2', name: 'other', prompt: 'p', response: 'your refund is on its way', created_at: at(2) },
      {
        trace_id: 'r3',
        name: 'failed refund',
        prompt: 'p',
        failure_reason: 'payment provider down',
        created_at: at(3),
      },
      { trace_id: 'n1', name: 'weather', prompt: 'Is it raining?', created_at: at(4) },
      { trace_id: 'j1', name: '返金', prompt: '返金をお願いします', created_at: at(5) },
    ])
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/traces`)
    await page.waitForSelector('[data-trace-id="n1"]')
    await page.getByLabel('Search').fill('refund')
    await page.getByLabel('Search').press('Enter')
    await page.waitForURL(/q=refund/)
    await page.waitForFunction(() => document.querySelectorAll('[data-trace-id]').length === 3)
    const api = (await app.inject('/traces?q=refund&fields=summary')).json() as ListTraceSummariesResponse
    t.same(await shownTraceIds(page), ['r3', 'r2', 'r1'])
    t.same(
      await shownTraceIds(page),
      api.items.map((i) => i.trace_id),
      'as GET /traces?q= finds them',
    )
    t.same(await page.locator('[data-trace-id="r1"] mark').allTextContents(), ['refund'], 'the match is marked')

    await page.getByLabel('Status').selectOption('failed')
    await page.waitForURL(/status=failed/)
    await page.waitForFunction(() => document.querySelectorAll('[data-trace-id]').length === 1)
    t.same(await shownTraceIds(page), ['r3'], 'combined with the status filter')
    t.match(new URL(page.url()).search, /q=refund/)
    await page.reload()
    await page.waitForSelector('[data-trace-id="r3"]')
    t.equal(await page.getByLabel('Search').inputValue(), 'refund', 'the search survives a reload')

    await page.goto(`${url}/ui/traces?q=${encodeURIComponent('返金')}`)
    await page.waitForSelector('[data-trace-id="j1"]')
    t.same(await shownTraceIds(page), ['j1'], 'Japanese text is found')

    await page.goto(`${url}/ui/traces?q=refund`)
    await page.waitForSelector('[data-trace-id="r1"]')
    await page.waitForSelector('.live-dot.open')
    await postTrace(app, key, { trace_id: 'live-miss', name: 'weather again', prompt: 'sunny?' })
    await postTrace(app, key, { trace_id: 'live-hit', name: 'late', prompt: 'p', steps: [{ output: 'Refund sent' }] })
    await page.waitForSelector('[data-trace-id="live-hit"]')
    t.same(await shownTraceIds(page), ['live-hit', 'r3', 'r2', 'r1'], 'a live trace joins only when it matches')
    noConsoleErrors(t, page)
  })

  t.test('sorting by cost orders the rows, unpriced last; new traces are then counted', async (t) => {
    const { app, url, key } = await acmeServer(t, [
      { trace_id: 'cheap', prompt: 'p', cost: 0.0001, latency: 3000, created_at: at(1) },
      { trace_id: 'dear', prompt: 'p', cost: 1.25, latency: 100, created_at: at(2) },
      { trace_id: 'free', prompt: 'p', latency: 2000, created_at: at(3) },
      { trace_id: 'mid', prompt: 'p', cost: 0.03, latency: 1000, created_at: at(4) },
    ])
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/traces`)
    await page.waitForSelector('[data-trace-id="mid"]')
    t.same(await shownTraceIds(page), ['mid', 'free', 'dear', 'cheap'], 'newest first by default')
    t.equal(await page.locator('[data-trace-id="free"] [data-cost]').textContent(), 'unpriced', 'never $0')
    t.equal(await page.locator('[data-trace-id="dear"] [data-cost]').textContent(), formatCost(1.25))

    await page.getByRole('button', { name: /^Cost/ }).click()
    await page.waitForURL(/sort=cost/)
    await page.waitForFunction(
      () => document.querySelector('[data-trace-id]')?.getAttribute('data-trace-id') === 'dear',
    )
    t.same(await shownTraceIds(page), ['dear', 'mid', 'cheap', 'free'], 'most expensive first, unpriced last')
    const api = (await app.inject('/traces?sort=cost&fields=summary')).json() as ListTraceSummariesResponse
    t.same(
      await shownTraceIds(page),
      api.items.map((i) => i.trace_id),
      'as GET /traces?sort=cost orders them',
    )

    await page.getByRole('button', { name: /^Cost/ }).click()
    await page.waitForURL(/order=asc/)
    await page.waitForFunction(
      () => document.querySelector('[data-trace-id]')?.getAttribute('data-trace-id') === 'free',
    )
    t.same(await shownTraceIds(page), ['free', 'cheap', 'mid', 'dear'], 'ascending: unpriced first')

    await page.getByRole('button', { name: /^Latency/ }).click()
    await page.waitForURL(/sort=latency(?!.*order=asc)/)
    await page.waitForFunction(
      () => document.querySelector('[data-trace-id]')?.getAttribute('data-trace-id') === 'cheap',
    )
    t.same(await shownTraceIds(page), ['cheap', 'free', 'mid', 'dear'], 'slowest first')
    await page.reload()
    await page.waitForSelector('[data-trace-id="cheap"]')
    t.same(await shownTraceIds(page), ['cheap', 'free', 'mid', 'dear'], 'the order survives a reload')

    await page.waitForSelector('.live-dot.open')
    await postTrace(app, key, { trace_id: 'slowest', prompt: 'p', latency: 9000 })
    await page.getByRole('button', { name: '1 new · Show' }).waitFor()
    t.same(await shownTraceIds(page), ['cheap', 'free', 'mid', 'dear'], 'not put at the top of another order')
    await page.getByRole('button', { name: '1 new · Show' }).click()
    await page.waitForSelector('[data-trace-id="slowest"]')
    t.same(await shownTraceIds(page), ['slowest', 'cheap', 'free', 'mid', 'dear'], 'shown in its place on request')
    noConsoleErrors(t, page)
  })

  t.test('the list pages to its end by cursor', async (t) => {
    const traces = Array.from({ length: 230 }, (_, i) => ({
      trace_id: `t-${String(i).padStart(3, '0')}`,
      prompt: 'p',
      latency: (i * 37) % 1000,
      created_at: at(i),
    }))
    const { url } = await acmeServer(t, traces)
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/traces?sort=latency&order=asc`)
    await page.waitForSelector('[data-trace-id]')
    for (let i = 0; i < 20; i++) {
      if ((await page.locator('.list-foot').textContent())?.startsWith('230 of 230')) break
      await page.locator('.tbody').evaluate((el: HTMLElement) => el.scrollTo(0, el.scrollHeight))
      await page.waitForTimeout(100)
    }
    t.match(await page.locator('.list-foot').textContent(), /^230 of 230 loaded/, 'every page loaded')
    const last = [...traces].sort((a, b) => b.latency - a.latency || (a.trace_id < b.trace_id ? 1 : -1))[0]!
    await page.locator('.tbody').evaluate((el: HTMLElement) => el.scrollTo(0, el.scrollHeight))
    await page.waitForSelector(`[data-trace-id="${last.trace_id}"]`)
    t.equal((await shownTraceIds(page)).at(-1), last.trace_id, 'the slowest trace is the last row')
    noConsoleErrors(t, page)
  })

  t.test("the dashboard's cost equals /analytics, with a cost chart and the cost by model", async (t) => {
    const { app, url } = await acmeServer(
      t,
      recentTraces(12, 3_600_000, (i) => ({
        model: i % 3 === 0 ? 'claude' : 'gpt-4o',
        cost: i % 4 === 0 ? undefined : 0.0125 * i,
        token_count: 1_000_000 * i,
      })),
    )
    const a = (await app.inject('/analytics')).json() as AnalyticsResponse
    t.ok(a.summary.total_cost > 0 && a.summary.unpriced_traces > 0, 'priced and unpriced traces both')
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/`)
    await page.waitForSelector('[data-figure="Cost"]')
    t.equal(await page.textContent('[data-figure="Cost"] .value'), formatCost(a.summary.total_cost))
    t.equal(await page.textContent('[data-figure="Unpriced traces"] .value'), formatCount(a.summary.unpriced_traces))
    await page.waitForSelector('[data-chart="Cost per hour"] canvas')
    t.equal(await page.locator('.chart canvas').count(), 4, 'traces, latency, tokens and cost charts')
    const byModel = page.getByRole('region', { name: 'Cost by model' })
    for (const entry of a.cost_breakdown) {
      t.match(await byModel.locator(`[data-cost-model="${entry.key}"]`).textContent(), formatCost(entry.cost))
    }
    noConsoleErrors(t, page)
  })
}
