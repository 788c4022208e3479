// Trace writes on SQLite, each in one transaction: a batch stored with its search text and every rollup it changes, a
// batch deleted with the exact inverse (search counts passed past it), a chunk re-priced, and the rebuilds a migration
// asks for. Prepared once per connection: the event loop's (traces.ts) and the background worker's (background.ts),
// which imports this module to delete batches and give their space back off the event loop.
import type Database from 'better-sqlite3'
import { searchText, type Trace } from '../../../schemas/index.js'
import { jobRowsOf } from '../evaluation-jobs.js'
import { type PricedTrace, parseReportedCosts } from '../reported-cost.js'
import { costsDiffer, REPRICE_CHUNK, type RepriceChunk, type RepricePosition } from '../reprice.js'
import { REBUILD_CHUNK, ROLLUP_SOURCE_COLUMNS, type RollupRow, rollupInput } from '../rollup-rebuild.js'
import {
  deltaRows,
  REBUILD_CALL_TOTALS,
  ROLLUP_KEYS,
  ROLLUP_TABLES,
  removalDeltas,
  rollupDeltas,
  type SessionDelta,
  type TraceCallRow,
  traceCallRows,
  type UserDelta,
} from '../rollups.js'
import { deleteScoresOfTraces } from '../score-writes.js'
import {
  BUMP_REMOVALS,
  BUMP_REMOVALS_RETURNING,
  type PassedCount,
  passRemoval,
  type RemovableCount,
  removableOf,
} from '../search-counts.js'
import type { DeletedTrace, DeleteSelection, InsertOutcome, Repricer } from '../types.js'
import { runPlan, SQLITE_PLANS } from './plan.js'
import { createRollupWrites } from './rollup-writes.js'
import { preparedOnce } from './statements.js'
import { COLUMNS, fromRow, fromValues, type RawTraceRow, TRACE_COLUMNS, toRow, where } from './trace-rows.js'
import { writeTransaction } from './write-transaction.js'

/** A batch deleted: its traces, and the search counts given to it past the deletion. */
export interface DeletedBatch {
  deleted: DeletedTrace[]
  counts: PassedCount<number>[]
}

export type TraceWrites = ReturnType<typeof createTraceWrites>

// A session's or a user's activity span and a session's user are a minimum, a maximum and a first: worked out again
// from the traces left (each one seek of the session's or the user's index), but only those the deleted traces may
// have been (@first_at, @last_at and @user_at are theirs): deleting the oldest traces moves a first_at, seldom a
// last_at. An update reads the row's old values throughout, so a condition sees the span as it was. `+project_id`
// keeps the project's own index out: with a file's statistics SQLite chose to walk the whole project in time order
// (traces_project_created) looking for the session's or the user's first and last trace, instead of the few entries
// of the session's or the user's index.
const spanOf = (column: string) => {
  const ofKey = `from traces where ${column} = @${column} and +project_id = @project_id`
  return `
      first_at = case when @first_at <= first_at then (select created_at ${ofKey} order by created_at limit 1)
                 else first_at end,
      last_at = case when @last_at >= last_at then (select created_at ${ofKey} order by created_at desc limit 1)
                else last_at end`
}
const sessionUser = `from traces where session_id = @session_id and +project_id = @project_id and user_id is not null
                       order by created_at, user_id limit 1`
const userGone = '@user_at is not null and user_at is not null and @user_at <= user_at'
/** A session's span and user worked out again from its traces left (a deletion). */
export const RESPAN_SESSION = `update session_totals set ${spanOf('session_id')},
       user_id = case when ${userGone} then (select user_id ${sessionUser}) else user_id end,
       user_at = case when ${userGone} then (select created_at ${sessionUser}) else user_at end
     where project_id = @project_id and session_id = @session_id`
/** A user's span worked out again from its traces left (a deletion). */
export const RESPAN_USER = `update user_totals set ${spanOf('user_id')} where project_id = @project_id and user_id = @user_id`

