// Builds Loupe for tests on the store under test, plus the few steps most tests share. The whole suite runs twice
// (scripts/test.ts): on in-memory SQLite, and with LOUPE_TEST_DATABASE=postgres://… on PostgreSQL, where every app
// gets a schema of its own, dropped when its test ends.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import pg from 'pg'
import type { Test } from 'tap'
import { componentSchemas } from '../schemas/index.js'
import { type BuildOptions, buildApp, type LoupeApp } from '../src/app.js'
import { type Config, defaultConfig } from '../src/config.js'
import { createPostgresStore, postgresTarget } from '../src/store/postgres/store.js'
import { createSqliteStore } from '../src/store/sqlite/store.js'
import type { Store } from '../src/store/types.js'

/** The PostgreSQL database this run tests against (a postgres:// URL), or undefined for SQLite. */
export const TEST_DATABASE = process.env.LOUPE_TEST_DATABASE || undefined
export const storeUnderTest = TEST_DATABASE ? 'postgresql' : 'sqlite'

/** `url` with Loupe's `schema` parameter set. */
export function withSchema(url: string, schema: string): string {
  const u = new URL(url)
  u.searchParams.set('schema', schema)
  return u.toString()
}

/** A fresh, unused schema name. */
export const testSchemaName = () => `loupe_test_${randomBytes(6).toString('hex')}`

/** Drops a test schema and everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(`drop schema if exists ${schema} cascade`)
  } finally {
    await client.end()
  }
}

/** A new, empty store of the kind under test, and what disposes of its database once the store is closed. */
async function openTestStore(): Promise<{ store: Store; dispose: () => Promise<void> }> {
  if (!TEST_DATABASE) return { store: createSqliteStore(':memory:'), dispose: async () => {} }
  const schema = testSchemaName()
  const store = await createPostgresStore(withSchema(TEST_DATABASE, schema), { poolSize: 4 })
  return { store, dispose: () => dropSchema(TEST_DATABASE, schema) }
}

/** A fresh store of the kind under test (outside an app), closed and dropped when the test ends. */
export async function createTestStore(t: Test): Promise<Store> {
  const { store, dispose } = await openTestStore()
  t.teardown(async () => {
    await store.close()
    await dispose()
  })
  return store
}

/**
 * Two stores of the kind under test on one new database, as two replicas (or two processes) share one: a SQLite
 * file, or a PostgreSQL schema. Closed and dropped when the test ends.
 */
export async function createSharedStores(t: Test): Promise<[Store, Store]> {
  let stores: [Store, Store]
  let dispose: () => Promise<void>
  if (TEST_DATABASE) {
    const url = withSchema(TEST_DATABASE, testSchemaName())
    const first = await createPostgresStore(url, { poolSize: 3 })
    stores = [first, await createPostgresStore(url, { poolSize: 3 })]
    dispose = () => dropSchema(TEST_DATABASE!, postgresTarget(url).schema)
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'loupe-shared-'))
    const path = join(dir, 'loupe.db')
    stores = [createSqliteStore(path), createSqliteStore(path)]
    dispose = async () => rmSync(dir, { recursive: true, force: true })
  }
  t.teardown(async () => {
    for (const store of stores) await store.close()
    await dispose()
  })
  return stores
}

export interface TestAppOptions extends BuildOptions {
  config?: Partial<Config>
  /** Runs before the app is ready: the place to add hooks that inject failures. */
  setup?: (app: LoupeApp) => void
}

/** A fresh app on its own new database, closed (and the database dropped) when the test ends. */
export async function buildTestApp(t: Test, options: TestAppOptions = {}): Promise<LoupeApp> {
  // No overload guard unless a test asks for it: a busy machine must not turn a test's requests into 503s.
  const config: Config = {
    ...defaultConfig(),
    databaseUrl: ':memory:',
    logLevel: 'silent',
    maxEventLoopDelayMs: 0,
    ...options.config,
  }
  const { store, dispose } = options.store ? { store: options.store, dispose: async () => {} } : await openTestStore()
  const app = await buildApp(config, { logger: false, ...options, store })
  t.teardown(async () => {
    await app.close()
    await dispose()
  })
  options.setup?.(app)
  await app.ready()
  return app
}

/** How many rows a table holds, on either store. */
export async function countRows(store: Store, table: string): Promise<number> {
  if ('raw' in store) {
    const raw = (store as ReturnType<typeof createSqliteStore>).raw
    return (raw.prepare(`select count(*) as n from "${table}"`).get() as { n: number }).n
  }
  const { pool, schema } = store as Awaited<ReturnType<typeof createPostgresStore>>
  const result = await pool.query<{ n: number }>(`select count(*)::int as n from "${schema}"."${table}"`)
  return result.rows[0]?.n ?? 0
}

/** Every row of one table of a store. */
export async function tableRows(store: Store, table: string): Promise<Record<string, unknown>[]> {
  if ('raw' in store) {
    const raw = (store as ReturnType<typeof createSqliteStore>).raw
    return raw.prepare(`select * from "${table}"`).all() as Record<string, unknown>[]
  }
  const { pool } = store as Awaited<ReturnType<typeof createPostgresStore>>
  return (await pool.query(`select * from "${table}"`)).rows
}

/** Every row of every table of a store, by table name (to look for what must never be stored). */
export async function allRows(store: Store): Promise<Record<string, Record<string, unknown>[]>> {
  const out: Record<string, Record<string, unknown>[]> = {}
  let tables: { name: string }[]
  if ('raw' in store) {
    const raw = (store as ReturnType<typeof createSqliteStore>).raw
    tables = raw.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]
  } else {
    const { pool, schema } = store as Awaited<ReturnType<typeof createPostgresStore>>
    tables = (
      await pool.query<{ name: string }>(
        'select table_name as name from information_schema.tables where table_schema = $1',
        [schema],
      )
    ).rows
  }
  for (const { name } of tables) out[name] = await tableRows(store, name)
  return out
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

/** SQLite's plan of a statement, one detail a line (`SEARCH traces USING INDEX …`), for tests that pin an index. */
export function planOf(
  db: { prepare(sql: string): { all(...params: unknown[]): unknown[] } },
  sql: string,
  ...params: unknown[]
) {
  return (db.prepare(`explain query plan ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail)
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

/** A new folder of its own for `t` (named `loupe-<name>-…`), removed with everything in it when `t` ends. */
export function scratchDir(t: Test, name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `loupe-${name}-`))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** A SQLite database file for `t`, in a folder of its own (`scratchDir`) removed when `t` ends. */
export function scratchDatabase(t: Test, name: string): string {
  return join(scratchDir(t, name), 'loupe.db')
}

/** A TCP port that nothing listens on (it was free a moment ago). */
export async function unusedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}
