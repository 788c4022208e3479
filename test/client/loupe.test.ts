// The Loupe client as an app meets it: it never throws into or slows the app, flushes at shutdown and at exit,
// does not keep a process alive, and its read methods speak the REST API.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t, { type Test } from 'tap'
import {
  AnalyticsResponse,
  ApiKeyCreatedSchema,
  CreateProjectResponse,
  FailuresResponse,
  ListApiKeysResponse,
  ListProjectsResponse,
  ListTracesResponse,
  TraceSchema,
} from '../../schemas/index.js'
import { Loupe, LoupeError } from '../../src/client/index.js'
import { createProject, schemaErrors, startTestServer, unusedPort, waitFor } from '../helper.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../../', import.meta.url))
const sdk = new URL('../../src/client/index.ts', import.meta.url).href

/** Runs an ES module script that imports the SDK source (through tsx) in a child process. */
async function runScript(t: Test, body: string, env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-sdk-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'app.mjs')
  writeFileSync(file, `import { Loupe } from '${sdk}'\n${body}\n`)
  const started = Date.now()
  const result = await run(process.execPath, ['--import', 'tsx', file], {
    cwd: root,
    env: { ...process.env, ...env },
    timeout: 20_000,
  })
  return { ...result, ms: Date.now() - started }
}

// (That it does not slow the app down either is proved without a clock by the hanging server below.)
t.test('an unreachable server never throws into the app', async (t) => {
  const warnings: string[] = []
  const loupe = new Loupe({
    baseUrl: `http://127.0.0.1:${await unusedPort()}`,
    apiKey: 'loupe_sk_x',
    flushIntervalMs: 1,
    baseDelayMs: 1,
    maxDelayMs: 5,
    onWarning: (m) => warnings.push(m),
  })
  const results: number[] = []
  for (let i = 0; i < 200; i++) results.push(await loupe.trace({ prompt: `p${i}` }, () => i))
  t.same(
    results,
    Array.from({ length: 200 }, (_, i) => i),
    'each trace() resolves to the callback’s value',
  )
  await t.rejects(
    loupe.trace({ prompt: 'x' }, () => Promise.reject(new Error('app error'))),
    /app error/,
    'only the app’s own errors come out',
  )
  await waitFor(() => loupe.stats().retries > 0, 5000, 'a retry')
  t.pass('it keeps trying in the background')
  t.equal(await loupe.shutdown({ timeoutMs: 100 }), false, 'shutdown says what it could not deliver')
  t.match(warnings.join('\n'), /connection refused/)
  t.match(warnings.at(-1), /shut down with 201 trace\(s\) undelivered/)
})

t.test('a server that hangs does not slow trace() down', async (t) => {
  let release: () => void = () => {}
  const hang = new Promise<void>((resolve) => {
    release = resolve
  })
  let held = 0
  t.teardown(release)
  const { app, url } = await startTestServer(t, {
    setup: (app) =>
      app.addHook('onRequest', async (request) => {
        if (request.url !== '/traces/batch') return
        held++
        await hang
        held--
      }),
  })
  const { key } = await createProject(app)
  // The request is held until the test releases it, and the client would wait for it for ten minutes: a trace()
  // that waited on delivery would never return here (the test would time out), whatever the machine's speed.
  const loupe = new Loupe({ baseUrl: url, apiKey: key, flushIntervalMs: 1, requestTimeoutMs: 600_000, onWarning() {} })
  t.teardown(() => loupe.shutdown({ timeoutMs: 1 }))
  await loupe.trace({ prompt: 'first' }, () => 'ok')
  while (held === 0) await new Promise((resolve) => setTimeout(resolve, 5))
  for (let i = 0; i < 100; i++) await loupe.trace({ prompt: `p${i}` }, () => 'ok')
  t.equal(held, 1, 'every trace() returned while the first delivery was still held by the server')
  t.equal(loupe.stats().pending, 101)
  release()
})

t.test('shutdown() delivers what is queued and stops recording', async (t) => {
  const { app, url } = await startTestServer(t)
  const { key, project_id } = await createProject(app)
  const warnings: string[] = []
  const loupe = new Loupe({ baseUrl: url, apiKey: key, flushIntervalMs: 60_000, onWarning: (m) => warnings.push(m) })
  for (let i = 0; i < 7; i++) await loupe.trace({ prompt: `p${i}` }, () => 'ok')
  t.equal(loupe.stats().requests, 0, 'nothing sent yet')
  t.equal(await loupe.shutdown(), true)
  t.equal((await app.inject({ url: '/traces', query: { project_id } })).json().total, 7)
  t.equal(await loupe.trace({ prompt: 'late' }, () => 'still runs'), 'still runs')
  t.match(warnings, [/after shutdown/])
})

