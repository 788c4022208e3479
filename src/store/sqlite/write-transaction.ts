// Transactions that write, begun IMMEDIATE: they take the write lock before their first read. A file's deletions
// commit from another connection (background.ts); a transaction begun DEFERRED that read before such a commit could
// not write after it (SQLITE_BUSY_SNAPSHOT, with no wait or retry: a failed request), whereas one that takes the lock
// first waits for the other writer's short transaction (busy_timeout) and reads what it committed.
import type Database from 'better-sqlite3'

// biome-ignore lint/suspicious/noExplicitAny: the arguments are the transaction's own, as better-sqlite3 types them.
export function writeTransaction<F extends (...args: any[]) => unknown>(db: Database.Database, fn: F) {
  return db.transaction(fn).immediate
}
