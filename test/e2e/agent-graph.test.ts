/// <reference lib="dom" />
// The trace page's Graph view in a real browser: a LangGraph agent captured over OTLP and a hand-built multi-agent
// trace drawn as agents and tools with their calls; a node clicked selects its steps in the waterfall.
import t from 'tap'
import { createProject, startTestServer } from '../helper.js'
import { libraryFixtures, replay } from '../otlp/libraries.js'
import { launchBrowser, noConsoleErrors, openPage, seed, whereViewerRuns } from './browser.js'

await whereViewerRuns(t, "the agent graph's end-to-end tests", run)

/** The step indexes the waterfall marks as picked, and the one selected. */
async function marked(page: import('playwright-core').Page) {
  const highlighted = await page.$$eval('.wrow[data-highlighted]', (rows) =>
    rows.map((r) => Number((r as HTMLElement).dataset.stepIndex)).sort((a, b) => a - b),
  )
  const current = await page.$eval('.wrow[aria-current="step"]', (r) => Number((r as HTMLElement).dataset.stepIndex))
  return { highlighted, current }
}

async function run() {
  const browser = await launchBrowser(t)

  t.test('a captured LangGraph agent: its agent node, the tool it called, and the steps of each', async (t) => {
    const { app, url } = await startTestServer(t, { config: { otlpRootGraceMs: 0 } })
    const { key } = await createProject(app, 'Acme')
    const { traces } = await replay(app, key, libraryFixtures('openinference-langchain').get('agent')!)
    const trace = traces[0]!
    const agentSteps = trace.steps.filter((s) => s.type === 'agent').map((s) => s.index)
    const toolSteps = trace.steps.filter((s) => s.type === 'tool').map((s) => s.index)
    t.equal(agentSteps.length, 2, 'the agent node ran twice')
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/traces/${trace.trace_id}`)
    await page.getByRole('tab', { name: 'Graph' }).click()
    await page.waitForSelector('[data-node="agent:agent"]')
    t.match(await page.getAttribute('[data-node="agent:agent"]', 'aria-label'), /^agent agent: 2× · /)
    t.match(await page.getAttribute('[data-node="tool:get_weather"]', 'aria-label'), /^tool get_weather: 1× · /)
    t.ok(await page.$('[data-edge="trace → agent:agent"]'))
    // LangGraph runs the tool in its `tools` node, beside the agent node, not inside it.
    t.ok(await page.$('[data-edge="trace → tool:get_weather"]'), 'the graph ran the tool')

    await page.click('[data-node="agent:agent"]')
    await page.waitForSelector('.wrow[data-highlighted]')
    t.same(await marked(page), { highlighted: agentSteps, current: agentSteps[0] })
    t.match(page.url(), /view=graph/)
    await page.click('[data-node="tool:get_weather"]')
    await page.waitForFunction(
      (index) =>
        document.querySelector('.wrow[aria-current="step"]')?.getAttribute('data-step-index') === String(index),
      toolSteps[0],
    )
    t.same(await marked(page), { highlighted: toolSteps, current: toolSteps[0] })
    noConsoleErrors(t, page)
  })

  t.test('a hand-built multi-agent trace: calls, failures and edges as the steps say', async (t) => {
    const { app, url } = await startTestServer(t)
    const { key } = await createProject(app, 'Acme')
    const step = (name: string, type: string, parent_index: number | null, extra: Record<string, unknown> = {}) => ({
      name,
      type,
      parent_index,
      latency: 100,
      ...extra,
    })
    await seed(t, app, key, [
      {
        trace_id: 'multi',
        name: 'support',
        prompt: 'p',
        steps: [
          step('supervisor', 'agent', null),
          step('plan', 'llm', 0, { token_count: 50 }),
          step('researcher', 'agent', 0),
          step('web', 'tool', 2, { tool: 'search' }),
          step('web', 'tool', 2, { tool: 'search', status: 'failed', error: 'timeout' }),
          step('researcher', 'agent', 0, { status: 'failed', error: 'gave up' }),
          step('writer', 'agent', 0),
          step('draft', 'llm', 6, { token_count: 20 }),
        ],
      },
    ])
    const page = await openPage(t, browser)
    await page.goto(`${url}/ui/traces/multi?view=graph`)
    await page.waitForSelector('[data-node="agent:researcher"]')
    t.same(await page.$$eval('[data-node]', (nodes) => nodes.map((n) => n.getAttribute('data-node'))), [
      'trace',
      'agent:supervisor',
      'agent:researcher',
      'tool:search',
      'agent:writer',
    ])
    t.match(
      await page.getAttribute('[data-node="agent:researcher"]', 'aria-label'),
      /^agent researcher: 2× · 1 failed · /,
    )
    t.match(await page.getAttribute('[data-node="agent:supervisor"]', 'aria-label'), /50 tok$/)
    t.match(await page.textContent('[data-edge="agent:researcher → tool:search"]'), /2× \(1 failed\)/)
    await page.click('[data-node="agent:researcher"]')
    await page.waitForSelector('.wrow[data-highlighted]')
    t.same(await marked(page), { highlighted: [2, 5], current: 2 })
    await page.screenshot({ path: '/tmp/agent-graph.png' })
    noConsoleErrors(t, page)
  })
}
