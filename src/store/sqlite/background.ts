// The work on a SQLite file that no request waits for, off the event loop: one worker thread with a connection of its
// own checkpoints the write-ahead log and runs the deletions' batches and the steps that give their space back.
// Checkpoints: SQLite's own automatic checkpoint runs inside the commit that crosses its threshold, on the connection
// that committed, copying some megabytes into the file and syncing it while every request waits; here the worker copies
// the log every CHECKPOINT_EVERY_MS in PASSIVE mode, which never waits for (nor holds up) the readers and the writer.
// A PASSIVE checkpoint alone never bounds the log: the log starts again from its beginning only once every frame in it
// was copied, and under sustained ingest new frames arrive while the copy runs, so it grew by gigabytes. Once the file
// passes its bound (SQLITE_WAL_MAX_BYTES), the worker runs a TRUNCATE checkpoint right after the PASSIVE one: it holds
// writers (they wait, busy_timeout) only while it copies what arrived since and empties the file. A log that was
// copied whole and took no new frame for a turn is emptied the same way (nothing to copy), so it shrinks back after a
// burst. journal_size_limit does the same for a log started again by any other path (the close, another connection).
// Deletions: a batch paced to 15 ms still took over 100 ms now and then at 1M traces (merges of the search index, page
// faults), each time holding every read; on the worker's connection it holds only the write lock, and the event loop
// goes on answering reads from its own snapshot (an ingest meanwhile waits for the batch, busy_timeout).
import { statSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import type Database from 'better-sqlite3'
import type { RemovableCount } from '../search-counts.js'
import type { DeleteSelection } from '../types.js'
import { driverPath } from './driver.js'
import type { DeletedBatch } from './trace-writes.js'

/** How often the worker copies what the log holds into the database file. */
export const CHECKPOINT_EVERY_MS = 200
/** How long emptying the log waits for readers to leave it (holding the writers meanwhile). */
const TRUNCATE_WAIT_MS = 100
/** SQLite's default threshold (in pages), what the event loop's connection goes back to if the worker stops. */
const AUTOCHECKPOINT_PAGES = 1000

// CommonJS, evaluated: no file of its own to find, whether the server runs built or from its TypeScript sources. The
// deletion code is trace-writes.ts' own, imported at the first deletion only (a worker that only checkpoints stays
// small); from the TypeScript sources (tests, development) through tsx, which a worker does not inherit.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.path, { fileMustExist: true })
db.pragma('synchronous = NORMAL')
db.pragma('busy_timeout = ' + workerData.busyMs)
db.pragma('foreign_keys = ON')
db.pragma('temp_store = MEMORY')
db.pragma('wal_autocheckpoint = 0')
db.pragma('journal_size_limit = ' + workerData.walMaxBytes)
const { statSync } = require('node:fs')
const walPath = workerData.path + '-wal'
const walBytes = () => statSync(walPath, { throwIfNoEntry: false })?.size ?? 0
let lastLog = -1
const checkpoint = (mode) => {
  try {
    return db.pragma('wal_checkpoint(' + mode + ')')[0]
  } catch (err) {
    // Another connection checkpointing (a backup, a CLI command) answers busy: the next turn copies what is left.
    if (err.code !== 'SQLITE_BUSY' && err.code !== 'SQLITE_LOCKED') throw err
    return null
  }
}
// TRUNCATE holds the write lock while it waits for readers to leave the log: a reader that keeps an old snapshot (a
// backup, another process's long query) would hold every writer for the whole busy_timeout, and they would fail busy.
// So it waits a short time only; not emptied then, the writers go on for a second (logRoom) and it tries again.
const truncate = () => {
  db.pragma('busy_timeout = ' + workerData.truncateWaitMs)
  try {
    return checkpoint('TRUNCATE')
  } finally {
    db.pragma('busy_timeout = ' + workerData.busyMs)
  }
}
const turn = () => {
  const copied = checkpoint('PASSIVE')
  if (!copied) return
  const settled = copied.log > 0 && copied.checkpointed === copied.log && copied.log === lastLog
  lastLog = copied.log
  // Over its bound (what arrived during the PASSIVE copy counts too), or copied whole and idle: empty the file.
  if (settled || walBytes() > workerData.walMaxBytes) {
    const emptied = truncate()
    if (emptied && emptied.busy === 0) lastLog = 0
  }
}
const timer = setInterval(turn, workerData.everyMs)
let queries
const load = () =>
  (queries ??= (workerData.tsx
    ? import(workerData.tsx).then((tsx) => tsx.tsImport(workerData.queries, workerData.queries))
    : import(workerData.queries)
  ).then((module) => module.createTraceWrites(db)))
parentPort.on('message', async (message) => {
  if (message.op === 'empty') {
    // The writers wait for this answer: the whole copy at once, nothing to race with.
    const emptied = truncate()
    if (emptied && emptied.busy === 0) lastLog = 0
    return parentPort.postMessage({ id: message.id, result: emptied !== null && emptied.busy === 0 })
  }
  if (message.op === 'stop') {
    clearInterval(timer)
    db.close()
    parentPort.close()
    return
  }
  try {
    const traces = await load()
    const result = message.op === 'delete' ? traces.deleteBatch(message.selection, message.kept) : traces.reclaimSpace()
    parentPort.postMessage({ id: message.id, result })
  } catch (err) {
    parentPort.postMessage({ id: message.id, error: { message: String(err && err.message), code: err && err.code } })
  }
})
`

type Reply =
  | { id: number; result: unknown; error?: undefined }
  | { id: number; error: { message: string; code?: string } }

export interface Background {
  /** Whether the worker still takes work (false once it failed or was stopped). */
  running(): boolean
  /**
   * Deletes a batch on the worker's connection (trace-writes.ts' deleteBatch, given the search counts the caller keeps);
   * rejects once the worker has stopped.
   */
  deleteBatch(selection: DeleteSelection, kept: readonly RemovableCount<number>[]): Promise<DeletedBatch>
  /**
   * Awaited before a bulk write (a batch of traces, OTLP spans): at once while the log is within its bound; past it,
   * once the worker has emptied it (the writers wait, the reads go on). A checkpoint that cannot finish (a reader
   * holds an old snapshot for seconds) lets writes through for a second before they wait again.
   */
  logRoom(): Promise<void> | undefined
  /** One step of giving freed pages back (trace-writes.ts' reclaimSpace), on the worker's connection. */
  reclaimSpace(): Promise<boolean>
  /** Stops the worker once its current step is done and closes its connection (the caller's close then checkpoints). */
  stop(): Promise<void>
}

/** Starts the background work on `path` (a WAL database that `sqlite`, the event loop's connection, has open). */
export function startBackground(sqlite: Database.Database, path: string, walMaxBytes: number): Background {
  const fromSources = import.meta.url.endsWith('.ts')
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      path,
      everyMs: CHECKPOINT_EVERY_MS,
      walMaxBytes,
      busyMs: sqlite.pragma('busy_timeout', { simple: true }),
      truncateWaitMs: TRUNCATE_WAIT_MS,
      driver: driverPath(),
      queries: new URL(fromSources ? './trace-writes.ts' : './trace-writes.js', import.meta.url).href,
      tsx: fromSources ? import.meta.resolve('tsx/esm/api') : undefined,
    },
  })
  // The worker must not keep a process alive that has nothing else to do (a CLI command that forgot to close), but it
  // does while a caller waits for its answer.
  worker.unref()
  sqlite.pragma('wal_autocheckpoint = 0')
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>()
  let next = 0
  let gone: Error | null = null
  const settle = (id: number) => {
    const caller = waiting.get(id)
    waiting.delete(id)
    if (waiting.size === 0 && !gone) worker.unref()
    return caller
  }
  worker.on('message', (reply: Reply) => {
    const caller = settle(reply.id)
    if (reply.error) caller?.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }))
    else caller?.resolve(reply.result)
  })
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      gone ??= new Error('The database is closed')
      for (const id of [...waiting.keys()]) settle(id)?.reject(gone)
      resolve()
    }),
  )
  // A worker that fails hands the checkpoints back to the event loop's connection: slower commits, never a log that
  // grows without end.
  worker.once('error', (err) => {
    gone = err
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`)
  })
  const ask = <T>(message: object) =>
    new Promise<T>((resolve, reject) => {
      if (gone) return reject(gone)
      const id = next++
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject })
      worker.ref()
      worker.postMessage({ ...message, id })
    })
  const walPath = `${path}-wal`
  let emptying: Promise<void> | undefined
  let ungatedUntil = 0
  return {
    running: () => gone === null,
    logRoom() {
      if (emptying || gone) return emptying
      if (Date.now() < ungatedUntil || (statSync(walPath, { throwIfNoEntry: false })?.size ?? 0) <= walMaxBytes) return
      emptying = ask<boolean>({ op: 'empty' }).then(
        (emptied) => {
          if (!emptied) ungatedUntil = Date.now() + 1000
        },
        () => {},
      )
      emptying.finally(() => (emptying = undefined))
      return emptying
    },
    deleteBatch: (selection, kept) => ask({ op: 'delete', selection, kept }),
    reclaimSpace: () => ask({ op: 'reclaim' }),
    async stop() {
      // Unreferenced, the worker would not keep the process alive until it has stopped, and the wait would never end.
      worker.ref()
      if (!gone) worker.postMessage({ op: 'stop' })
      gone ??= new Error('The database is closed')
      await exited
    },
  }
}
