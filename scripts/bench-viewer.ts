// The viewer's part of npm run bench: in the system's headless Chromium, against the server under test, the time to
// the first rendered rows of /ui/traces, to a rendered dashboard, to a rendered 1000-step trace and to its agent graph
// laid out, two traces and two experiment runs side by side (each beside the floor of the same run: the app's empty
// shell on the same server), a live trace's time on screen after its POST was answered, and the JavaScript the first
// load ships (gzip). The experiments' comparison is also timed as the API answers it.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { type Browser, chromium } from 'playwright-core'
import { packageRoot } from '../src/lib/paths.js'
import { experimentFixture } from './bench-experiments.js'
import { fetch, postJson } from './bench-harness.js'

export interface BenchRow {
  what: string
  result: string
  floor: string
  ratio: string
  goal: string
}

const CHROMIUM = process.env.LOUPE_CHROMIUM || '/usr/bin/chromium'
const RUNS = 5
const LIVE_TRACES = 20

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0
}
const ms = (n: number) => `${n.toFixed(0)} ms`

/** Gzip bytes of the JavaScript index.html loads before anything renders (its module script and preloads). */
export function initialJsGzipBytes(dist = join(packageRoot(), 'web', 'dist')): { files: number; gzip: number } {
  const html = readFileSync(join(dist, 'index.html'), 'utf8')
  const paths = [...html.matchAll(/(?:src|href)="\/ui\/([^"]+\.js)"/g)].map((m) => m[1]!)
  const gzip = paths.reduce((sum, path) => sum + gzipSync(readFileSync(join(dist, path)), { level: 9 }).length, 0)
  return { files: paths.length, gzip }
}

/** Milliseconds from navigation to `selector` showing, in a fresh context (nothing cached), the median of RUNS. */
async function firstRender(browser: Browser, url: string, ready: string, count = 1): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } })
    const page = await context.newPage()
    const start = performance.now()
    await page.goto(url, { waitUntil: 'commit' })
    await page.waitForFunction(`document.querySelectorAll(${JSON.stringify(ready)}).length >= ${count}`, undefined, {
      polling: 'raf',
      timeout: 60_000,
    })
    times.push(performance.now() - start)
    await context.close()
  }
  return median(times)
}

const post = (base: string, key: string, path: string, body: unknown) => postJson(`${base}${path}`, body, key)