/** LOUPE_API_KEY unset for the test, and the warnings a client reports collected. */
function withoutKey(t: Test): string[] {
  const saved = process.env.LOUPE_API_KEY
  delete process.env.LOUPE_API_KEY
  t.teardown(() => {
    if (saved !== undefined) process.env.LOUPE_API_KEY = saved
  })
  return []
}

t.test('without an API key the app runs unchanged and one warning says why nothing is recorded', async (t) => {
  const warnings = withoutKey(t)
  const loupe = new Loupe({ onWarning: (m) => warnings.push(m) })
  t.equal(await loupe.trace({ prompt: 'p' }, () => 42), 42)
  t.equal(await loupe.flush(), true)
  t.match(warnings, [/no API key/])
})

t.test('a read-only client (no key, nothing recorded) says nothing', async (t) => {
  const warnings = withoutKey(t)
  const loupe = new Loupe({ baseUrl: 'http://127.0.0.1:1', onWarning: (m) => warnings.push(m) })
  await loupe.shutdown()
  t.same(warnings, [])
})

t.test('a malformed baseUrl is an error at construction, never a request elsewhere', async (t) => {
  for (const baseUrl of ['localhost:41001', '127.0.0.1:3000', 'ftp://example.test', 'not a url']) {
    t.throws(
      () => new Loupe({ baseUrl, apiKey: 'loupe_sk_x' }),
      { name: 'TypeError', message: /http\(s\) URL/ },
      baseUrl,
    )
  }
})

t.test('shutdown() is true only when every trace was accepted: a wrong key makes it false', async (t) => {
  const { url } = await startTestServer(t)
  const warnings: string[] = []
  const loupe = new Loupe({
    baseUrl: url,
    apiKey: 'loupe_sk_00000000000000000000000000000000',
    onWarning: (m) => warnings.push(m),
  })
  await loupe.trace({ prompt: 'p' }, () => 1)
  t.equal(await loupe.shutdown(), false, 'the server refused the trace')
  t.equal(loupe.stats().dropped, 1)
  t.match(warnings, [/dropped 1 trace/])
})

t.test('baseUrl and apiKey come from LOUPE_BASE_URL and LOUPE_API_KEY', async (t) => {
  const { app, url } = await startTestServer(t)
  const { key, project_id } = await createProject(app)
  const { stdout } = await runScript(
    t,
    `const loupe = new Loupe()
     await loupe.trace({ name: 'from-env', prompt: 'p' }, () => 'ok')
     console.log(await loupe.shutdown(), loupe.baseUrl)`,
    { LOUPE_BASE_URL: url, LOUPE_API_KEY: key },
  )
  t.equal(stdout.trim(), `true ${url}/`)
  t.equal((await app.inject({ url: '/traces', query: { project_id } })).json().items[0].name, 'from-env')
})

t.test('a process that ends without flush() delivers its traces on the way out, then exits', async (t) => {
  const { app, url } = await startTestServer(t)
  const { key, project_id } = await createProject(app)
  const { stdout, ms } = await runScript(
    t,
    `const loupe = new Loupe({ baseUrl: process.env.URL, apiKey: process.env.KEY, flushIntervalMs: 60000 })
     for (let i = 0; i < 5; i++) await loupe.trace({ name: 'exit-' + i, prompt: 'p' }, () => 'ok')
     console.log('done')`,
    { URL: url, KEY: key },
  )
  t.equal(stdout.trim(), 'done')
  t.equal((await app.inject({ url: '/traces', query: { project_id } })).json().total, 5)
  // It exited (a process kept alive would end this test by its timeout), whatever the machine's speed.
  t.pass(`exited after ${ms} ms`)
})

