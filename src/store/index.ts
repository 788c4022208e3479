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

/** The driver's error code in an error or its causes ('' when none). */
function codeOf(err: unknown): string {
  const coded = causes(err).find((e) => typeof (e as { code?: unknown } | null)?.code === 'string')
  return String((coded as { code?: unknown } | undefined)?.code ?? '')
}

/**
 * Why a write failed when the database cannot take writes though it answers: full (SQLITE_FULL; PostgreSQL 53100
 * disk_full) or read-only (SQLITE_READONLY; 25006 read_only_sql_transaction, a standby); null for anything else.
 */
export function writeFailureOf(err: unknown): 'full' | 'read_only' | null {
  const code = codeOf(err)
  if (code.startsWith('SQLITE_FULL') || code === '53100') return 'full'
  if (code.startsWith('SQLITE_READONLY') || code === '25006') return 'read_only'
  return null
}

/** What a client is told when the store cannot answer: what is wrong, never a path or SQL. */
export function describeStoreUnavailable(err: unknown): string {
  const code = codeOf(err)
  const failure = writeFailureOf(err)
  if (failure === 'full') return 'the database is full (out of disk space?): nothing was stored; retry later'
  if (failure === 'read_only') return 'the database is read-only: nothing was stored; retry later'
  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) return 'the database is busy: retry shortly'
  return 'the store is unavailable: retry later'
}

/** node-postgres' own errors when it has no usable connection (they carry no SQLSTATE). */
const PG_CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client was closed|Client has encountered a connection error|Cannot use a pool after calling end|connection timeout/i

/**
 * Errors that mean the database itself cannot answer (answered with 503, not 500), wherever the driver or the ORM
 * wrapped them: Drizzle throws a DrizzleQueryError whose `cause` is the driver's error.
 */
export function isStoreUnavailableError(err: unknown): boolean {
  return causes(err).some(isUnavailableCause)
}

/** An error and the chain of its causes (bounded: a cause chain may loop). */
function causes(err: unknown): unknown[] {
  const chain: unknown[] = []
  for (let e = err; e !== undefined && e !== null && chain.length < 8 && !chain.includes(e); ) {
    chain.push(e)
    e = (e as { cause?: unknown }).cause
  }
  return chain
}

function isUnavailableCause(err: unknown): boolean {
  if (!(err instanceof Error)) return false
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string') {
    if (/^SQLITE_(BUSY|LOCKED|FULL|READONLY|IOERR|CANTOPEN|CORRUPT|NOTADB|PROTOCOL)/.test(code)) return true
    // Network: the server is down, unreachable or went away.
    if (/^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH)$/.test(code))
      return true
    // PostgreSQL: 08xxx connection exception, 53xxx insufficient resources (53300 too many connections),
    // 57P01–57P03 admin/crash shutdown and cannot connect now, 3D000 database missing.
    // 25006: the database is read-only (a hot standby, default_transaction_read_only).
    if (/^(08...|53...|57P0[123]|3D000|25006)$/.test(code)) return true
  }
  if (PG_CONNECTION_MESSAGES.test(err.message)) return true
  return err instanceof TypeError && /database connection is not open/.test(err.message)
}
