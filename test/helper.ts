// Builds Loupe on an in-memory store for tests, plus the few steps most tests share.
import { type AddressInfo, createServer } from 'node:net'
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { Test } from 'tap'
import { componentSchemas } from '../schemas/index.js'
import { type BuildOptions, buildApp, type LoupeApp } from '../src/app.js'
import { type Config, defaultConfig } from '../src/config.js'
import { createSqliteStore } from '../src/store/sqlite/store.js'

export interface TestAppOptions extends BuildOptions {
  config?: Partial<Config>
  /** Runs before the app is ready: the place to add hooks that inject failures. */
  setup?: (app: LoupeApp) => void
}

/** A fresh app on its own in-memory database, closed when the test ends. */
export async function buildTestApp(t: Test, options: TestAppOptions = {}): Promise<LoupeApp> {
  const config: Config = { ...defaultConfig(), databaseUrl: ':memory:', logLevel: 'silent', ...options.config }
  const app = await buildApp(config, {
    logger: false,
    store: options.store ?? createSqliteStore(':memory:'),
    ...options,
  })
  t.teardown(() => app.close())
  options.setup?.(app)
  await app.ready()
  return app
}

/** A fresh app listening on a free port of 127.0.0.1 (for the SDK and the CLI, which speak real HTTP). */
export async function startTestServer(t: Test, options: TestAppOptions = {}): Promise<{ app: LoupeApp; url: string }> {
  const app = await buildTestApp(t, options)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('the test server has no TCP address')
  return { app, url: `http://127.0.0.1:${address.port}` }
}

/** Creates a project through the API (with the admin token, in protected mode) and returns its id and secret key. */
export async function createProject(
  app: LoupeApp,
  name = 'Test Project',
  environment: 'development' | 'staging' | 'production' = 'development',
  adminToken?: string,
): Promise<{ project_id: string; key: string; key_id: string }> {
  const headers = adminToken ? { authorization: `Bearer ${adminToken}` } : {}
  const res = await app.inject({ method: 'POST', url: '/projects', query: { name, environment }, headers })
  if (res.statusCode !== 201) throw new Error(`project creation failed: ${res.statusCode} ${res.body}`)
  const body = res.json()
  return { project_id: body.project.project_id, key: body.api_key.key, key_id: body.api_key.key_id }
}

/** POST /traces with a key. */
export function postTrace(app: LoupeApp, key: string, trace: Record<string, unknown>) {
  return app.inject({ method: 'POST', url: '/traces', headers: { authorization: `Bearer ${key}` }, payload: trace })
}

/** POST /traces/batch with a key. */
export function postBatch(app: LoupeApp, key: string, traces: unknown[]) {
  return app.inject({
    method: 'POST',
    url: '/traces/batch',
    headers: { authorization: `Bearer ${key}` },
    payload: { traces },
  })
}

/** Errors of `value` against a contract schema (with the named components resolvable), [] when it conforms. */
export function schemaErrors(schema: TSchema, value: unknown): string[] {
  return [...Value.Errors(schema, [...componentSchemas], value)].map((e) => `${e.path} ${e.message}`)
}

/** Polls `check` until it returns a truthy value (returned), failing after `timeoutMs`. */
export async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** A TCP port that nothing listens on (it was free a moment ago). */
export async function unusedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}
