// The trace store on SQLite: writes through trace-writes.ts (a file's deletions on the background worker), reads
// through the shared plan (src/store/trace-reads.ts), answered here with the primitive queries — prepared once, so
// that no request scans the traces table.
import type Database from 'better-sqlite3'
import type { Trace } from '../../../schemas/index.js'
import {
  HISTOGRAMS,
  orderBy,
  rollupReads,
  type Selection,
  scoredCountSql,
  scoresAlone,
  type TraceReadQueries,
  walkChunks,
} from '../read-queries.js'
import { repriceAll } from '../reprice.js'
import { keepsCount, REMOVALS_NOW } from '../search-counts.js'
import { SUMMARY_KEYS } from '../stored-trace.js'
import { createTraceReads } from '../trace-reads.js'
import type { TraceFilter, TraceStore } from '../types.js'
import type { SqliteContext } from './context.js'
import { fromValues, type RawSummaryRow, searchConditions, summaryFromRow, TRACE_COLUMNS, where } from './trace-rows.js'

/**
 * Up to this many projects, an order by a value over every project merges the projects' own walks (one UNION ALL arm
 * each); past it, the planner reads and sorts. SQLite allows 500 arms in one statement.
 */
export const MERGED_PROJECTS = 64

/**
 * From this offset, merged arms read only the order's keys and the page's rows are read after (whole rows through
 * 20,000 skipped took 360 ms, keys 20 ms); below it, whole rows from the arms are quicker (no sort of the page).
 */
export const MERGED_ROWS_BELOW_OFFSET = 1000

/** A statement's text with its `?` markers, and their values in order. */
type Sql = { sql: string; params: unknown[] }

