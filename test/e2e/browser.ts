// The end-to-end tests' browser: the system's Chromium (Debian's `chromium` package) driven by playwright-core, against
// a real Loupe on a fresh database. Without the browser the tests are skipped with the reason — except where
// LOUPE_REQUIRE_BROWSER=1 (CI), which makes a missing browser a failure. The viewer must be built (npm install does).
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, chromium, type Page } from 'playwright-core'
import type { Test } from 'tap'
import type { LoupeApp } from '../../src/app.js'
import { packageRoot } from '../../src/lib/paths.js'
import { createProject, postBatch, startTestServer } from '../helper.js'

export const CHROMIUM = process.env.LOUPE_CHROMIUM || '/usr/bin/chromium'

/** Why the viewer cannot be driven here (null: it can); a reason that must fail the run is `fatal`. */
export function unavailable(): { reason: string; fatal: boolean } | null {
  if (!existsSync(join(packageRoot(), 'web', 'dist', 'index.html'))) {
    return { reason: 'the viewer is not built: run npm run build', fatal: true }
  }
  if (!existsSync(CHROMIUM)) {
    return {
      reason: `no browser at ${CHROMIUM} (apt-get install chromium, or set LOUPE_CHROMIUM)`,
      fatal: process.env.LOUPE_REQUIRE_BROWSER === '1',
    }
  }
  return null
}

/** Runs a file's browser tests where the viewer can be driven; else fails (a fatal reason) or skips them, saying why. */
export async function whereViewerRuns(t: Test, what: string, tests: () => Promise<void>) {
  const missing = unavailable()
  if (missing?.fatal) {
    t.fail(`the viewer cannot be tested: ${missing.reason}`)
  } else if (missing) {
    t.test(what, { skip: missing.reason }, async () => {})
  } else {
    await tests()
  }
}

/** One browser for a test file, closed when the file's tests end. */
export async function launchBrowser(t: Test): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
  t.teardown(() => browser.close())
  return browser
}

/** Console errors and page errors of a page, as they happen. */
const errorsOf = new WeakMap<Page, string[]>()

/** A page in a fresh browser context (its own session storage) that records its console errors and page errors. */
export async function openPage(t: Test, browser: Browser, options: { clipboard?: boolean } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } })
  if (options.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  const page = await context.newPage()
  page.setDefaultTimeout(10_000)
  const errors: string[] = []
  errorsOf.set(page, errors)
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(error.message))
  t.teardown(() => context.close())
  return page
}

/** Asserts that the page logged no error, but for those matching `expected`. */
export function noConsoleErrors(t: Test, page: Page, expected?: RegExp) {
  const errors = (errorsOf.get(page) ?? []).filter((e) => !expected?.test(e))
  t.same(errors, [], 'no console errors')
}

/** The trace ids of the rows the list shows. */
export async function shownTraceIds(page: Page): Promise<string[]> {
  return page.$$eval('[data-trace-id]', (rows) => rows.map((row) => row.getAttribute('data-trace-id') ?? ''))
}

/** Stores traces for a project through POST /traces/batch, and asserts that none was refused. */
export async function seed(t: Test, app: LoupeApp, key: string, traces: Record<string, unknown>[]) {
  const res = await postBatch(app, key, traces)
  t.same(res.json().rejected, [], 'seeded')
}

/** A listening server on a fresh database whose project Acme holds `traces`. */
export async function acmeServer(t: Test, traces: Record<string, unknown>[]) {
  const { app, url } = await startTestServer(t)
  const { key, project_id } = await createProject(app, 'Acme')
  await seed(t, app, key, traces)
  return { app, url, key, project_id }
}

/** `count` traces going back from now, one every `everyMs` (the dashboard's last hours); `fields` gives the i-th's. */
export function recentTraces(count: number, everyMs: number, fields: (i: number) => Record<string, unknown>) {
  const now = Date.now()
  return Array.from({ length: count }, (_, i) => ({
    prompt: 'p',
    ...fields(i),
    created_at: new Date(now - i * everyMs).toISOString(),
  }))
}
