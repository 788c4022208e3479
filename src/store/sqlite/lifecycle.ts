// The SQLite database's lifecycle: the file opened (its folder made), tuned and migrated (the text repaired, the
// rollups and the search index rebuilt when a migration asks), the background worker started; then what the store
// answers of the database itself: ping, the write probe, stats, giving space back, the close.
import { existsSync, mkdirSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { drizzle } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import { packageRoot } from '../../lib/paths.js'
import type { LifecycleStore } from '../types.js'
import { PROBE_BYTES } from '../write-health.js'
import { startBackground } from './background.js'
import type { SqliteContext, SqliteDrizzle } from './context.js'
import { openDatabase } from './driver.js'
import { preparedOnce, queryWith } from './statements.js'
import { apiKeys, projects } from './tables.js'
import { repairTextIfStale } from './text-repair.js'
import { createSqliteSearchCounts } from './trace-rows.js'
import { createTraceWrites } from './trace-writes.js'
import { writeTransaction } from './write-transaction.js'

/** SQLITE_WAL_MAX_BYTES' default: 64 MiB. */
export const DEFAULT_WAL_MAX_BYTES = 67_108_864

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

/** Opens (creates, migrates) the database `url` names: the context its sub-stores are made from. */
export function openSqlite(url: string, options: SqliteStoreOptions = {}): SqliteContext {
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
  const db: SqliteDrizzle = drizzle(sqlite, { schema: { projects, apiKeys } })
  if (options.migrate !== false) migrate(db, { migrationsFolder: join(packageRoot(), 'drizzle', 'sqlite') })
  const writes = createTraceWrites(sqlite)
  if (options.migrate !== false) {
    repairTextIfStale(sqlite)
    writes.rebuildRollupsIfStale()
    writes.rebuildSearchIfStale()
  }
  // A file's log is checkpointed, and its deletions run, by a worker off the event loop (background.ts); an in-memory
  // database cannot be shared with another connection, and does both on the event loop.
  const background =
    sqlite.pragma('journal_mode', { simple: true }) === 'wal' ? startBackground(sqlite, path, walMaxBytes) : null
  const stmt = preparedOnce(sqlite)
  return {
    sqlite,
    db,
    background,
    // Checked again after each wait, and with no await between the check that passes and the write: writers that
    // waited together for one checkpoint cannot each add a transaction past the bound.
    async logRoom() {
      for (let wait = background?.logRoom(); wait; wait = background?.logRoom()) await wait
    },
    writes,
    searchCounts: createSqliteSearchCounts(),
    stmt,
    rawStmt: preparedOnce(sqlite, true),
    query: queryWith(stmt),
  }
}

export function createSqliteLifecycle({ sqlite, background, writes, searchCounts }: SqliteContext): LifecycleStore {
  const probe = writeTransaction(sqlite, () => {
    sqlite
      .prepare("insert or replace into loupe_meta (key, value) values ('write_probe', hex(randomblob(?)))")
      .run(PROBE_BYTES / 2)
    sqlite.prepare("delete from loupe_meta where key = 'write_probe'").run()
  })
  return {
    dialect: 'sqlite',
    blocksEventLoop: true,

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

    async stats() {
      const pages = sqlite.pragma('page_count', { simple: true }) as number
      const pageSize = sqlite.pragma('page_size', { simple: true }) as number
      // Every stored trace, counted from the rollups.
      const { n } = sqlite.prepare('select coalesce(sum(traces), 0) as n from rollup_totals').get() as { n: number }
      return { traces: n, bytes: pages * pageSize, search_full_counts: searchCounts.fullCounts() }
    },

    async reclaimSpace() {
      return background?.running() ? background.reclaimSpace() : writes.reclaimSpace()
    },

    // One process owns the file: every trace it stores is announced by its own ingest.
    async followReplicas() {
      return async () => {}
    },
  }
}
