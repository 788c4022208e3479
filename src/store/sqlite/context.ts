// What every SQLite sub-store is made from: the connection and Drizzle over it, the background worker, the gate of
// bulk writes, the trace writes prepared once, and the search counts the trace store keeps (lifecycle.ts opens it).
import type Database from 'better-sqlite3'
import { eq } from 'drizzle-orm'
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Query } from '../read-queries.js'
import type { Background } from './background.js'
import type { SqliteDatabase } from './driver.js'
import type { apiKeys, projects } from './tables.js'
import type { SqliteSearchCounts } from './trace-rows.js'
import type { TraceWrites } from './trace-writes.js'

export type SqliteDrizzle = BetterSQLite3Database<{ projects: typeof projects; apiKeys: typeof apiKeys }>

export interface SqliteContext {
  sqlite: SqliteDatabase
  db: SqliteDrizzle
  /** The worker that checkpoints a file's log and runs its deletions (background.ts); null in memory. */
  background: Background | null
  /** Awaited before a bulk write (a batch of traces, OTLP spans): the write-ahead log has room again (background.ts). */
  logRoom(): Promise<void>
  /** The trace writes (trace-writes.ts), prepared at open: its rebuilds ran then. */
  writes: TraceWrites
  searchCounts: SqliteSearchCounts
  /** Statements prepared once per distinct SQL text, shared by the sub-stores that build their SQL. */
  stmt(text: string): Database.Statement
  /** The same, for statements whose rows are read as arrays. */
  rawStmt(text: string): Database.Statement
  /** A statement built with `?` markers, run through `stmt`: its rows. */
  query: Query
}

/** Whether `table` has a row whose `column` is `value`. */
export const rowExists = (db: SqliteDrizzle, table: SQLiteTable, column: SQLiteColumn, value: string): boolean =>
  db.select({ column }).from(table).where(eq(column, value)).get() !== undefined
