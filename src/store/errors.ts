// What a database error means for a client: the store cannot answer (503, never 500), or cannot take writes because
// it is full or read-only; said without a path or SQL, whichever driver or ORM layer wrapped the error.

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