export function createTraceWrites(db: Database.Database) {
  const stmt = preparedOnce(db)
  const insertTrace = db.prepare(
    `insert into traces (${COLUMNS.join(', ')}) values (${COLUMNS.map((c) => `@${c}`).join(', ')})
     on conflict (trace_id) do nothing`,
  )
  const traceById = db.prepare(`select ${TRACE_COLUMNS} from traces where trace_id = ?`).raw(true)
  // The searchable text of each trace, under the trace's rowid, in the same transaction (schemas/search.ts).
  const insertSearch = db.prepare('insert into traces_search (rowid, body) values (?, ?)')
  const applyDeltas = createRollupWrites(db)
  // Each trace's calls of agents and tools (rollups.ts), in its transaction.
  const insertCalls = db.prepare(
    `insert into trace_calls (trace_id, project_id, kind, name, calls, failures, latency_micros, timed)
     values (@trace_id, @project_id, @kind, @name, @calls, @failures, @latency_micros, @timed)`,
  )
  const deleteCalls = db.prepare(
    `delete from trace_calls where trace_id = ?
     returning trace_id, project_id, kind, name, calls, failures, latency_micros, timed`,
  )
  // The evaluations a new trace is due for, in its transaction (evaluation-jobs.ts).
  const insertJob = db.prepare(
    `insert into evaluation_jobs (project_id, evaluator_id, trace_id, run_id, attempts, due_at, created_at)
     values (@project_id, @evaluator_id, @trace_id, @run_id, 0, @due_at, @created_at)
     on conflict (evaluator_id, trace_id) do nothing`,
  )

  /** Trace rows and their rollups in one transaction: a crash keeps both or neither. */
  const insertBatch = writeTransaction(db, (batch: readonly PricedTrace[]): InsertOutcome[] => {
    const created: Trace[] = []
    const createdPriced: PricedTrace[] = []
    const calls: TraceCallRow[] = []
    const outcomes = batch.map((priced): InsertOutcome => {
      const { trace } = priced
      const inserted = insertTrace.run(toRow(priced))
      if (inserted.changes === 1) {
        insertSearch.run(inserted.lastInsertRowid, searchText(trace))
        for (const call of traceCallRows(trace)) {
          insertCalls.run(call)
          calls.push(call)
        }
        created.push(trace)
        createdPriced.push(priced)
        return { kind: 'created', trace }
      }
      const existing = fromValues(traceById.get(trace.trace_id) as unknown[])
      return existing.project_id === trace.project_id
        ? { kind: 'exists', trace: existing }
        : { kind: 'conflict', trace_id: trace.trace_id }
    })
    applyDeltas(rollupDeltas(created, [], { added: calls }))
    for (const job of jobRowsOf(createdPriced)) insertJob.run(job)
    return outcomes
  })

  const rollupSource = db.prepare(
    `select rowid as cursor, ${ROLLUP_SOURCE_COLUMNS} from traces where rowid > ? order by rowid limit ?`,
  )
  const bumpRemovals = db.prepare(BUMP_REMOVALS)
  const bumpRemovalsReturning = db.prepare(BUMP_REMOVALS_RETURNING)
  const lastRowid = db.prepare('select coalesce(max(rowid), 0) as top from traces')

  const deleteByRowid = db.prepare('delete from traces where rowid = ?')
  const deleteSearch = db.prepare('delete from traces_search where rowid = ?')
  /** Per rollup table: its row of these keys, when no trace is left in it (a recount would not have it). */
  const dropEmpty = Object.fromEntries(
    Object.entries(ROLLUP_KEYS).map(([table, keys]) => [
      table,
      db.prepare(`delete from ${table} where ${keys.map((k) => `${k} = @${k}`).join(' and ')} and traces = 0`),
    ]),
  ) as Record<keyof typeof ROLLUP_KEYS, Database.Statement>
  const respanSession = db.prepare(RESPAN_SESSION)
  const respanUser = db.prepare(RESPAN_USER)

  /**
   * Deletes the oldest matches in one transaction: their rows and search entries, and what they added to the rollups
   * — the exact inverse of insertBatch (removalDeltas) — then the rollup rows they touched that hold no trace any more
   * go, and the sessions and users they belonged to get their span (and a session its user) from the traces left.
   */
  const deleteBatch = writeTransaction(
    db,
    ({ filter, trace_ids, limit }: DeleteSelection, kept: readonly RemovableCount<number>[]): DeletedBatch => {
      const w = where(filter, trace_ids ? { traceIds: trace_ids } : {})
      const rows = stmt(
        `select rowid as row_id, trace_id, ${ROLLUP_SOURCE_COLUMNS} from traces ${w.sql}
         order by created_at, trace_id limit ?`,
      ).all(...w.params, limit) as (RollupRow & { trace_id: string; row_id: number })[]
      if (rows.length === 0) return { deleted: [], counts: [] }
      const { value: bumped } = bumpRemovalsReturning.get() as { value: string }
      const counts = lessOfCounts(rows, bumped, kept)
      const calls: TraceCallRow[] = []
      for (const row of rows) {
        deleteByRowid.run(row.row_id)
        deleteSearch.run(row.row_id)
        calls.push(...(deleteCalls.all(row.trace_id) as TraceCallRow[]))
      }
      runPlan(
        stmt,
        deleteScoresOfTraces(
          SQLITE_PLANS,
          rows.map((r) => r.trace_id),
        ),
      )
      // A freed rowid is given again only above the highest one left: the counts kept end there at most.
      const { top } = lastRowid.get() as { top: number }
      const deltas = removalDeltas(rows.map(rollupInput), calls)
      applyDeltas(deltas)
      for (const [table, touched] of deltaRows(deltas)) {
        const keys = ROLLUP_KEYS[table]
        for (const row of touched) {
          const key = Object.fromEntries(keys.map((k) => [k, (row as Record<string, unknown>)[k]]))
          if (dropEmpty[table].run(key).changes > 0) continue
          if (table === 'session_totals') {
            const { first_at, last_at, user_at } = row as SessionDelta
            respanSession.run({ ...key, first_at, last_at, user_at })
          }
          if (table === 'user_totals') {
            const { first_at, last_at } = row as UserDelta
            respanUser.run({ ...key, first_at, last_at })
          }
        }
      }
      return {
        deleted: rows.map((r) => ({ trace_id: r.trace_id, project_id: r.project_id })),
        counts: counts.map((c) => ({ ...c, next: { ...c.next, horizon: Math.min(c.next.horizon, top) } })),
      }
    },
  )
  /**
   * The search counts the deleting instance keeps (`kept`), past the deletion of these rows (still there): each
   * one's matches among them up to the last rowid it counted, tested as a read tests the traces stored after a count.
   */
  const lessOfCounts = (
    rows: readonly { row_id: number }[],
    bumped: string,
    kept: readonly RemovableCount<number>[],
  ): PassedCount<number>[] => {
    const counted = removableOf(kept, bumped)
    const rowids = JSON.stringify(rows.map((r) => r.row_id))
    const less = counted.map(({ f, count }) => {
      const w = where(f, {}, true)
      return (
        stmt(
          `select count(*) as n from traces ${w.sql} and rowid in (select value from json_each(?)) and rowid <= ?`,
        ).get(...w.params, rowids, count.horizon) as { n: number }
      ).n
    })
    return passRemoval(counted, bumped, less)
  }
  /** Every rollup recounted from the traces, in one transaction (see rollup-rebuild.ts). */
  const rebuildRollups = writeTransaction(db, () => {
    for (const table of ROLLUP_TABLES) db.prepare(`delete from ${table}`).run()
    let cursor = 0
    for (;;) {
      const rows = rollupSource.all(cursor, REBUILD_CHUNK) as (RollupRow & { cursor: number })[]
      if (rows.length === 0) break
      applyDeltas(rollupDeltas(rows.map(rollupInput)))
      cursor = rows.at(-1)!.cursor
    }
    db.prepare(REBUILD_CALL_TOTALS).run()
    db.prepare(`delete from loupe_meta where key = 'rollups_stale'`).run()
  })

  /** A chunk of traces from a position in (created_at, trace_id) order, with what their clients reported. */
  const repriceSource = db.prepare(
    `select * from traces where created_at >= @since and (created_at > @at or (created_at = @at and trace_id > @id))
     order by created_at, trace_id limit @limit`,
  )
  const updateCost = db.prepare('update traces set cost = @cost, steps = @steps where trace_id = @trace_id')
  /** One chunk re-priced in one transaction: the changed rows and their rollups (old form out, new form in). */
  const repriceChunk = writeTransaction(
    db,
    (position: RepricePosition, since: number, reprice: Repricer): RepriceChunk => {
      const rows = repriceSource.all({
        since,
        at: position.at,
        id: position.id,
        limit: REPRICE_CHUNK,
      }) as (RawTraceRow & {
        reported_cost: string | null
      })[]
      const before: Trace[] = []
      const after: Trace[] = []
      for (const row of rows) {
        const old = fromRow(row)
        const next = reprice(old, parseReportedCosts(row.reported_cost))
        if (!costsDiffer(old, next)) continue
        updateCost.run({ trace_id: old.trace_id, cost: next.cost, steps: JSON.stringify(next.steps) })
        before.push(old)
        after.push(next)
      }
      applyDeltas(rollupDeltas(after, before))
      const last = rows.at(-1)
      return {
        scanned: rows.length,
        changed: after.length,
        next: last ? { at: last.created_at, id: last.trace_id } : null,
      }
    },
  )

  /** The search index rebuilt from the traces (a migration that created it sets `search_stale`). */
  const rebuildSearch = writeTransaction(db, () => {
    db.prepare('delete from traces_search').run()
    const source = db.prepare(
      'select rowid as cursor, name, prompt, response, failure_reason, steps from traces where rowid > ? order by rowid limit ?',
    )
    let cursor = 0
    for (;;) {
      const rows = source.all(cursor, REBUILD_CHUNK) as (Pick<
        Trace,
        'name' | 'prompt' | 'response' | 'failure_reason'
      > & {
        cursor: number
        steps: string
      })[]
      if (rows.length === 0) break
      for (const row of rows) insertSearch.run(row.cursor, searchText({ ...row, steps: JSON.parse(row.steps) }))
      cursor = rows.at(-1)!.cursor
    }
    db.prepare(`delete from loupe_meta where key = 'search_stale'`).run()
    bumpRemovals.run()
  })

  return {
    /** Stores a batch (insertBatch). */
    insert: (batch: readonly PricedTrace[]) => insertBatch(batch),
    /** One batch deleted for an instance whose search counts are `kept` (on this or another thread's connection). */
    deleteBatch: (selection: DeleteSelection, kept: readonly RemovableCount<number>[]): DeletedBatch =>
      deleteBatch(selection, kept),
    /** One chunk re-priced from a position (repriceChunk). */
    repriceChunk: (position: RepricePosition, since: number, reprice: Repricer): RepriceChunk =>
      repriceChunk(position, since, reprice),

    /** Rebuilds the search index when a migration marked it stale. */
    rebuildSearchIfStale(): void {
      if (db.prepare(`select 1 from loupe_meta where key = 'search_stale'`).get()) rebuildSearch()
    },

    /** Rebuilds every rollup when a migration marked them stale; true when it did. */
    rebuildRollupsIfStale(): boolean {
      const stale = db.prepare(`select 1 from loupe_meta where key = 'rollups_stale'`).get()
      if (stale) rebuildRollups()
      return stale !== undefined
    },

    /**
     * Gives free pages back to the file system, a bounded number at a time (one short write: 256 pages, 1 MiB, about
     * what a deletion batch frees); true while some are left.
     */
    reclaimSpace(): boolean {
      if (db.pragma('auto_vacuum', { simple: true }) !== 2) return false
      db.pragma('incremental_vacuum(256)')
      return (db.pragma('freelist_count', { simple: true }) as number) > 0
    },
  }
}
