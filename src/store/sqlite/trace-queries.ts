// Traces on SQLite: the ingest transaction (trace rows and their rollups together), and the primitive reads the shared
// plan (src/store/trace-reads.ts) is answered with — no request scans the table.
import type Database from 'better-sqlite3'
import { searchText, type Trace, type TraceSummary } from '../../../schemas/index.js'
import { toUtcIso } from '../../lib/time.js'
import { createActivityReads } from '../activity-reads.js'
import { parseReportedCosts, REPORTED_COST, reportedCostJson } from '../reported-cost.js'
import { costsDiffer, REPRICE_CHUNK, type RepriceChunk, type RepricePosition, repriceAll } from '../reprice.js'
import { REBUILD_CHUNK, ROLLUP_SOURCE_COLUMNS, type RollupRow, rollupInput } from '../rollup-rebuild.js'
import {
  ACTIVITY_COUNTED,
  activityUpsertSet,
  addExcluded,
  deltaRows,
  type HistogramRow,
  ROLLUP_KEYS,
  ROLLUP_TABLES,
  type RollupDeltas,
  removalDeltas,
  rollupDeltas,
  type SessionDelta,
  SUM_COLUMNS,
  sessionUserSet,
  TOTALS_COUNTS,
  type UserDelta,
} from '../rollups.js'
import {
  BUMP_REMOVALS,
  BUMP_REMOVALS_RETURNING,
  createSearchCounts,
  keepsCount,
  type PassedCount,
  passRemoval,
  REMOVALS_NOW,
  type RemovableCount,
  removableOf,
} from '../search-counts.js'
import { SUMMARY_KEYS, storedTrace, storedTraceOf, TRACE_KEYS } from '../stored-trace.js'
import {
  createTraceReads,
  type ExtraConditions,
  HISTOGRAMS,
  type HourRow,
  histogramWhere,
  orderBy,
  type SearchClause,
  type Selection,
  TALLY_DIMS,
  type Tally,
  type TotalsRow,
  type TraceReadQueries,
  traceWhere,
  walkChunks,
} from '../trace-reads.js'
import { charCount, TRIGRAM } from '../trigram.js'
import type { DeletedTrace, DeleteSelection, InsertOutcome, RepriceOutcome, Repricer, TraceFilter } from '../types.js'
import type { TraceRow } from './tables.js'
import { writeTransaction } from './write-transaction.js'

/** A batch deleted: its traces, and the search counts given to it past the deletion. */
export interface DeletedBatch {
  deleted: DeletedTrace[]
  counts: PassedCount<number>[]
}

/** A traces row as better-sqlite3 returns it: JSON columns still text. */
type RawTraceRow = Omit<TraceRow, 'tags' | 'metadata' | 'steps' | 'tokens_reported'> & {
  tags: string
  metadata: string
  steps: string
  /** SQLite keeps a boolean as 0 or 1. */
  tokens_reported: number
}

/** The columns written at insert: the trace's, then what the client reported of its costs. */
const COLUMNS = [...TRACE_KEYS, REPORTED_COST]

type RawSummaryRow = Omit<TraceSummary, 'tags' | 'created_at' | 'tokens_reported'> & {
  tags: string
  created_at: number
  tokens_reported: number
}
const summaryFromRow = (row: RawSummaryRow): TraceSummary => ({
  ...row,
  tags: JSON.parse(row.tags),
  tokens_reported: row.tokens_reported === 1,
  created_at: toUtcIso(row.created_at),
})

const fromRow = (row: RawTraceRow): Trace =>
  storedTrace({ ...row, tokens_reported: row.tokens_reported === 1, created_at: toUtcIso(row.created_at) })

/** The trace's columns, in TRACE_KEYS order: read as arrays (better-sqlite3's raw mode), which spares an object a row. */
const TRACE_COLUMNS = TRACE_KEYS.join(', ')
const CREATED_AT = TRACE_KEYS.indexOf('created_at')
const TOKENS_REPORTED = TRACE_KEYS.indexOf('tokens_reported')
/** A row read in raw mode (its values in TRACE_KEYS order) → the stored trace. */
const fromValues = (values: unknown[]): Trace => {
  values[CREATED_AT] = toUtcIso(values[CREATED_AT] as number)
  values[TOKENS_REPORTED] = values[TOKENS_REPORTED] === 1
  return storedTraceOf(values)
}

