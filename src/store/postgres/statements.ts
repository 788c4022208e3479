// How statements run on PostgreSQL: on the pool or one client (Queryable), as named statements each connection
// prepares once, row by row as they arrive, and in transactions tried again on a deadlock or serialization failure.
import { createHash } from 'node:crypto'
import pg, { type QueryResultRow } from 'pg'
import type { Query } from '../read-queries.js'
import { encodeText } from './nul.js'

/** What runs a statement: the pool, or one client inside a transaction. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<{ rows: R[] }>
  query<R extends QueryResultRow = QueryResultRow>(config: {
    name: string
    text: string
    values?: unknown[]
  }): Promise<{ rows: R[] }>
}

/** Each statement text's name: the same text has the same name on every connection. */
const statementNames = new Map<string, string>()

/**
 * Runs a read as a named statement: each connection parses it once and keeps it (PostgreSQL then also decides, after a
 * few runs, whether one generic plan serves every parameter as well as planning each run). The texts are the few
 * shapes the read plan builds, so the names stay few.
 */
export async function prepared<R extends QueryResultRow>(db: Queryable, text: string, values: unknown[]): Promise<R[]> {
  return (await db.query<R>({ name: statementName(text), text, values })).rows
}

/** The name a statement text is prepared under. */
export function statementName(text: string): string {
  let name = statementNames.get(text)
  if (name === undefined) {
    name = `loupe_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`
    statementNames.set(text, name)
  }
  return name
}

/**
 * Runs a read whose rows are handed to `each` one by one as they arrive, instead of being gathered by the driver until
 * the last one: a row is garbage as soon as `each` is done with it. A chunk of rows held for the whole read outlived
 * the young generation, so that an export of a million traces grew the heap by hundreds of MB of garbage.
 */
export function eachRow<R extends QueryResultRow, T>(
  db: pg.ClientBase,
  statement: { name?: string; text: string; values: unknown[] },
  each: (row: R) => T,
): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const out: T[] = []
    // A throw out of a row listener would land in the driver's socket handler: it is kept, and the read fails at its end.
    let failure: { err: unknown } | undefined
    const query = new pg.Query<R>(statement)
    query.on('row', (row: R) => {
      if (failure) return
      try {
        out.push(each(row))
      } catch (err) {
        failure = { err }
      }
    })
    query.on('error', reject)
    query.on('end', () => (failure ? reject(failure.err) : resolve(out)))
    db.query(query)
  })
}

/** Errors after which the same transaction, tried again, may well succeed. */
const RETRYABLE = new Set(['40001', '40P01']) // serialization failure, deadlock detected
const TRANSACTION_ATTEMPTS = 5

/** A transaction runner over `pool`, and the read-only snapshots built on it. */
export function transactionsOf(pool: pg.Pool) {
  /** Runs `fn` in a transaction, again on a deadlock or serialization failure. */
  async function transaction<T>(fn: (client: pg.PoolClient) => Promise<T>, begin = 'begin'): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await pool.connect()
      let broken: Error | undefined
      try {
        await client.query(begin)
        const result = await fn(client)
        await client.query('commit')
        return result
      } catch (err) {
        await client.query('rollback').catch((e: Error) => {
          broken = e
        })
        const code = (err as { code?: string }).code
        if (attempt < TRANSACTION_ATTEMPTS && code !== undefined && RETRYABLE.has(code)) continue
        throw err
      } finally {
        client.release(broken)
      }
    }
  }

  /** Reads of several statements see one snapshot (totals, histograms and pages agree with each other). */
  const snapshot = <T>(fn: (client: pg.PoolClient) => Promise<T>) =>
    transaction(fn, 'begin isolation level repeatable read read only')

  return { transaction, snapshot }
}

export type Transaction = ReturnType<typeof transactionsOf>['transaction']

/** A statement built with `$n` markers (text through the U+0000 escape), run as a named statement on `db`. */
export const queryWith =
  (db: Queryable): Query =>
  async <R>(build: (bind: (value: unknown) => string) => string) => {
    const params: unknown[] = []
    const text = build((value) => {
      params.push(typeof value === 'string' ? encodeText(value) : value)
      return `$${params.length}`
    })
    return (await prepared(db, text, params)) as R[]
  }
