// The embedded SQLite store: opens (and migrates) the database, keeps projects and keys through Drizzle, and traces
// with their rollups through prepared statements (trace-queries.ts), so no request scans the traces table; OTLP
// spans waiting for their trace are in pending-spans.ts.
import { existsSync, mkdirSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { asc, eq, sql } from 'drizzle-orm'
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import { packageRoot } from '../../lib/paths.js'
import { fromZonelessIso } from '../../lib/time.js'
import { apiKeyFromRow, keyContextFromRow } from '../key-rows.js'
import {
  activeKeyByHash,
  activeKeyById,
  keyOrder,
  keyProjectJoin,
  keysOf,
  keyWithProjectColumns,
  projectDeletion,
  projectFromRow,
  projectOrder,
  runSteps,
} from '../project-keys.js'
import { ROLLUP_TABLES } from '../rollups.js'
import type { KeyContext, Store } from '../types.js'
import { PROBE_BYTES } from '../write-health.js'
import { createSqliteAlerts } from './alerts.js'
import { startBackground } from './background.js'
import { openDatabase, type SqliteDatabase } from './driver.js'
import { createPendingSpanQueries } from './pending-spans.js'
import { apiKeys, modelPrices, projectRetention, projects } from './tables.js'
import { repairTextIfStale } from './text-repair.js'
import { createTraceQueries } from './trace-queries.js'
import { writeTransaction } from './write-transaction.js'

/** SQLITE_WAL_MAX_BYTES' default: 64 MiB. */
export const DEFAULT_WAL_MAX_BYTES = 67_108_864

type Db = BetterSQLite3Database<{ projects: typeof projects; apiKeys: typeof apiKeys }>

/** `:memory:`, a bare path, or a `file:` URL → what better-sqlite3 opens. */
export function sqlitePath(url: string): string {
  if (url === ':memory:' || url === 'file::memory:') return ':memory:'
  if (url.startsWith('file://')) return new URL(url).pathname
  if (url.startsWith('file:')) return url.slice('file:'.length)
  return url
}

/**
 * Creates `dir` and its missing parents, one level at a time: mkdirSync's own `recursive` never returns on some
 * paths (under /proc), and a parent that is a file must be an error, not a loop.
 */
function ensureFolder(dir: string): void {
  const missing: string[] = []
  let at = resolve(dir)
  while (!existsSync(at)) {
    missing.unshift(at)
    const parent = dirname(at)
    if (parent === at) break
    at = parent
  }
  if (existsSync(at) && !statSync(at).isDirectory()) {
    throw Object.assign(new Error(`${at} is a file, not a folder`), { code: 'ENOTDIR' })
  }
  for (const folder of missing) mkdirSync(folder)
}

export interface SqliteStoreOptions {
  /** Run the committed migrations at open (default true). */
  migrate?: boolean
  /** The write-ahead log's bound in bytes (SQLITE_WAL_MAX_BYTES; see background.ts). */
  walMaxBytes?: number
}

export function createSqliteStore(url: string, options: SqliteStoreOptions = {}): Store & { raw: SqliteDatabase } {
  const path = sqlitePath(url)
  if (path !== ':memory:') ensureFolder(dirname(path))
  const sqlite = openDatabase(path)
  // WAL: readers never wait for the writer; synchronous=NORMAL: a committed transaction survives a process crash
  // (a power cut may lose the last ones). 32 MiB of page cache keeps the hot index pages in memory; beyond it the
  // operating system's file cache serves a page for a read call, so a larger cache bought little speed and its
  // whole size in resident memory (the server's peak RSS at 1M traces was a quarter SQLite's cache).
  // Incremental auto-vacuum, so that space freed by deletions can be given back (reclaimSpace). It can only be
  // chosen before the first table exists: a database created by an older version keeps 'none' until compacted.
  sqlite.pragma('auto_vacuum = INCREMENTAL')
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma('busy_timeout = 5000')
  sqlite.pragma('cache_size = -32768')
  sqlite.pragma('temp_store = MEMORY')
  const walMaxBytes = options.walMaxBytes ?? DEFAULT_WAL_MAX_BYTES
  sqlite.pragma(`journal_size_limit = ${walMaxBytes}`)
  const db: Db = drizzle(sqlite, { schema: { projects, apiKeys } })
  if (options.migrate !== false) migrate(db, { migrationsFolder: join(packageRoot(), 'drizzle', 'sqlite') })
  const traces = createTraceQueries(sqlite)
  if (options.migrate !== false) {
    repairTextIfStale(sqlite)
    traces.rebuildRollupsIfStale()
    traces.rebuildSearchIfStale()
  }
  // A file's log is checkpointed, and its deletions run, by a worker off the event loop (background.ts); an in-memory
  // database cannot be shared with another connection, and does both on the event loop.
  const background =
    sqlite.pragma('journal_mode', { simple: true }) === 'wal' ? startBackground(sqlite, path, walMaxBytes) : null
  const pendingSpans = createPendingSpanQueries(sqlite)
  // Checked again after each wait, and with no await between the check that passes and the write: writers that waited
  // together for one checkpoint cannot each add a transaction past the bound.
  const logRoom = async () => {
    for (let wait = background?.logRoom(); wait; wait = background?.logRoom()) await wait
  }
  const { alerts, windowStats } = createSqliteAlerts(sqlite, db)

  const probe = writeTransaction(sqlite, () => {
    sqlite
      .prepare("insert or replace into loupe_meta (key, value) values ('write_probe', hex(randomblob(?)))")
      .run(PROBE_BYTES / 2)
    sqlite.prepare("delete from loupe_meta where key = 'write_probe'").run()
  })

  const keysWithProject = () =>
    db
      .select(keyWithProjectColumns(apiKeys, projects))
      .from(apiKeys)
      .innerJoin(projects, keyProjectJoin(apiKeys, projects))
  // Every authenticated request looks its key up: prepared once, so no request builds this query again.
  const liveKeyByHash = keysWithProject()
    .where(activeKeyByHash(apiKeys, sql.placeholder('hash')))
    .prepare()

  return {
    dialect: 'sqlite',
    blocksEventLoop: true,
    raw: sqlite,

    async ping() {
      sqlite.prepare('select 1').get()
    },

    async probeWrite() {
      probe()
    },

    async close() {
      await background?.stop()
      if (sqlite.open) sqlite.close()
    },

    async createProject(project, key) {
      return writeTransaction(sqlite, () => {
        const taken = db
          .select({ id: projects.project_id })
          .from(projects)
          .where(eq(projects.project_id, project.project_id))
          .get()
        if (taken) return false
        db.insert(projects)
          .values({ ...project, created_at: fromZonelessIso(project.created_at) })
          .run()
        db.insert(apiKeys).values(key).run()
        return true
      })()
    },

    async listProjects() {
      return db
        .select()
        .from(projects)
        .orderBy(...projectOrder(projects))
        .all()
        .map((row) => projectFromRow(row))
    },

    async getProject(projectId) {
      const row = db.select().from(projects).where(eq(projects.project_id, projectId)).get()
      return row ? projectFromRow(row) : null
    },

    async createApiKey(key) {
      db.insert(apiKeys).values(key).run()
    },

    async listApiKeys(projectId) {
      return keysWithProject()
        .where(keysOf(apiKeys, projectId))
        .orderBy(...keyOrder(apiKeys))
        .all()
        .map(apiKeyFromRow)
    },

    async findApiKey(keyHash): Promise<KeyContext | null> {
      const row = liveKeyByHash.get({ hash: keyHash })
      return row ? keyContextFromRow(row) : null
    },

    async touchApiKey(keyId, at) {
      db.update(apiKeys).set({ last_used_at: at }).where(eq(apiKeys.key_id, keyId)).run()
    },

    async revokeApiKey(keyId, at) {
      db.update(apiKeys).set({ revoked_at: at }).where(activeKeyById(apiKeys, keyId)).run()
      const row = keysWithProject().where(eq(apiKeys.key_id, keyId)).get()
      return row ? apiKeyFromRow(row) : null
    },

    async insertTraces(batch) {
      await logRoom()
      return traces.insertTraces(batch)
    },

    async getTrace(traceId) {
      return traces.getTrace(traceId)
    },

    async listTraces(filter, page) {
      return traces.listTraces(filter, page)
    },

    async listTraceSummaries(filter, page) {
      return traces.listTraceSummaries(filter, page)
    },

    async analytics(params) {
      return traces.analytics(params)
    },

    async failures(params) {
      return traces.failures(params)
    },

    async deleteTraces(selection) {
      if (!background?.running()) return traces.deleteTraces(selection)
      const { deleted, counts } = await background.deleteBatch(selection, traces.keptSearchCounts())
      traces.passSearchCounts(counts)
      return deleted
    },

    async deleteProject(projectId) {
      return writeTransaction(sqlite, () =>
        runSteps(projectDeletion(ROLLUP_TABLES), ({ sql, read }) => {
          const statement = sqlite.prepare(sql)
          return read ? statement.all(projectId).length : statement.run(projectId).changes
        }),
      )()
    },

    async listRetention() {
      return db.select().from(projectRetention).all()
    },

    async setRetention(projectId, settings) {
      if (!db.select().from(projects).where(eq(projects.project_id, projectId)).get()) return false
      db.insert(projectRetention)
        .values({ project_id: projectId, ...settings })
        .onConflictDoUpdate({ target: projectRetention.project_id, set: settings })
        .run()
      return true
    },

    async reclaimSpace() {
      return background?.running() ? background.reclaimSpace() : traces.reclaimSpace()
    },

    walkTraces(filter, chunk, each) {
      return traces.walkTraces(filter, chunk, each)
    },

    alerts,
    windowStats,

    async stats() {
      const pages = sqlite.pragma('page_count', { simple: true }) as number
      const pageSize = sqlite.pragma('page_size', { simple: true }) as number
      return { traces: traces.count(), bytes: pages * pageSize, search_full_counts: traces.searchFullCounts() }
    },

    async listSessions(filter, page) {
      return traces.listSessions(filter, page)
    },

    async getSession(sessionId, projectId, limit) {
      return traces.getSession(sessionId, projectId, limit)
    },

    async listUsers(filter, page) {
      return traces.listUsers(filter, page)
    },

    async getUser(userId, projectId, limit) {
      return traces.getUser(userId, projectId, limit)
    },

    async listPriceRules() {
      return db.select().from(modelPrices).orderBy(asc(modelPrices.pattern)).all()
    },

    async putPriceRule(rule) {
      return writeTransaction(sqlite, () => {
        const existed = db
          .select({ p: modelPrices.pattern })
          .from(modelPrices)
          .where(eq(modelPrices.pattern, rule.pattern))
          .get()
        db.insert(modelPrices).values(rule).onConflictDoUpdate({ target: modelPrices.pattern, set: rule }).run()
        return existed === undefined
      })()
    },

    async deletePriceRule(pattern) {
      return db.delete(modelPrices).where(eq(modelPrices.pattern, pattern)).run().changes > 0
    },

    async repriceTraces(since, reprice) {
      return traces.repriceTraces(since, reprice)
    },

    // One process owns the file: every trace it stores is announced by its own ingest.
    async followReplicas() {
      return async () => {}
    },
    ...pendingSpans,

    async addPendingSpans(spans) {
      await logRoom()
      return pendingSpans.addPendingSpans(spans)
    },
  }
}