t.test('the SDK never keeps a process alive: with the server down it gives up at flushTimeoutMs', async (t) => {
  const url = `http://127.0.0.1:${await unusedPort()}`
  const { stderr, ms } = await runScript(
    t,
    `const loupe = new Loupe({ baseUrl: process.env.URL, apiKey: 'loupe_sk_x', flushTimeoutMs: 300 })
     await loupe.trace({ prompt: 'p' }, () => 'ok')`,
    { URL: url },
  )
  t.match(stderr, /loupe: exiting with 1 trace\(s\) undelivered/)
  // It exited (a process kept alive would end this test by its timeout), whatever the machine's speed.
  t.pass(`exited after ${ms} ms`)
  const noHook = await runScript(
    t,
    `const loupe = new Loupe({ baseUrl: process.env.URL, apiKey: 'loupe_sk_x', flushOnExit: false, onWarning() {} })
     await loupe.trace({ prompt: 'p' }, () => 'ok')
     console.log('bye')`,
    { URL: url },
  )
  t.equal(noHook.stdout.trim(), 'bye', 'with flushOnExit: false it exits at once, retry timers or not')
})

t.test('the read client covers projects, keys, traces, analytics and failures', async (t) => {
  const { url } = await startTestServer(t)
  const admin = new Loupe({ baseUrl: url, enabled: false })
  const created = await admin.projects.create({ name: 'Read Client', environment: 'staging', description: 'd' })
  t.same(schemaErrors(CreateProjectResponse, created), [])
  const listed = await admin.projects.list()
  t.same(schemaErrors(ListProjectsResponse, listed), [])
  t.equal(listed.items[0]?.project_id, 'read-client')

  const second = await admin.apiKeys.create({ project_id: 'read-client', environment: 'production' })
  t.same(schemaErrors(ApiKeyCreatedSchema, second), [])
  const keys = await admin.apiKeys.list({ project_id: 'read-client' })
  t.same(schemaErrors(ListApiKeysResponse, keys), [])
  t.equal(keys.total, 2)

  const loupe = new Loupe({ baseUrl: url, apiKey: created.api_key.key })
  t.teardown(() => loupe.shutdown())
  let id = ''
  await loupe
    .trace({ model: 'gpt-4o', prompt: 'p' }, (tr) => {
      id = tr.traceId
      throw new Error('nope')
    })
    .catch(() => {})
  await loupe.flush()

  const traces = await admin.listTraces({ project_id: 'read-client', status: 'failed', limit: 5 })
  t.same(schemaErrors(ListTracesResponse, traces), [])
  t.equal(traces.total, 1)
  t.same(schemaErrors(TraceSchema, await admin.getTrace(id)), [])
  const analytics = await admin.analytics({ project_id: 'read-client' })
  t.same(schemaErrors(AnalyticsResponse, analytics), [])
  t.equal(analytics.summary.failed_traces, 1)
  const failures = await admin.failures({ limit: 10 })
  t.same(schemaErrors(FailuresResponse, failures), [])
  t.equal(failures.totals.failed_traces, 1)
  t.equal((await admin.health()).status, 'ok')

  const revoked = await admin.apiKeys.revoke(second.key_id)
  t.type(revoked.revoked_at, 'string')
})

t.test('read errors are LoupeErrors with the status, the server’s code, or null when unreachable', async (t) => {
  const { url } = await startTestServer(t)
  const loupe = new Loupe({ baseUrl: url, enabled: false })
  const missing = await loupe.getTrace('nope').catch((err: unknown) => err)
  t.ok(missing instanceof LoupeError)
  t.match(missing, { status: 404, code: 'LOUPE_TRACE_NOT_FOUND', message: /404 trace 'nope' not found/ })
  const bad = await loupe.projects.create({ name: '!!!', environment: 'development' }).catch((err: unknown) => err)
  t.match(bad, { status: 400, message: /name/ })
  const down = new Loupe({ baseUrl: `http://127.0.0.1:${await unusedPort()}`, enabled: false })
  const unreachable = await down.listTraces().catch((err: unknown) => err)
  t.match(unreachable, { status: null, message: /cannot reach the Loupe server at .*connection refused/ })
})

t.test('a baseUrl with a path prefix keeps it', async (t) => {
  const seen: string[] = []
  const fake: typeof fetch = async (input) => {
    seen.push(String(input))
    return new Response('{"total":0,"items":[]}', { status: 200 })
  }
  const loupe = new Loupe({ baseUrl: 'https://example.test/loupe', enabled: false, fetch: fake })
  await loupe.listTraces({ model: 'gpt-4o', limit: 5 })
  t.same(seen, ['https://example.test/loupe/traces?model=gpt-4o&limit=5'])
})
