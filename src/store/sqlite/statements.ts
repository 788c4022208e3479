// How statements run on SQLite: each distinct SQL text prepared once per connection, and a statement built with `?`
// markers run with its values in order.
import type Database from 'better-sqlite3'
import type { Query } from '../read-queries.js'

/** `stmt` of a context: each distinct SQL text prepared once (`raw`: its rows read as arrays). */
export function preparedOnce(db: Database.Database, raw = false): (text: string) => Database.Statement {
  const cache = new Map<string, Database.Statement>()
  return (text) => {
    let s = cache.get(text)
    if (!s) {
      s = raw ? db.prepare(text).raw(true) : db.prepare(text)
      cache.set(text, s)
    }
    return s
  }
}

/** `query` of a context: the statement built with `?` markers, its values bound in order. */
export const queryWith =
  (stmt: (text: string) => Database.Statement): Query =>
  async <R>(build: (bind: (value: unknown) => string) => string) => {
    const params: unknown[] = []
    const text = build((value) => {
      params.push(value)
      return '?'
    })
    return stmt(text).all(...params) as R[]
  }