const toRow = (t: Trace) => ({
  ...t,
  created_at: Date.parse(t.created_at),
  tokens_reported: t.tokens_reported ? 1 : 0,
  tags: JSON.stringify(t.tags),
  metadata: JSON.stringify(t.metadata),
  steps: JSON.stringify(t.steps),
  reported_cost: reportedCostJson(t),
})

export function createTraceQueries(db: Database.Database) {
  const cache = new Map<string, Database.Statement>()
  /** Statements are prepared once per distinct SQL text. */
  const stmt = (text: string) => {
    let s = cache.get(text)
    if (!s) {
      s = db.prepare(text)
      cache.set(text, s)
    }
    return s
  }
  /** The same, for statements whose rows are read as arrays. */
  const rawCache = new Map<string, Database.Statement>()
  const rawStmt = (text: string) => {
    let s = rawCache.get(text)
    if (!s) {
      s = db.prepare(text).raw(true)
      rawCache.set(text, s)
    }
    return s
  }

  const insertTrace = db.prepare(
    `insert into traces (${COLUMNS.join(', ')}) values (${COLUMNS.map((c) => `@${c}`).join(', ')})
     on conflict (trace_id) do nothing`,
  )
  const traceById = db.prepare(`select ${TRACE_COLUMNS} from traces where trace_id = ?`).raw(true)
  // The searchable text of each trace, under the trace's rowid, in the same transaction (schemas/search.ts).
  const insertSearch = db.prepare('insert into traces_search (rowid, body) values (?, ?)')
  const upsert = (table: string, keys: readonly string[], counted: readonly string[]) => {
    const columns = [...keys, ...counted]
    return db.prepare(
      `insert into ${table} (${columns.join(', ')}) values (${columns.map((c) => `@${c}`).join(', ')})
       on conflict (${keys.join(', ')}) do update set ${addExcluded(table, counted)}`,
    )
  }
  const upsertTotals = upsert('rollup_totals', ['project_id', 'environment', 'model', 'status'], TOTALS_COUNTS)
  const upsertHourly = upsert('rollup_hourly', ['project_id', 'hour'], ['traces', ...SUM_COLUMNS])
  const upsertHistogram = (table: string) =>
    db.prepare(
      `insert into ${table} (project_id, bucket, traces) values (@project_id, @bucket, @traces)
       on conflict (project_id, bucket) do update set traces = traces + excluded.traces`,
    )
  const upsertLatency = upsertHistogram('latency_histogram')
  const upsertTokens = upsertHistogram('token_histogram')
  const upsertCost = upsertHistogram('cost_histogram')
  const upsertActivity = (table: string, keys: readonly string[], extra: readonly string[], set: string) => {
    const columns = [...keys, ...ACTIVITY_COUNTED, 'first_at', 'last_at', ...extra]
    return db.prepare(
      `insert into ${table} (${columns.join(', ')}) values (${columns.map((c) => `@${c}`).join(', ')})
       on conflict (${keys.join(', ')}) do update set ${set}`,
    )
  }
  const upsertSession = upsertActivity(
    'session_totals',
    ['project_id', 'session_id'],
    ['user_id', 'user_at'],
    `${activityUpsertSet('session_totals', ACTIVITY_COUNTED, 'min', 'max')}, ${sessionUserSet('session_totals')}`,
  )
  const upsertUser = upsertActivity(
    'user_totals',
    ['project_id', 'user_id'],
    [],
    activityUpsertSet('user_totals', ACTIVITY_COUNTED, 'min', 'max'),
  )

  /** Adds what some traces count to every rollup (inside the caller's transaction). */
  const applyDeltas = (deltas: RollupDeltas) => {
    for (const row of deltas.totals) upsertTotals.run(row)
    for (const row of deltas.hourly) upsertHourly.run(row)
    for (const row of deltas.latency) upsertLatency.run(row)
    for (const row of deltas.tokens) upsertTokens.run(row)
    for (const row of deltas.cost) upsertCost.run(row)
    for (const row of deltas.sessions) upsertSession.run(row)
    for (const row of deltas.users) upsertUser.run(row)
  }

  /** Trace rows and their rollups in one transaction: a crash keeps both or neither. */
  const insertBatch = writeTransaction(db, (batch: readonly Trace[]): InsertOutcome[] => {
    const created: Trace[] = []
    const outcomes = batch.map((trace): InsertOutcome => {
      const inserted = insertTrace.run(toRow(trace))
      if (inserted.changes === 1) {
        insertSearch.run(inserted.lastInsertRowid, searchText(trace))
        created.push(trace)
        return { kind: 'created', trace }
      }
      const existing = fromValues(traceById.get(trace.trace_id) as unknown[])
      return existing.project_id === trace.project_id
        ? { kind: 'exists', trace: existing }
        : { kind: 'conflict', trace_id: trace.trace_id }
    })
    applyDeltas(rollupDeltas(created))
    return outcomes
  })

  const rollupSource = db.prepare(
    `select rowid as cursor, ${ROLLUP_SOURCE_COLUMNS} from traces where rowid > ? order by rowid limit ?`,
  )
  /**
   * Counts of searches (search-counts.ts), kept up to the last rowid they counted: writers take turns, so every
   * trace below the highest rowid a read sees is there for good, and a count is brought up to date by testing the
   * traces added since. A viewer paging through a search, or refreshing it as traces arrive, counts a common word once.
   */
  /** Beyond this many new traces, counting again through the index is cheaper than testing each. */
  const SEARCH_COUNT_CATCH_UP = 20_000
  const searchCounts = createSearchCounts<number>((upTo, top) => upTo <= top && top - upTo <= SEARCH_COUNT_CATCH_UP)
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
  // A session's or a user's activity span and a session's user are a minimum, a maximum and a first: worked out again
  // from the traces left (each one seek of the session's or the user's index), but only those the deleted traces may
  // have been (@first_at, @last_at and @user_at are theirs): deleting the oldest traces moves a first_at, seldom a
  // last_at. An update reads the row's old values throughout, so a condition sees the span as it was.
  const spanOf = (column: string) => {
    const ofKey = `from traces where ${column} = @${column} and project_id = @project_id`
    return `
      first_at = case when @first_at <= first_at then (select created_at ${ofKey} order by created_at limit 1)
                 else first_at end,
      last_at = case when @last_at >= last_at then (select created_at ${ofKey} order by created_at desc limit 1)
                else last_at end`
  }
  const sessionUser = `from traces where session_id = @session_id and project_id = @project_id and user_id is not null
                       order by created_at, user_id limit 1`
  const userGone = '@user_at is not null and user_at is not null and @user_at <= user_at'
  const respanSession = db.prepare(
    `update session_totals set ${spanOf('session_id')},
       user_id = case when ${userGone} then (select user_id ${sessionUser}) else user_id end,
       user_at = case when ${userGone} then (select created_at ${sessionUser}) else user_at end
     where project_id = @project_id and session_id = @session_id`,
  )
  const respanUser = db.prepare(
    `update user_totals set ${spanOf('user_id')} where project_id = @project_id and user_id = @user_id`,
  )

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
      for (const row of rows) {
        deleteByRowid.run(row.row_id)
        deleteSearch.run(row.row_id)
      }
      // A freed rowid is given again only above the highest one left: the counts kept end there at most.
      const { top } = lastRowid.get() as { top: number }
      const deltas = removalDeltas(rows.map(rollupInput))
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
  /** Deletes in one transaction, then (once it committed) keeps the search counts past it. */
  const deleteTraces = (selection: DeleteSelection): DeletedTrace[] => {
    const { deleted, counts } = deleteBatch(selection, searchCounts.kept())
    searchCounts.passed(counts)
    return deleted
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

  /**
   * Every word in the trigram index: words of 3 characters or more are phrases of one MATCH (each a substring of the
   * text); shorter ones (two CJK characters are a word) are checked on the indexed text with GLOB. The index is case
   * sensitive over text lower-cased at ingest, so a MATCH of a word is exactly `instr(body, word) > 0`.
   */
  const searchConditions = (words: readonly string[], bind: (value: unknown) => string) => {
    const long = words.filter((w) => charCount(w) >= TRIGRAM)
    return [
      ...(long.length > 0
        ? [`traces_search match ${bind(long.map((w) => `"${w.replaceAll('"', '""')}"`).join(' '))}`]
        : []),
      ...words
        .filter((w) => charCount(w) < TRIGRAM)
        .map((w) => `body glob ${bind(`*${w.replace(/[*?[]/g, (c) => `[${c}]`)}*`)}`),
    ].join(' and ')
  }
  /**
   * Through the index: the set of matching rowids. As a probe: the one trace's text read by its rowid and each word
   * looked for in it (≈1.5 µs a trace; a MATCH restricted to one rowid costs 100 times more).
   */
  const searchClause: SearchClause = (words, bind, probe) =>
    probe
      ? `exists (select 1 from traces_search s where s.rowid = traces.rowid and ${words
          .map((w) => `instr(s.body, ${bind(w)}) > 0`)
          .join(' and ')})`
      : `rowid in (select rowid from traces_search where ${searchConditions(words, bind)})`

  const projectScope = (projectId: string | undefined) =>
    projectId === undefined ? { sql: '', params: [] } : { sql: 'where project_id = ?', params: [projectId] }

  /** The filter's WHERE clause with `?` markers, and its values in order. */
  const where = (f: TraceFilter, extra: ExtraConditions = {}, probe?: boolean) => {
    const params: unknown[] = []
    const text = traceWhere(
      f,
      extra,
      (value) => {
        params.push(value)
        return '?'
      },
      searchClause,
      probe,
    )
    return { sql: text, params }
  }

  const countNow = (f: TraceFilter): number => {
    const onlySearch =
      f.q !== undefined && Object.entries(f).every(([key, value]) => key === 'q' || value === undefined)
    if (onlySearch) {
      // The search index alone holds the answer: no trace row is read.
      const params: unknown[] = []
      const conditions = searchConditions(f.q!, (value) => {
        params.push(value)
        return '?'
      })
      return (stmt(`select count(*) as n from traces_search where ${conditions}`).get(...params) as { n: number }).n
    }
    const w = where(f)
    return (stmt(`select count(*) as n from traces ${w.sql}`).get(...w.params) as { n: number }).n
  }

  const countSearch = db.transaction((f: TraceFilter): number => {
    const now = stmt(`select coalesce(max(rowid), 0) as top, ${REMOVALS_NOW} as removals from traces`).get() as {
      top: number
      removals: string
    }
    const kept = searchCounts.usable(f, now.removals, now.top)
    let n: number
    if (kept) {
      n = kept.n
      if (now.top > kept.horizon) {
        const w = where(f, {}, true)
        n += (
          stmt(`select count(*) as n from traces ${w.sql} and rowid > ? and rowid <= ?`).get(
            ...w.params,
            kept.horizon,
            now.top,
          ) as { n: number }
        ).n
      }
    } else {
      n = countNow(f)
    }
    searchCounts.keep(f, { removals: now.removals, horizon: now.top, n })
    return n
  })

  /** A page of rows, newest first. SQLite's planner cannot tell a selective range from a wide one: the shared plan names the index to walk. */
  const selectPage = (
    columns: string,
    { filter, extra, limit, offset, walk, ordering, probe }: Selection,
    prepare: (text: string) => Database.Statement = stmt,
  ) => {
    // SQLite's planner cannot tell a selective range from a wide one: the shared plan names the index to walk.
    const scoped = filter.project_id !== undefined ? 'project_' : ''
    const hint = walk ? `indexed by traces_${scoped}${walk}` : ''
    const w = where(filter, extra, probe)
    // SQLite sorts null first ascending and last descending: as the contract wants unpriced traces.
    return prepare(`select ${columns} from traces ${hint} ${w.sql} ${orderBy(ordering, false)} limit ? offset ?`).all(
      ...w.params,
      limit,
      offset,
    )
  }

  const queries: TraceReadQueries = {
    async totals(projectId) {
      const scope = projectScope(projectId)
      return stmt(
        `select project_id, environment, model, status, ${TOTALS_COUNTS.join(', ')} from rollup_totals ${scope.sql}`,
      ).all(...scope.params) as TotalsRow[]
    },

    async tally(dims) {
      const conditions = TALLY_DIMS.filter((d) => dims[d] !== undefined)
      const where = conditions.length ? `where ${conditions.map((d) => `${d} = ?`).join(' and ')}` : ''
      return stmt(
        `select coalesce(sum(traces), 0) as traces, coalesce(sum(retries), 0) as retries,
           coalesce(sum(case when status = 'failed' then traces else 0 end), 0) as failed
         from rollup_totals ${where}`,
      ).get(...conditions.map((d) => dims[d])) as Tally
    },

    async histogram(kind, projectId, window) {
      const { where, params } = histogramWhere(projectId, window, () => '?')
      return stmt(
        `select bucket, sum(traces) as traces from ${HISTOGRAMS[kind].table} ${where} group by bucket order by bucket`,
      ).all(...params) as HistogramRow[]
    },

    async countBoundary(kind, projectId, from, below, max) {
      const { column, scale } = HISTOGRAMS[kind]
      const project = projectId === undefined ? '' : 'project_id = ? and'
      const bounds = [from / scale, below / scale, max / scale]
      const params = projectId === undefined ? bounds : [projectId, ...bounds]
      return (
        stmt(
          `select count(*) as n from traces where ${project} ${column} >= ? and ${column} < ? and ${column} <= ?`,
        ).get(...params) as { n: number }
      ).n
    },

    async hours(projectId) {
      const scope = projectScope(projectId)
      return stmt(
        `select hour, sum(traces) as traces from rollup_hourly ${scope.sql} group by hour order by hour desc`,
      ).all(...scope.params) as { hour: number; traces: number }[]
    },

    async hoursBetween(start, end, projectId) {
      const scope = projectId === undefined ? '' : 'and project_id = ?'
      return stmt(
        `select hour, sum(traces) as traces, ${SUM_COLUMNS.map((c) => `sum(${c}) as ${c}`).join(', ')}
         from rollup_hourly where hour >= ? and hour < ? ${scope} group by hour`,
      ).all(...(projectId === undefined ? [start, end] : [start, end, projectId])) as HourRow[]
    },

    async count(f) {
      if (keepsCount(f)) return countSearch(f)
      return countNow(f)
    },

    async select(selection) {
      return (selectPage(TRACE_COLUMNS, selection, rawStmt) as unknown[][]).map(fromValues)
    },

    async selectEach(selection, each) {
      return (await queries.select(selection)).map(each)
    },

    async selectSummaries(selection) {
      const columns = `${SUMMARY_KEYS.join(', ')}, json_array_length(steps) as step_count`
      return (selectPage(columns, selection) as RawSummaryRow[]).map(summaryFromRow)
    },

    async latencyAt(projectId, lo, hi, offset) {
      const project = projectId === undefined ? '' : 'project_id = ? and'
      const index = projectId === undefined ? 'traces_latency' : 'traces_project_latency'
      const params = projectId === undefined ? [lo, hi, offset] : [projectId, lo, hi, offset]
      const row = stmt(
        `select latency from traces indexed by ${index} where ${project} latency >= ? and latency < ?
         order by latency limit 1 offset ?`,
      ).get(...params) as { latency: number } | undefined
      return row?.latency
    },
  }
  const reads = createTraceReads(queries)
  const activity = createActivityReads({
    async query<R>(build: (bind: (value: unknown) => string) => string) {
      const params: unknown[] = []
      const text = build((value) => {
        params.push(value)
        return '?'
      })
      return stmt(text).all(...params) as R[]
    },
    select: queries.select,
  })

  return {
    insertTraces: (batch: readonly Trace[]) => insertBatch(batch),

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

    /** Every stored trace, counted from the rollups. */
    count(): number {
      return (db.prepare('select coalesce(sum(traces), 0) as n from rollup_totals').get() as { n: number }).n
    },

    getTrace(traceId: string): Trace | null {
      const row = traceById.get(traceId) as unknown[] | undefined
      return row ? fromValues(row) : null
    },

    deleteTraces,
    /** One batch deleted for an instance whose search counts are `kept` (on another thread's connection). */
    deleteBatch: (selection: DeleteSelection, kept: readonly RemovableCount<number>[]): DeletedBatch =>
      deleteBatch(selection, kept),
    /** The search counts this instance keeps, for a deletion on another connection. */
    keptSearchCounts: () => searchCounts.kept(),
    /** What a deletion on another connection answered of the counts it was given, once committed. */
    passSearchCounts: (counts: readonly PassedCount<number>[]) => searchCounts.passed(counts),
    /**
     * Gives free pages back to the file system, a bounded number at a time (one short write: 256 pages, 1 MiB, about
     * what a deletion batch frees); true while some are left.
     */
    reclaimSpace(): boolean {
      if (db.pragma('auto_vacuum', { simple: true }) !== 2) return false
      db.pragma('incremental_vacuum(256)')
      return (db.pragma('freelist_count', { simple: true }) as number) > 0
    },
    /** How many searches were counted in full since this instance started. */
    searchFullCounts: searchCounts.fullCounts,
    walkTraces: <T>(filter: TraceFilter, chunk: number, each: (trace: Trace) => T) =>
      walkChunks(
        (after, limit, mark: (trace: Trace) => T) => reads.afterCursor(filter, after, limit, mark),
        chunk,
        each,
      ),

    repriceTraces: (since: number | undefined, reprice: Repricer): Promise<RepriceOutcome> =>
      repriceAll((from) => repriceChunk(from, since ?? Number.MIN_SAFE_INTEGER, reprice)),

    listTraces: reads.listTraces,
    ...activity,
    listTraceSummaries: reads.listTraceSummaries,
    analytics: reads.analytics,
    failures: reads.failures,
  }
}
