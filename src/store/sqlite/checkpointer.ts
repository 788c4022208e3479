// Checkpoints of a SQLite file's write-ahead log, off the event loop. SQLite's own automatic checkpoint runs inside the
// commit that crosses its threshold, on the connection that committed: on the event loop, copying some megabytes into
// the database file and syncing it, while every request waits (a deletion batch at 1M traces, 20 ms of work, then
// held the loop for over 100 ms). Here a worker thread with a connection of its own copies the log every
// CHECKPOINT_EVERY_MS in PASSIVE mode, which never waits for (nor holds up) the readers and the writer; the event loop's
// connection no longer checkpoints, unless the worker stops.
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type Database from 'better-sqlite3'

/** How often the worker copies what the log holds into the database file. */
export const CHECKPOINT_EVERY_MS = 200
/** SQLite's default threshold (in pages), what the event loop's connection goes back to if the worker stops. */
const AUTOCHECKPOINT_PAGES = 1000

// CommonJS, evaluated: no file of its own to find, whether the server runs built or from its TypeScript sources.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.path, { fileMustExist: true })
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)')
  } catch (err) {
    // Another connection checkpointing (a backup, a CLI command) answers busy: the next turn copies what is left.
    if (err.code !== 'SQLITE_BUSY' && err.code !== 'SQLITE_LOCKED') throw err
  }
}, workerData.everyMs)
parentPort.once('message', () => {
  clearInterval(timer)
  db.close()
  parentPort.close()
})
`

export interface Checkpointer {
  /** Stops the worker and closes its connection (the caller's close then makes the last checkpoint). */
  stop(): Promise<void>
}

/** Starts checkpointing `path` (a WAL database that `sqlite`, the event loop's connection, has open). */
export function startCheckpointer(sqlite: Database.Database, path: string): Checkpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      path,
      everyMs: CHECKPOINT_EVERY_MS,
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
    },
  })
  // The worker must not keep a process alive that has nothing else to do (a CLI command that forgot to close).
  worker.unref()
  sqlite.pragma('wal_autocheckpoint = 0')
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
  // A worker that fails hands the checkpoints back to the event loop's connection: slower commits, never a log that
  // grows without end.
  worker.once('error', () => {
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`)
  })
  return {
    async stop() {
      // Unreferenced, the worker would not keep the process alive until it has stopped, and the wait would never end.
      worker.ref()
      worker.postMessage('stop')
      await exited
    },
  }
}
