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