export async function benchViewer(
  base: string,
  key: string,
  projectId: string,
  say: (line: string) => void,
): Promise<BenchRow[]> {
  const js = initialJsGzipBytes()
  const rows: BenchRow[] = [
    {
      what: 'viewer: initial JS (gzip)',
      result: `${(js.gzip / 1024).toFixed(1)} KB in ${js.files} file${js.files === 1 ? '' : 's'}`,
      floor: '—',
      ratio: '—',
      goal: '≤ 300 KB',
    },
  ]
  say(`viewer: initial JS ${(js.gzip / 1024).toFixed(1)} KB gzip`)
  if (!existsSync(CHROMIUM)) {
    say(`viewer: no browser at ${CHROMIUM}; render times not measured`)
    return rows
  }

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
  try {
    // A 1000-step trace, nested ten deep, to open: each tenth step an agent (of 5) calling its tools and a model.
    const start = Date.now() - 60_000
    const steps = Array.from({ length: 1000 }, (_, i) => ({
      name: i % 10 === 0 ? `agent ${(i / 10) % 5}` : `step ${i}`,
      type: i % 10 === 0 ? 'agent' : i % 3 === 0 ? 'llm' : 'tool',
      tool: i % 3 === 0 ? null : `tool-${i % 11}`,
      latency: 20 + (i % 40),
      started_at: new Date(start + i * 50).toISOString(),
      input: { query: `question ${i}`, context: 'x'.repeat(200) },
      output: `answer ${i} `.repeat(10),
      parent_index: i === 0 ? null : i % 10 === 0 ? 0 : i - (i % 10),
    }))
    const bigId = `bench-1000-steps-${Date.now()}`
    await post(base, key, '/traces', { trace_id: bigId, prompt: 'a long agent run', steps })
    // Its retake, to compare with it: 50 steps replaced in the middle (retried under other names), the rest the same.
    const retakeId = `${bigId}-retake`
    const retried = steps.slice(0, 50).map((step) => ({ ...step, name: `${step.name} (retried)` }))
    await post(base, key, '/traces', {
      trace_id: retakeId,
      prompt: 'a long agent run, again',
      steps: [...steps.slice(0, 500), ...retried, ...steps.slice(550)],
    })

    const shell = await firstRender(browser, `${base}/ui/projects`, '.nav a')
    const floor = `app shell ${ms(shell)}`
    const measure = async (what: string, path: string, selector: string, count = 1, goal = '≤ 1 s') => {
      const time = await firstRender(browser, `${base}${path}`, selector, count)
      say(`${what} ${ms(time)} (shell ${ms(shell)})`)
      rows.push({ what, result: ms(time), floor, ratio: `shell + ${ms(Math.max(0, time - shell))}`, goal })
    }
    await measure('viewer: /ui/traces first rows', '/ui/traces', '[data-trace-id]', 10)
    await measure('viewer: /ui/ dashboard rendered', '/ui/', '.chart canvas', 4)
    await measure('viewer: 1000-step trace rendered', `/ui/traces/${bigId}`, '[data-step-index]', 20)
    await measure(
      'viewer: 1000-step trace as an agent graph, laid out',
      `/ui/traces/${bigId}?view=graph`,
      '[data-node]',
      10,
    )

    await measure(
      'viewer: two 1000-step traces side by side, aligned',
      `/ui/compare?a=${bigId}&b=${retakeId}`,
      '[data-testid="aligned-steps"] tbody tr',
      1000,
    )

    // Two experiments over a 1000-item dataset: the comparison as the API answers it, then as the viewer shows it.
    const [a, b] = await experimentFixture(base, key, projectId, 1000)
    const compareUrl = `${base}/experiments/compare?ids=${a},${b}`
    const answers: number[] = []
    for (let i = 0; i < RUNS + 1; i++) {
      const begun = performance.now()
      const res = await fetch(compareUrl, { headers: { authorization: `Bearer ${key}` } })
      const body = (await res.json()) as { items?: unknown[] }
      if (!res.ok || body.items?.length !== 1000) throw new Error(`compare answered ${res.status}`)
      // The first answer warms the server's caches and compilations; the rest are timed.
      if (i > 0) answers.push(performance.now() - begun)
    }
    say(`experiments: compare of 1000 items answered in ${ms(median(answers))}`)
    rows.push({
      what: 'GET /experiments/compare, two runs of a 1000-item dataset',
      result: `${ms(median(answers))} (median of ${RUNS})`,
      floor: '—',
      ratio: '—',
      goal: '≤ 500 ms',
    })
    await measure(
      'viewer: two runs of a 1000-item dataset compared, grid rendered',
      `/ui/experiments?ids=${a},${b}`,
      // The rows the window shows (the grid renders those near the view, whatever the dataset's size).
      '[data-testid="experiment-grid"] tbody tr[data-index]',
      10,
      '≤ 500 ms',
    )

    // A live trace: from the moment its POST was answered to its row in the open list.
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } })
    const page = await context.newPage()
    await page.goto(`${base}/ui/traces`)
    await page.waitForSelector('.live-dot.open')
    const delays: number[] = []
    for (let i = 0; i < LIVE_TRACES; i++) {
      const id = `bench-live-${Date.now()}-${i}`
      // The watch is set up before the POST is sent (a row can be on screen before the POST's answer reaches here),
      // and written as text: the bench runs through tsx, whose helpers would not exist inside the page.
      await page.evaluate(`void (window.__shown = new Promise((resolve) => {
        const selector = ${JSON.stringify(`[data-trace-id="${id}"]`)}
        const observer = new MutationObserver(() => {
          if (document.querySelector(selector)) {
            observer.disconnect()
            resolve(performance.timeOrigin + performance.now())
          }
        })
        observer.observe(document.body, { childList: true, subtree: true })
      }))`)
      await post(base, key, '/traces', { trace_id: id, prompt: 'live', name: 'live trace' })
      const acked = performance.timeOrigin + performance.now()
      const onScreen = await page.evaluate<number>('window.__shown')
      delays.push(Math.max(0, onScreen - acked))
    }
    await context.close()
    say(
      `viewer: live trace on screen p50 ${ms(median(delays))} p99 ${ms(percentile(delays, 99))} after the POST answer`,
    )
    rows.push({
      what: `viewer: live trace on screen after its POST answer (${LIVE_TRACES} traces)`,
      result: `p50 ${ms(median(delays))} · p99 ${ms(percentile(delays, 99))}`,
      floor: '—',
      ratio: '—',
      goal: '≤ 250 ms',
    })
  } finally {
    await browser.close()
  }
  return rows
}
