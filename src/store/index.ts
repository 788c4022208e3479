// Picks the store implementation from the database URL: postgres:// or postgresql:// → PostgreSQL, else SQLite.

import type { FeedLog } from './postgres/replica-feed.js'
import { createPostgresStore } from './postgres/store.js'
import { createSqliteStore } from './sqlite/store.js'
import type { Store } from './types.js'

export type { Store } from './types.js'

export const isPostgresUrl = (databaseUrl: string) => /^postgres(ql)?:\/\//i.test(databaseUrl)

export interface CreateStoreOptions {
  /** Where the PostgreSQL store reports lost and regained connections. */
  log?: FeedLog
}

export async function createStore(databaseUrl: string, options: CreateStoreOptions = {}): Promise<Store> {
  if (isPostgresUrl(databaseUrl)) return createPostgresStore(databaseUrl, { log: options.log })
  return createSqliteStore(databaseUrl)
}

/** What a client is told when the store cannot answer: what is wrong, never a path or SQL. */
export function describeStoreUnavailable(err: unknown): string {
  const coded = causes(err).find((e) => typeof (e as { code?: unknown } | null)?.code === 'string')
  const code = String((coded as { code?: unknown } | undefined)?.code ?? '')
  if (code.startsWith('SQLITE_FULL'))
    return 'the database is full (out of disk space?): nothing was stored; retry later'
  if (code.startsWith('SQLITE_READONLY')) return 'the database is read-only: nothing was stored; retry later'
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
    if (/^(08...|53...|57P0[123]|3D000)$/.test(code)) return true
  }
  if (PG_CONNECTION_MESSAGES.test(err.message)) return true
  return err instanceof TypeError && /database connection is not open/.test(err.message)
}
