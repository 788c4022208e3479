// Builds Loupe on an in-memory store for tests, plus the few steps most tests share.
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { Test } from 'tap'
import { componentSchemas } from '../schemas/index.js'
import { type BuildOptions, buildApp, type LoupeApp } from '../src/app.js'
import { type Config, defaultConfig } from '../src/config.js'
import { createSqliteStore } from '../src/store/sqlite/store.js'

export interface TestAppOptions extends BuildOptions {
  config?: Partial<Config>
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
  await app.ready()
  return app
}

/** Creates a project through the API and returns its id and secret key. */
export async function createProject(
  app: LoupeApp,
  name = 'Test Project',
  environment: 'development' | 'staging' | 'production' = 'development',
): Promise<{ project_id: string; key: string; key_id: string }> {
  const res = await app.inject({ method: 'POST', url: '/projects', query: { name, environment } })
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
