// Picks the store implementation from the database URL: postgres:// or postgresql:// → PostgreSQL, else SQLite.

import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { SettingError } from '../errors.js'
import { redactPassword } from '../lib/credentials.js'
import { NativeModuleError } from '../lib/native.js'
import type { FeedLog } from './postgres/replica-feed.js'
import { createPostgresStore } from './postgres/store.js'
import { createSqliteStore, sqlitePath } from './sqlite/store.js'
import type { Store } from './types.js'

export { describeStoreUnavailable, isStoreUnavailableError, writeFailureOf } from './errors.js'
export type { Store } from './types.js'

export const isPostgresUrl = (databaseUrl: string) => /^postgres(ql)?:\/\//i.test(databaseUrl)

export interface CreateStoreOptions {
  /** Where the PostgreSQL store reports lost and regained connections. */
  log?: FeedLog
  /** SQLite: the write-ahead log's bound in bytes (SQLITE_WAL_MAX_BYTES). */
  walMaxBytes?: number
}

/** A URL with a scheme (two letters or more: `C:\\…` is a Windows path) that is neither `file:` nor PostgreSQL's. */
const OTHER_SCHEME = /^(?!file:)[a-z][a-z0-9+.-]+:/i

/**
 * Opens (and migrates) the store `databaseUrl` names. A URL it cannot use — an unknown scheme, a path that cannot be
 * opened or created, a PostgreSQL that does not answer — is a SettingError saying so in one sentence.
 */
export async function createStore(databaseUrl: string, options: CreateStoreOptions = {}): Promise<Store> {
  const shown = `'${redactPassword(databaseUrl)}'`
  if (isPostgresUrl(databaseUrl)) {
    try {
      return await createPostgresStore(databaseUrl, { log: options.log })
    } catch (err) {
      throw new SettingError(`DATABASE_URL ${shown}: ${describePostgresFailure(err)}.`)
    }
  }
  if (OTHER_SCHEME.test(databaseUrl) && databaseUrl !== ':memory:') {
    throw new SettingError(
      `DATABASE_URL ${shown} is not a database Loupe can use: give a SQLite file (a path or a file: URL), ` +
        ':memory:, or a PostgreSQL URL (postgres://user:password@host:5432/database).',
    )
  }
  try {
    return createSqliteStore(databaseUrl, { walMaxBytes: options.walMaxBytes })
  } catch (err) {
    // A driver that cannot load is the installation's fault, not the path's: its own sentence says how to fix it.
    if (err instanceof NativeModuleError) throw err
    throw new SettingError(`DATABASE_URL ${shown}: ${describeSqliteFailure(err, databaseUrl)}.`)
  }
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err))

function describePostgresFailure(err: unknown): string {
  const code = String((err as { code?: unknown })?.code ?? '')
  if (code === 'ECONNREFUSED')
    return 'PostgreSQL does not answer there (connection refused): start it, or fix the host and port'
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'its host name does not resolve: fix the host'
  if (code === '3D000') return 'that database does not exist: create it (createdb), or name another'
  if (code === '28P01' || code === '28000') return 'PostgreSQL refused the user or password'
  if (err instanceof Error && err.message.startsWith('DATABASE_URL')) return err.message.replace(/^DATABASE_URL: /, '')
  return `PostgreSQL cannot be used (${reason(err)})`
}

function describeSqliteFailure(err: unknown, databaseUrl: string): string {
  const code = String((err as { code?: unknown })?.code ?? '')
  const path = sqlitePath(databaseUrl)
  if (code === 'SQLITE_CANTOPEN' && existsSync(path) && statSync(path).isDirectory()) {
    return `${path} is a folder, not a file: give a file path such as ${join(path, 'loupe.db')}`
  }
  if (code === 'SQLITE_NOTADB') return `${path} is not a SQLite database: give a new path, or a Loupe database`
  if (code === 'SQLITE_READONLY' || code === 'EACCES' || code === 'EPERM') {
    return `${path} cannot be written (permission denied): give a path Loupe may write`
  }
  return `cannot open or create the SQLite file ${path} (${reason(err)}): give a path Loupe can create and write`
}