/** The primitive queries the shared read plan is answered with (what activity.ts reads a session's traces with too). */
export function sqliteTraceReadQueries({
  sqlite,
  stmt,
  rawStmt,
  query,
  searchCounts,
}: SqliteContext): TraceReadQueries {
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

  const countSearch = sqlite.transaction((f: TraceFilter): number => {
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

  /**
   * The projects that hold traces, in order: each found by one step of the (project_id, …) index from the last one, so
   * a handful of lookups whatever the number of traces.
   */
  const projectIds = (): string[] =>
    (
      stmt(
        `with recursive p(id) as (
           select min(project_id) from traces
           union all
           select (select min(project_id) from traces where project_id > p.id) from p where p.id is not null
         ) select id from p where id is not null`,
      ).all() as { id: string }[]
    ).map((row) => row.id)

  /**
   * The same query over every project, one arm per project (SELECT … UNION ALL SELECT … ORDER BY): each arm walks its
   * project's value index (latency, tokens or cost) in the order asked, and SQLite merges the arms as they are read,
   * stopping at the page's end — the walk of a global index, without one to keep up at every write. Beyond
   * MERGED_PROJECTS, one arm over every trace (`arm(undefined)`), which the planner serves alone.
   */
  const acrossProjects = (arm: (projectId: string | undefined) => Sql): Sql => {
    const projects = projectIds()
    if (projects.length > MERGED_PROJECTS) return arm(undefined)
    // With no trace, one arm still gives the statement its columns (and no row).
    const arms = (projects.length > 0 ? projects : ['']).map(arm)
    return { sql: arms.map((a) => a.sql).join(' union all '), params: arms.flatMap((a) => a.params) }
  }

  /** A page of rows, newest first. SQLite's planner cannot tell a selective range from a wide one: the shared plan names the index to walk. */
  const selectPage = (
    columns: string,
    { filter, extra, limit, offset, walk, ordering, probe, collect }: Selection,
    prepare: (text: string) => Database.Statement = stmt,
  ) => {
    // A score order with no filter but its score's (and a project): the rollup's index leads, each trace looked up by
    // its id, the walk stopped after the page (the where is the whole FROM). With other filters, the planner weighs
    // their indexes.
    const lead = filter.scored_by !== undefined && scoresAlone(filter)
    // Over every project, a walk of a value's index, or an order by a value the planner is left to serve (unless the
    // matches are collected first, then sorted), is the projects' walks merged: each arm named the index it was told
    // to walk, or planned alone.
    const valueOrder = ordering !== undefined && ordering.sort !== 'created_at' && ordering.sort !== 'score'
    const overValue = walk !== undefined ? walk !== 'created' : valueOrder && !collect
    if (overValue && filter.project_id === undefined && !lead) {
      const hint = walk ? `indexed by traces_project_${walk}` : ''
      const order = orderBy(ordering, false)
      // Each arm makes whole rows of what it reads, the skipped ones included: past a shallow offset, the arms read
      // only the order's keys (from the index) and the page's rows are read by rowid after.
      const keysOnly = offset >= MERGED_ROWS_BELOW_OFFSET
      const armColumns = keysOnly ? `rowid as pick, ${ordering?.sort ?? 'created_at'}, trace_id` : columns
      const merged = acrossProjects((project_id) => {
        const w = where({ ...filter, project_id }, extra, probe)
        const index = project_id === undefined ? '' : hint
        return { sql: `select ${armColumns} from traces ${index} ${w.sql}`, params: w.params }
      })
      const page = `${merged.sql} ${order} limit ? offset ?`
      const text = keysOnly
        ? `select ${columns} from traces where rowid in (select pick from (${page})) ${order}`
        : page
      return prepare(text).all(...merged.params, limit, offset)
    }
    // SQLite's planner cannot tell a selective range from a wide one: the shared plan names the index to walk.
    const scoped = filter.project_id !== undefined ? 'project_' : ''
    const hint = walk ? `indexed by traces_${scoped}${walk}` : ''
    const w = where(filter, extra, probe, lead)
    const from = lead ? w.sql : `traces ${hint} ${w.sql}`
    // SQLite sorts null first ascending and last descending: as the contract wants unpriced traces.
    return prepare(`select ${columns} from ${from} ${orderBy(ordering, false)} limit ? offset ?`).all(
      ...w.params,
      limit,
      offset,
    )
  }

  const queries: TraceReadQueries = {
    ...rollupReads(query),

    async countBoundary(kind, projectId, from, below, max) {
      const { column, scale } = HISTOGRAMS[kind]
      const bounds = [from / scale, below / scale, max / scale]
      const range = `${column} >= ? and ${column} < ? and ${column} <= ?`
      const arm = (project: string | undefined): Sql =>
        project === undefined
          ? { sql: `select 1 from traces where ${range}`, params: bounds }
          : {
              sql: `select 1 from traces indexed by traces_project_${kind} where project_id = ? and ${range}`,
              params: [project, ...bounds],
            }
      const rows = projectId === undefined ? acrossProjects(arm) : arm(projectId)
      return (stmt(`select count(*) as n from (${rows.sql})`).get(...rows.params) as { n: number }).n
    },

    async count(f) {
      if (keepsCount(f)) return countSearch(f)
      return countNow(f)
    },

    async countScored(f) {
      const params: unknown[] = []
      const text = scoredCountSql(
        f,
        (value) => {
          params.push(value)
          return '?'
        },
        // Named as a probe names it (trace-rows.ts): without statistics SQLite may read the (name, value) index.
        'scores indexed by scores_trace',
      )
      return (stmt(text).get(...params) as { n: number }).n
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
      // Within one project, its index in order; over every project, their walks merged (acrossProjects).
      const arm = (project: string | undefined): Sql =>
        project === undefined
          ? { sql: 'select latency from traces where latency >= ? and latency < ?', params: [lo, hi] }
          : {
              sql: 'select latency from traces indexed by traces_project_latency where project_id = ? and latency >= ? and latency < ?',
              params: [project, lo, hi],
            }
      const values = projectId === undefined ? acrossProjects(arm) : arm(projectId)
      const row = stmt(`${values.sql} order by latency limit 1 offset ?`).get(...values.params, offset) as
        | { latency: number }
        | undefined
      return row?.latency
    },
  }
  return queries
}

export function createSqliteTraceStore(ctx: SqliteContext): TraceStore {
  const { writes, background, searchCounts, logRoom } = ctx
  const reads = createTraceReads(sqliteTraceReadQueries(ctx))
  return {
    async insert(batch) {
      await logRoom()
      return writes.insert(batch)
    },

    async get(traceId) {
      const row = ctx.rawStmt(`select ${TRACE_COLUMNS} from traces where trace_id = ?`).get(traceId) as
        | unknown[]
        | undefined
      return row ? fromValues(row) : null
    },

    list: reads.listTraces,
    listSummaries: reads.listTraceSummaries,
    analytics: reads.analytics,
    failures: reads.failures,

    walk<T>(filter: TraceFilter, chunk: number, each: (trace: Trace) => T) {
      return walkChunks(
        (after, limit, mark: (trace: Trace) => T) => reads.afterCursor(filter, after, limit, mark),
        chunk,
        each,
      )
    },

    /** Deletes in one transaction (a file's on the worker), then, once it committed, keeps the search counts past it. */
    async delete(selection) {
      const { deleted, counts } = background?.running()
        ? await background.deleteBatch(selection, searchCounts.kept())
        : writes.deleteBatch(selection, searchCounts.kept())
      searchCounts.passed(counts)
      return deleted
    },

    async reprice(since, reprice) {
      return repriceAll((from) => writes.repriceChunk(from, since ?? Number.MIN_SAFE_INTEGER, reprice))
    },
  }
}
