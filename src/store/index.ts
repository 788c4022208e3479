// Picks the store implementation from the database URL.
import { createSqliteStore } from './sqlite/store.js'
import type { Store } from './types.js'

export type { Store } from './types.js'

export async function createStore(databaseUrl: string): Promise<Store> {
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error('PostgreSQL is not supported by this build yet: use a SQLite path or :memory:')
  }
  return createSqliteStore(databaseUrl)
}

/** What a client is told when the store cannot answer: what is wrong, never a path or SQL. */
export function describeStoreUnavailable(err: unknown): string {
  const code = String((err as { code?: unknown } | null)?.code ?? '')
  if (code.startsWith('SQLITE_FULL'))
    return 'the database is full (out of disk space?): nothing was stored; retry later'
  if (code.startsWith('SQLITE_READONLY')) return 'the database is read-only: nothing was stored; retry later'
  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) return 'the database is busy: retry shortly'
  return 'the store is unavailable: retry later'
}

/** Errors that mean the database itself cannot answer (answered with 503, not 500). */
export function isStoreUnavailableError(err: unknown): boolean {
  if (!(err instanceof Error)) return false
  const code = (err as { code?: unknown }).code
  if (
    typeof code === 'string' &&
    /^SQLITE_(BUSY|LOCKED|FULL|READONLY|IOERR|CANTOPEN|CORRUPT|NOTADB|PROTOCOL)/.test(code)
  ) {
    return true
  }
  return err instanceof TypeError && /database connection is not open/.test(err.message)
}
