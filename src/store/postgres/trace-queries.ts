// Traces on PostgreSQL: the ingest transaction (the trace_id directory, trace rows, their rollups and the
// notification to other replicas, together) and the primitive reads the shared plan (src/store/trace-reads.ts) is
// answered with. Every value is bound as a parameter; arrays go through unnest. Storing a batch takes two statements:
// the trace_ids and the traces, then every rollup and the notification.
import { createHash } from 'node:crypto'
import pg, { type QueryResultRow } from 'pg'
import { StepSchema, searchText, type Trace, type TraceSummary } from '../../../schemas/index.js'
import { toUtcIso } from '../../lib/time.js'
import { createActivityReads } from '../activity-reads.js'
import { parseReportedCosts, REPORTED_COST, reportedCostJson } from '../reported-cost.js'
import { costsDiffer, REPRICE_CHUNK, type RepriceChunk, type RepricePosition } from '../reprice.js'
import { REBUILD_CHUNK, ROLLUP_SOURCE_COLUMNS, type RollupRow, rollupInput } from '../rollup-rebuild.js'
import {
  ACTIVITY_COUNTED,
  type ActivityDelta,
  activityUpsertSet,
  addExcluded,
  deltaRows,
  type HistogramDelta,
  type HistogramRow,
  ROLLUP_KEYS,
  ROLLUP_TABLES,
  type RollupDeltas,
  removalDeltas,
  rollupDeltas,
  SUM_COLUMNS,
  sessionUserSet,
  TOTALS_COUNTS,
} from '../rollups.js'
import {
  BUMP_REMOVALS,
  BUMP_REMOVALS_RETURNING,
  createSearchCounts,
  keepsCount,
  type PassedCount,
  passRemoval,
  REMOVALS_NOW,
} from '../search-counts.js'
import { SUMMARY_KEYS, TRACE_KEYS } from '../stored-trace.js'
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
} from '../trace-reads.js'
import type { DeletedTrace, DeleteSelection, InsertOutcome, Repricer, TraceFilter } from '../types.js'
import { encodeJson, encodeText } from './nul.js'
import type { TraceRow } from './tables.js'

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
function statementName(text: string): string {
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

/** The columns of a trace in the contract's order, so that a trace read back serializes as SQLite's does. */
const COLUMNS = TRACE_KEYS
const SELECT_TRACE = `select ${COLUMNS.join(', ')} from traces`

const STEP_KEYS = Object.keys(StepSchema.properties) as (keyof Trace['steps'][number])[]

/** jsonb keeps object keys in its own order: a step is rebuilt in StepSchema's (and normalization's) order. */
const orderStep = (step: Trace['steps'][number]) =>
  Object.fromEntries(STEP_KEYS.map((k) => [k, step[k]])) as Trace['steps'][number]

export const fromRow = (row: TraceRow): Trace => ({
  ...row,
  created_at: toUtcIso(row.created_at),
  steps: row.steps.map(orderStep),
})

/** Column arrays for `insert … select * from unnest(…)`, with the SQL type of each. */
const INSERT_TYPES: Record<InsertColumn, string> = {
  trace_id: 'text',
  project_id: 'text',
  environment: 'text',
  name: 'text',
  model: 'text',
  prompt: 'text',
  response: 'text',
  latency: 'float8',
  token_count: 'int8',
  prompt_tokens: 'int8',
  completion_tokens: 'int8',
  tokens_reported: 'bool',
  cost: 'float8',
  status: 'text',
  failure_reason: 'text',
  retry_count: 'int4',
  session_id: 'text',
  user_id: 'text',
  tags: 'jsonb',
  metadata: 'jsonb',
  created_at: 'int8',
  steps: 'jsonb',
  reported_cost: 'text',
  search_text: 'text',
}

/** The columns written at insert: the trace's, then what the client reported of its costs. */
type InsertColumn = keyof Trace | typeof REPORTED_COST | 'search_text'
const INSERT_COLUMNS: InsertColumn[] = [...COLUMNS, REPORTED_COST, 'search_text']

const toColumnValue = (t: Trace, column: InsertColumn): unknown => {
  if (column === REPORTED_COST) return reportedCostJson(t)
  if (column === 'search_text') return encodeText(searchText(t))
  const value = t[column]
  if (column === 'created_at') return Date.parse(t.created_at)
  if (column === 'tags' || column === 'metadata' || column === 'steps') return encodeJson(value)
  return typeof value === 'string' ? encodeText(value) : value
}

/**
 * Claims each trace_id in the directory (ids in order, so that two transactions lock them in the same order) and
 * stores the traces whose id it claimed, in one statement: the ids taken before are left to the caller.
 */
const CLAIM_AND_INSERT = `with claimed as (
    insert into trace_ids (trace_id, project_id)
    select trace_id, project_id from unnest($1::text[], $2::text[]) as c(trace_id, project_id) order by trace_id
    on conflict (trace_id) do nothing returning trace_id)
  insert into traces (${INSERT_COLUMNS.join(', ')})
  select ${INSERT_COLUMNS.map((c) => (INSERT_TYPES[c] === 'jsonb' ? `${c}::jsonb` : c)).join(', ')}
  from unnest(${INSERT_COLUMNS.map((c, i) => `$${i + 3}::${INSERT_TYPES[c] === 'jsonb' ? 'text' : INSERT_TYPES[c]}[]`).join(', ')})
    with ordinality as t(${INSERT_COLUMNS.join(', ')}, ord)
  where t.trace_id in (select trace_id from claimed)
  order by ord
  returning trace_id, seq`

/**
 * One rollup's part of the statement that adds deltas to every rollup: `keys` (column → SQL type) identify a row, the
 * `counted` columns (int8) are added to what the row holds; `more` columns are set as `set` says.
 */
interface RollupUpsert {
  table: string
  keys: Record<string, string>
  counted: readonly string[]
  rows: readonly object[]
  more?: { columns: Record<string, string>; set: string }
}

/**
 * Every rollup's upsert, the count of the sessions and users they create (activity_counts), and the notifications, as
 * one statement of data-modifying CTEs: one round trip instead of one per table, and the rows it locks are held for
 * that one round trip and the commit. Each CTE writes its own table, rows in key order (no deadlock between two
 * transactions); empty parts are left out.
 */
function rollupStatement(
  parts: readonly RollupUpsert[],
  notify: { channel: string; payloads: readonly string[] } | null,
): { text: string; values: unknown[] } | null {
  const values: unknown[] = []
  const ctes: string[] = []
  const created: string[] = []
  parts.forEach(({ table, keys, counted, rows, more }, n) => {
    if (rows.length === 0) return
    const columns = [...Object.keys(keys), ...counted, ...Object.keys(more?.columns ?? {})]
    const types = columns.map((c) => keys[c] ?? more?.columns[c] ?? 'int8')
    const params = types.map((type, i) => `$${values.length + i + 1}::${type}[]`)
    for (const c of columns) values.push(rows.map((r) => (r as Record<string, unknown>)[c]))
    const activity = table === 'session_totals' ? 'sessions' : table === 'user_totals' ? 'users' : null
    ctes.push(
      `r${n} as (insert into ${table} (${columns.join(', ')}) select * from unnest(${params.join(', ')})
         on conflict (${Object.keys(keys).join(', ')}) do update set ${more?.set ?? addExcluded(table, counted)}
         returning project_id, xmax = 0 as created)`,
    )
    // The rows this statement created (xmax = 0: inserted, not updated), by their project.
    if (activity) {
      created.push(`select project_id, ${activity === 'sessions' ? '1, 0' : '0, 1'} from r${n} where created`)
    }
  })
  if (created.length > 0) {
    ctes.push(
      `activity as (insert into activity_counts (project_id, sessions, users)
         select project_id, sum(s), sum(u) from (${created.join(' union all ')}) as c(project_id, s, u)
         group by project_id order by project_id
         on conflict (project_id) do update set ${addExcluded('activity_counts', ['sessions', 'users'])})`,
    )
  }
  let main = 'select 1'
  if (notify && notify.payloads.length > 0) {
    values.push(notify.channel, notify.payloads)
    main = `select pg_notify($${values.length - 1}, p) from unnest($${values.length}::text[]) as p`
  } else if (ctes.length === 0) return null
  return { text: ctes.length > 0 ? `with ${ctes.join(',\n')}\n${main}` : main, values }
}

/**
 * Adds sessions and users created (or, with `sign` -1, deleted) to their projects' counts: the totals of
 * GET /sessions and GET /users. Written only when a session or a user comes or goes, projects in key order.
 */
async function countActivity(
  db: Queryable,
  sign: 1 | -1,
  sessions: readonly { project_id: string }[],
  users: readonly { project_id: string }[],
) {
  if (sessions.length === 0 && users.length === 0) return
  const counts = new Map<string, { sessions: number; users: number }>()
  const tally = (rows: readonly { project_id: string }[], kind: 'sessions' | 'users') => {
    for (const { project_id } of rows) {
      const entry = counts.get(project_id) ?? { sessions: 0, users: 0 }
      entry[kind] += sign
      counts.set(project_id, entry)
    }
  }
  tally(sessions, 'sessions')
  tally(users, 'users')
  // Read back through the U+0000 escape: written again through it.
  const projects = [...counts.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  await db.query(
    `insert into activity_counts (project_id, sessions, users)
     select * from unnest($1::text[], $2::int8[], $3::int8[])
     on conflict (project_id) do update set ${addExcluded('activity_counts', ['sessions', 'users'])}`,
    [projects.map(encodeText), projects.map((p) => counts.get(p)!.sessions), projects.map((p) => counts.get(p)!.users)],
  )
}

/** NOTIFY payloads must stay under 8000 bytes: room for the origin and the separators. */
const NOTIFY_BUDGET = 7000

/**
 * The payload(s) announcing stored traces: `origin` then runs of seq numbers (`12-40,45`), split to fit NOTIFY.
 * Compact and constant-size for a batch, whatever the length of the trace ids.
 */
export function notifyPayloads(origin: string, seqs: readonly number[]): string[] {
  const runs: string[] = []
  let start = seqs[0]
  let prev = start
  const flush = () => {
    if (start !== undefined && prev !== undefined) runs.push(start === prev ? `${start}` : `${start}-${prev}`)
  }
  for (const seq of seqs.slice(1)) {
    if (prev !== undefined && seq === prev + 1) {
      prev = seq
      continue
    }
    flush()
    start = seq
    prev = seq
  }
  flush()
  const payloads: string[] = []
  let current: string[] = []
  let size = 0
  for (const run of runs) {
    if (size + run.length + 1 > NOTIFY_BUDGET && current.length > 0) {
      payloads.push(`${origin}:${current.join(',')}`)
      current = []
      size = 0
    }
    current.push(run)
    size += run.length + 1
  }
  if (current.length > 0) payloads.push(`${origin}:${current.join(',')}`)
  return payloads
}

/** Reads a payload of `notifyPayloads`; null when it is not one. */
export function parseNotifyPayload(payload: string): { origin: string; seqs: number[] } | null {
  const colon = payload.lastIndexOf(':')
  if (colon <= 0) return null
  const seqs: number[] = []
  for (const run of payload.slice(colon + 1).split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(run)
    if (!m) return null
    const from = Number(m[1])
    const to = m[2] === undefined ? from : Number(m[2])
    for (let s = from; s <= to; s++) seqs.push(s)
  }
  return { origin: payload.slice(0, colon), seqs }
}

/** Rows sorted by a key, so that concurrent transactions lock rollup rows in the same order (no deadlock). */
const sortedBy = <T>(rows: T[], key: (r: T) => string): T[] => {
  // Each key made once: made in the comparison, they took a deletion batch of 500 traces about 4 ms.
  const keyed = rows.map((row) => ({ row, key: key(row) }))
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  keyed.forEach(({ row }, i) => {
    rows[i] = row
  })
  return rows
}

/**
 * Stores a batch inside an open transaction on `db`: idempotent on trace_id (the trace_ids directory decides, so a
 * trace_id is unique across projects), rollups for the newly stored traces, and one notification per ~1000 traces on
 * `channel` (sent by PostgreSQL at commit, so exactly once and only for what was committed).
 */
export async function insertTraces(
  db: Queryable,
  batch: readonly Trace[],
  notify: { channel: string; origin: string } | null,
): Promise<{ outcomes: InsertOutcome[]; seqs: number[] }> {
  // The first occurrence of an id in the batch is the one that may be stored; later ones answer like a re-send.
  const first = new Map<string, Trace>()
  const firstIndex = new Map<string, number>()
  batch.forEach((t, i) => {
    if (first.has(t.trace_id)) return
    first.set(t.trace_id, t)
    firstIndex.set(t.trace_id, i)
  })
  const candidates = [...first.values()]
  // trace_ids are ASCII (TRACE_ID_PATTERN): the directory and the traces table hold them alike.
  const inserted = await db.query<{ trace_id: string; seq: number }>(CLAIM_AND_INSERT, [
    candidates.map((t) => t.trace_id),
    candidates.map((t) => t.project_id),
    ...INSERT_COLUMNS.map((c) => candidates.map((t) => toColumnValue(t, c))),
  ])
  const createdIds = new Set(inserted.rows.map((r) => r.trace_id))
  const created = candidates.filter((t) => createdIds.has(t.trace_id))

  // Ids stored before: by the same project → the stored trace; by another → a conflict.
  const stored = new Map<string, Trace>()
  const owner = new Map<string, string>()
  const taken = candidates.filter((t) => !createdIds.has(t.trace_id)).map((t) => t.trace_id)
  if (taken.length > 0) {
    const owners = await db.query<{ trace_id: string; project_id: string }>(
      'select trace_id, project_id from trace_ids where trace_id = any($1::text[])',
      [taken],
    )
    for (const r of owners.rows) owner.set(r.trace_id, r.project_id)
    const mine = taken.filter((id) => owner.get(id) === first.get(id)?.project_id)
    const projectIds = mine.map((id) => owner.get(id)!)
    if (mine.length > 0) {
      const rows = await db.query<TraceRow>(
        `${SELECT_TRACE} where (project_id, trace_id) in (select * from unnest($1::text[], $2::text[]))`,
        [projectIds, mine],
      )
      for (const row of rows.rows) stored.set(row.trace_id, fromRow(row))
    }
  }

  const outcomes = batch.map((trace, i): InsertOutcome => {
    if (firstIndex.get(trace.trace_id) === i && createdIds.has(trace.trace_id)) return { kind: 'created', trace }
    const holder = createdIds.has(trace.trace_id) ? first.get(trace.trace_id)!.project_id : owner.get(trace.trace_id)
    if (holder !== trace.project_id) return { kind: 'conflict', trace_id: trace.trace_id }
    // Stored just now by an earlier entry of this batch, or before.
    const existing = createdIds.has(trace.trace_id) ? first.get(trace.trace_id)! : stored.get(trace.trace_id)
    return existing ? { kind: 'exists', trace: existing } : { kind: 'conflict', trace_id: trace.trace_id }
  })
  if (created.length === 0) return { outcomes, seqs: [] }

  const seqs = inserted.rows.map((r) => r.seq)
  await applyDeltas(
    db,
    rollupDeltas(created),
    notify && { channel: notify.channel, payloads: notifyPayloads(notify.origin, seqs) },
  )
  return { outcomes, seqs }
}

/** Adds what some traces count to every rollup (inside the caller's transaction), rows in key order. */
async function applyDeltas(
  db: Queryable,
  deltas: RollupDeltas,
  notify: { channel: string; payloads: string[] } | null = null,
) {
  const statement = rollupStatement(rollupUpserts(deltas), notify)
  if (statement) await db.query(statement.text, statement.values)
}

/** What `applyDeltas` writes, table by table, rows in key order. */
function rollupUpserts(deltas: RollupDeltas): RollupUpsert[] {
  const totals = sortedBy(deltas.totals, (r) => JSON.stringify([r.project_id, r.environment, r.model, r.status]))
  const hourly = sortedBy(deltas.hourly, (r) => `${r.project_id}\u0000${String(r.hour).padStart(16, '0')}`)
  const histogram = (table: string, rows: readonly HistogramDelta[]): RollupUpsert => ({
    table,
    keys: { project_id: 'text', bucket: 'int4' },
    counted: ['traces'],
    rows: sortedBy([...rows], (r) => `${r.project_id}\u0000${String(r.bucket).padStart(8, '0')}`),
  })
  const span = { first_at: 'int8', last_at: 'int8' }
  const sessions = sortedBy(deltas.sessions, (r) => JSON.stringify([r.project_id, r.session_id]))
  const users = sortedBy(deltas.users, (r) => JSON.stringify([r.project_id, r.user_id]))
  return [
    {
      table: 'rollup_totals',
      keys: { project_id: 'text', environment: 'text', model: 'text', status: 'text' },
      counted: TOTALS_COUNTS,
      rows: totals.map((r) => ({ ...r, model: encodeText(r.model) })),
    },
    {
      table: 'rollup_hourly',
      keys: { project_id: 'text', hour: 'int8' },
      counted: ['traces', ...SUM_COLUMNS],
      rows: hourly,
    },
    histogram('latency_histogram', deltas.latency),
    histogram('token_histogram', deltas.tokens),
    histogram('cost_histogram', deltas.cost),
    {
      table: 'session_totals',
      keys: { project_id: 'text', session_id: 'text' },
      counted: ACTIVITY_COUNTED,
      rows: sessions.map((r) => ({
        ...r,
        session_id: encodeText(r.session_id),
        user_id: r.user_id && encodeText(r.user_id),
      })),
      more: {
        columns: { ...span, user_id: 'text', user_at: 'int8' },
        set: `${activityUpsertSet('session_totals', ACTIVITY_COUNTED, 'least', 'greatest')}, ${sessionUserSet('session_totals')}`,
      },
    },
    {
      table: 'user_totals',
      keys: { project_id: 'text', user_id: 'text' },
      counted: ACTIVITY_COUNTED,
      rows: users.map((r) => ({ ...r, user_id: encodeText(r.user_id) })),
      more: { columns: span, set: activityUpsertSet('user_totals', ACTIVITY_COUNTED, 'least', 'greatest') },
    },
  ]
}

/** Every rollup recounted from the traces, in chunks, inside the caller's transaction (see rollup-rebuild.ts). */
export async function rebuildRollups(db: Queryable): Promise<void> {
  for (const table of [...ROLLUP_TABLES, 'activity_counts']) await db.query(`delete from ${table}`)
  let cursor = 0
  for (;;) {
    const { rows } = await db.query<RollupRow & { cursor: number }>(
      `select seq as cursor, ${ROLLUP_SOURCE_COLUMNS} from traces where seq > $1 order by seq limit $2`,
      [cursor, REBUILD_CHUNK],
    )
    if (rows.length === 0) break
    await applyDeltas(db, rollupDeltas(rows.map(rollupInput)))
    cursor = rows.at(-1)!.cursor
  }
  await db.query(`delete from loupe_meta where key = 'rollups_stale'`)
}

/**
 * One chunk of a re-pricing, inside the caller's transaction: the next traces from a position in (created_at,
 * trace_id) order, locked so that two re-pricings never count a change twice; the changed rows and their rollups
 * (old form out, new form in) written together.
 */
export async function repriceChunk(
  db: Queryable,
  position: RepricePosition,
  since: number,
  reprice: Repricer,
): Promise<RepriceChunk> {
  const { rows } = await db.query<TraceRow & { reported_cost: string | null }>(
    `${SELECT_TRACE.replace(' from', ', reported_cost from')}
     where created_at >= $1 and (created_at, trace_id) > ($2, $3)
     order by created_at, trace_id limit $4 for update`,
    [since, position.at, position.id, REPRICE_CHUNK],
  )
  const before: Trace[] = []
  const after: Trace[] = []
  for (const row of rows) {
    const { reported_cost, ...columns } = row
    const old = fromRow(columns)
    const next = reprice(old, parseReportedCosts(reported_cost))
    if (!costsDiffer(old, next)) continue
    before.push(old)
    after.push(next)
  }
  if (after.length > 0) {
    await db.query(
      `update traces t set cost = u.cost, steps = u.steps::jsonb
       from unnest($1::text[], $2::text[], $3::float8[], $4::text[]) as u(project_id, trace_id, cost, steps)
       where t.project_id = u.project_id and t.trace_id = u.trace_id`,
      [
        after.map((t) => t.project_id),
        after.map((t) => t.trace_id),
        after.map((t) => t.cost),
        after.map((t) => encodeJson(t.steps)),
      ],
    )
    await applyDeltas(db, rollupDeltas(after, before))
  }
  const last = rows.at(-1)
  return { scanned: rows.length, changed: after.length, next: last ? { at: last.created_at, id: last.trace_id } : null }
}

/**
 * Fills the searchable text of the traces stored before search existed (a migration sets `search_stale`), in chunks
 * of their own transactions: searching meanwhile finds the traces filled so far.
 */
export async function fillSearchText(db: Queryable): Promise<void> {
  for (;;) {
    const { rows } = await db.query<
      Pick<TraceRow, 'project_id' | 'trace_id' | 'name' | 'prompt' | 'response' | 'failure_reason' | 'steps'>
    >(
      `select project_id, trace_id, name, prompt, response, failure_reason, steps from traces
       where search_text is null limit $1`,
      [REBUILD_CHUNK],
    )
    if (rows.length === 0) break
    // Traces found by a search for the first time: the search totals kept until now no longer hold (one statement,
    // so the counter moves with the text).
    await db.query(
      `with filled as (
         update traces t set search_text = u.search_text
         from unnest($1::text[], $2::text[], $3::text[]) as u(project_id, trace_id, search_text)
         where t.project_id = u.project_id and t.trace_id = u.trace_id)
       ${BUMP_REMOVALS}`,
      [
        rows.map((r) => r.project_id),
        rows.map((r) => encodeText(r.trace_id)),
        rows.map((r) => encodeText(searchText(r))),
      ],
    )
  }
  await db.query(`delete from loupe_meta where key = 'search_stale'`)
}

/**
 * Each word a substring of the searchable text: through pg_trgm's GIN index (LIKE, for words of 3 characters or
 * more), or as a probe (`strpos`, which no index serves), so that the planner walks the order's index and tests each
 * trace until the page is full — the plan for a common word.
 */
const searchClause: SearchClause = (words, bind, probe) =>
  words
    .map((w) =>
      probe
        ? `strpos(search_text, ${bind(w)}) > 0`
        : `search_text like ${bind(`%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}`,
    )
    .join(' and ')

/** Traces by their seq numbers, in seq order. */
export async function tracesBySeq(db: Queryable, seqs: readonly number[]): Promise<(Trace & { seq: number })[]> {
  const rows = await db.query<TraceRow & { seq: number }>(
    `${SELECT_TRACE.replace(' from', ', seq from')} where seq = any($1::int8[]) order by seq`,
    [seqs],
  )
  return rows.rows.map((row) => {
    const { seq, ...trace } = row
    return { ...fromRow(trace), seq }
  })
}

/** Traces stored after seq `after`, oldest first, at most `limit`. */
export async function tracesAfter(db: Queryable, after: number, limit: number): Promise<(Trace & { seq: number })[]> {
  const rows = await db.query<{ seq: number }>('select seq from traces where seq > $1 order by seq limit $2', [
    after,
    limit,
  ])
  return rows.rows.length === 0
    ? []
    : tracesBySeq(
        db,
        rows.rows.map((r) => r.seq),
      )
}

export async function maxSeq(db: Queryable): Promise<number> {
  const rows = await db.query<{ seq: number | null }>('select max(seq) as seq from traces')
  return rows.rows[0]?.seq ?? 0
}

export async function getTrace(db: Queryable, traceId: string): Promise<Trace | null> {
  // The directory names the project, so the read is a primary-key lookup (one shard once distributed).
  const [row] = await prepared<TraceRow>(
    db,
    `${SELECT_TRACE} where (project_id, trace_id) = (select project_id, trace_id from trace_ids where trace_id = $1)`,
    [traceId],
  )
  return row ? fromRow(row) : null
}

/** A filter's WHERE clause with `$n` markers, and its values in order (text through the U+0000 escape). */
function pgWhere(f: TraceFilter, extra: ExtraConditions = {}, probe?: boolean) {
  const params: unknown[] = []
  const text = traceWhere(
    f,
    extra,
    (value) => {
      params.push(typeof value === 'string' ? encodeText(value) : value)
      return `$${params.length}`
    },
    searchClause,
    probe,
  )
  return { sql: text, params }
}

/** The SQL type of each rollup key column (for the unnest of a set of keys). */
const KEY_TYPES: Record<string, string> = {
  project_id: 'text',
  environment: 'text',
  model: 'text',
  status: 'text',
  hour: 'int8',
  bucket: 'int4',
  session_id: 'text',
  user_id: 'text',
}

/**
 * The traces of a rollup row's session or user. The rollup's id is compared under the collation of the traces'
 * column (the same equality: both collations are deterministic), so that the condition seeks its index
 * (traces_session_created, traces_user_created) instead of walking every trace of the project.
 */
const tracesOf = (table: string, column: string) =>
  `t.${column} = ${table}.${column} collate "default" and t.project_id = ${table}.project_id`

/**
 * A session's or a user's first and last trace, from the traces left (each one seek of its index), each sought only
 * where a deleted trace may have been it: the key's deleted traces (k.first_at, k.last_at, their earliest and latest)
 * reach the row's first or last. Deleting the oldest traces moves every first and hardly any last; each seek costs a
 * random read of a trace (the index lacks the project), which at 1M traces was the largest part of a batch.
 */
const spanOf = (table: string, column: string) => `
  first_at = case when k.first_at <= ${table}.first_at
    then (select t.created_at from traces t where ${tracesOf(table, column)} order by t.created_at limit 1)
    else ${table}.first_at end,
  last_at = case when k.last_at >= ${table}.last_at
    then (select t.created_at from traces t where ${tracesOf(table, column)} order by t.created_at desc limit 1)
    else ${table}.last_at end`

/** A session's user again, where a deleted trace may have been the one it came from (k.user_at: their earliest). */
const sessionUser = (table: string) => {
  const sought = `coalesce(k.user_at <= ${table}.user_at, false)`
  return `(user_id, user_at) = (
    (select t.user_id, t.created_at from traces t
      where ${sought} and ${tracesOf(table, 'session_id')} and t.user_id is not null
      order by t.created_at, t.user_id limit 1)
    union all
    (select ${table}.user_id, ${table}.user_at where not ${sought}))`
}

/**
 * Deletes the oldest matches of a selection inside an open transaction: their rows (locked first, so two deletions
 * never count one trace twice), their trace_id directory entries, and what they added to the rollups — the exact
 * inverse of insertTraces (removalDeltas). Then the rollup rows they touched that hold no trace any more go (a recount
 * would not have them), and their sessions and users get their span (and a session its user) from the traces left:
 * the rollup rows are locked by then, so an ingest into the same session waits, or was committed and is seen.
 */
export async function deleteTraces(
  db: Queryable,
  { filter, trace_ids, limit }: DeleteSelection,
  searchCounts: PostgresSearchCounts,
): Promise<{ deleted: DeletedTrace[]; counts: PassedCount<string>[] }> {
  const w = pgWhere(filter, trace_ids ? { traceIds: trace_ids } : {})
  const { rows } = await db.query<RollupRow & { trace_id: string; seq: number }>(
    `select seq, trace_id, ${ROLLUP_SOURCE_COLUMNS} from traces ${w.sql}
     order by created_at, trace_id limit $${w.params.length + 1} for update`,
    [...w.params, limit],
  )
  if (rows.length === 0) return { deleted: [], counts: [] }
  // Search totals kept by any replica counted these traces; the counter's row, locked after the traces', is held to
  // the commit. The counts this instance kept under the value before are tested against the traces, still there.
  const [{ value: bumped }] = (await db.query<{ value: string }>(BUMP_REMOVALS_RETURNING)).rows as [{ value: string }]
  const seqs = rows.map((r) => r.seq)
  const counts = await lessOfCounts(db, searchCounts, seqs, bumped)
  await db.query('delete from traces where seq = any($1::int8[])', [seqs])
  await db.query('delete from trace_ids where trace_id = any($1::text[])', [rows.map((r) => encodeText(r.trace_id))])
  const deltas = removalDeltas(rows.map(rollupInput))
  await applyDeltas(db, deltas)
  const gone: Record<string, { project_id: string }[]> = {}
  for (const [table, touched] of deltaRows(deltas)) {
    if (touched.length === 0) continue
    const keys = ROLLUP_KEYS[table]
    const matches = keys.map((k) => `${table}.${k} = k.${k}`).join(' and ')
    const from = `unnest(${keys.map((k, i) => `$${i + 1}::${KEY_TYPES[k]}[]`).join(', ')}) as k(${keys.join(', ')})`
    const params = keys.map((k) =>
      touched.map((row) => {
        const value = (row as Record<string, unknown>)[k]
        return typeof value === 'string' ? encodeText(value) : value
      }),
    )
    const deleted = await db.query<{ project_id: string }>(
      `delete from ${table} using ${from} where ${matches} and ${table}.traces = 0 returning ${table}.project_id`,
      params,
    )
    gone[table] = deleted.rows
    if (table !== 'session_totals' && table !== 'user_totals') continue
    // The keys with the span of their deleted traces (and a session's earliest deleted trace naming a user).
    const spans = touched as readonly (ActivityDelta & { user_at?: number | null })[]
    const n = keys.length
    const span = `unnest(${keys.map((k, i) => `$${i + 1}::${KEY_TYPES[k]}[]`).join(', ')},
      $${n + 1}::int8[], $${n + 2}::int8[], $${n + 3}::int8[]) as k(${keys.join(', ')}, first_at, last_at, user_at)`
    const spanParams = [
      ...params,
      spans.map((r) => r.first_at),
      spans.map((r) => r.last_at),
      spans.map((r) => r.user_at ?? null),
    ]
    const column = table === 'session_totals' ? 'session_id' : 'user_id'
    const user = table === 'session_totals' ? `, ${sessionUser(table)}` : ''
    await db.query(`update ${table} set ${spanOf(table, column)}${user} from ${span} where ${matches}`, spanParams)
  }
  await countActivity(db, -1, gone.session_totals ?? [], gone.user_totals ?? [])
  return { deleted: rows.map((r) => ({ trace_id: r.trace_id, project_id: r.project_id })), counts }
}

/**
 * The search counts this instance keeps, past the deletion of the traces of these seqs (still there): each one's
 * matches among those it counted (of a transaction below its horizon, or stored before the xid was kept), each tested
 * as a read tests the traces stored after a count.
 */
async function lessOfCounts(
  db: Queryable,
  searchCounts: PostgresSearchCounts,
  seqs: readonly number[],
  bumped: string,
): Promise<PassedCount<string>[]> {
  const counted = searchCounts.removable(bumped)
  const less: number[] = []
  for (const { f, count } of counted) {
    const w = pgWhere(f, {}, true)
    const n = w.params.length
    const [row] = await prepared<{ n: number }>(
      db,
      `select count(*)::int as n from traces ${w.sql}
       and seq = any($${n + 1}::int8[]) and (xid is null or xid < $${n + 2}::xid8)`,
      [...w.params, seqs, count.horizon],
    )
    less.push(row?.n ?? 0)
  }
  return passRemoval(counted, bumped, less)
}

/** The search totals a store instance keeps: up to a snapshot's xmin (an xid8, in its decimal text). */
export const createPostgresSearchCounts = () => createSearchCounts<string>((kept, now) => BigInt(kept) <= BigInt(now))

/**
 * The exact total of a search, from the count kept by this instance when one is usable: the matches among the traces
 * of transactions that had all ended before its snapshot (xid below the snapshot's xmin — no trace can join them
 * later, whatever seq it holds), plus the matches among the traces of later transactions that this snapshot sees,
 * each tested as it is read through the xid index. The count is kept again up to this snapshot's own xmin. Runs
 * inside the read-only repeatable-read snapshot of the request (store.ts), which the removal counter is read in too.
 */
async function countSearch(db: Queryable, counts: PostgresSearchCounts, f: TraceFilter): Promise<number> {
  const [now] = await prepared<{ horizon: string; removals: string }>(
    db,
    `select pg_snapshot_xmin(pg_current_snapshot())::text as horizon, ${REMOVALS_NOW} as removals`,
    [],
  )
  const { horizon, removals } = now!
  const kept = counts.usable(f, removals, horizon)
  const w = pgWhere(f, {}, kept !== undefined)
  const n = w.params.length
  const [row] = kept
    ? await prepared<{ n: number; settled: number }>(
        db,
        `select count(*) as n, count(*) filter (where xid < $${n + 1}::xid8) as settled
         from traces ${w.sql} and xid >= $${n + 2}::xid8`,
        [...w.params, horizon, kept.horizon],
      )
    : await prepared<{ n: number; settled: number }>(
        db,
        `select count(*) as n, count(*) filter (where xid is null or xid < $${n + 1}::xid8) as settled
         from traces ${w.sql}`,
        [...w.params, horizon],
      )
  const base = kept?.n ?? 0
  counts.keep(f, { removals, horizon, n: base + (row?.settled ?? 0) })
  return base + (row?.n ?? 0)
}

export type PostgresSearchCounts = ReturnType<typeof createPostgresSearchCounts>

/** The shared read plan over one connection (inside a read-only snapshot, see store.ts). */
export function traceReads(db: pg.ClientBase, searchCounts: PostgresSearchCounts) {
  /** A statement with the project condition (and its parameter) only when a project is given. */
  const scoped = (projectId: string | undefined, params: unknown[] = []) =>
    projectId === undefined
      ? { cond: 'true', params }
      : { cond: `project_id = $${params.length + 1}`, params: [...params, projectId] }

  const where = pgWhere

  /** The statement of a page of rows of `select` (a select … from traces) in the selection's order. */
  const pageQuery = (select: string, { filter, extra, limit, offset, ordering, probe, collect }: Selection) => {
    const w = where(filter, extra, probe)
    const n = w.params.length
    // The read plan's collection of a rare word's matches: planned at each run, with its words, which a generic plan
    // could not weigh; and in an order no index serves, which PostgreSQL, misjudging how many traces a word matches,
    // took the cost index for and tested trace after trace (a rare word sorted by cost: 1 s at 1M traces).
    const text = `${select} ${w.sql} ${orderBy(ordering, true, collect)} limit $${n + 1} offset $${n + 2}`
    return { text, values: [...w.params, limit, offset], name: collect ? undefined : statementName(text) }
  }

  /** A page of rows of `select`; PostgreSQL's planner picks the index. */
  const selectPage = async <R extends QueryResultRow>(select: string, selection: Selection) => {
    const { text, values, name } = pageQuery(select, selection)
    return (await db.query<R>(name === undefined ? { text, values } : { name, text, values })).rows
  }

  const queries: TraceReadQueries = {
    async totals(projectId) {
      const s = scoped(projectId)
      const rows = await prepared<TotalsRow>(
        db,
        `select project_id, environment, model, status, ${TOTALS_COUNTS.join(', ')} from rollup_totals where ${s.cond}`,
        s.params,
      )
      return rows
    },

    async tally(dims) {
      const conditions = TALLY_DIMS.filter((d) => dims[d] !== undefined)
      const where = conditions.length ? `where ${conditions.map((d, i) => `${d} = $${i + 1}`).join(' and ')}` : ''
      const rows = await prepared<Tally>(
        db,
        `select coalesce(sum(traces), 0) as traces, coalesce(sum(retries), 0) as retries,
           coalesce(sum(case when status = 'failed' then traces else 0 end), 0) as failed
         from rollup_totals ${where}`,
        conditions.map((d) => encodeText(dims[d] as string)),
      )
      return rows[0] ?? { traces: 0, retries: 0, failed: 0 }
    },

    async histogram(kind, projectId, window) {
      let n = 0
      const { where, params } = histogramWhere(projectId, window, () => `$${++n}`)
      return prepared<HistogramRow>(
        db,
        `select bucket, sum(traces) as traces from ${HISTOGRAMS[kind].table} ${where} group by bucket order by bucket`,
        params,
      )
    },

    async countBoundary(kind, projectId, from, below, max) {
      const { column: c, scale } = HISTOGRAMS[kind]
      const s = scoped(projectId, [from / scale, below / scale, max / scale])
      const rows = await prepared<{ n: number }>(
        db,
        `select count(*) as n from traces where ${s.cond} and ${c} >= $1 and ${c} < $2 and ${c} <= $3`,
        s.params,
      )
      return rows[0]?.n ?? 0
    },

    async hours(projectId) {
      const s = scoped(projectId)
      const rows = await prepared<{ hour: number; traces: number }>(
        db,
        `select hour, sum(traces) as traces from rollup_hourly where ${s.cond} group by hour order by hour desc`,
        s.params,
      )
      return rows
    },

    async hoursBetween(start, end, projectId) {
      const s = scoped(projectId, [start, end])
      const rows = await prepared<HourRow>(
        db,
        `select hour, sum(traces) as traces, ${SUM_COLUMNS.map((c) => `sum(${c}) as ${c}`).join(', ')}
         from rollup_hourly where hour >= $1 and hour < $2 and ${s.cond} group by hour`,
        s.params,
      )
      return rows
    },

    async count(f) {
      if (keepsCount(f)) return countSearch(db, searchCounts, f)
      const w = where(f)
      const rows = await prepared<{ n: number }>(db, `select count(*) as n from traces ${w.sql}`, w.params)
      return rows[0]?.n ?? 0
    },

    async select(selection) {
      return (await selectPage<TraceRow>(SELECT_TRACE, selection)).map(fromRow)
    },

    async selectEach(selection, each) {
      return eachRow<TraceRow, ReturnType<typeof each>>(db, pageQuery(SELECT_TRACE, selection), (row) =>
        each(fromRow(row)),
      )
    },

    async selectSummaries(selection) {
      const rows = await selectPage<Omit<TraceSummary, 'created_at'> & { created_at: number }>(
        `select ${SUMMARY_KEYS.join(', ')}, jsonb_array_length(steps) as step_count from traces`,
        selection,
      )
      return rows.map((row) => ({ ...row, created_at: toUtcIso(row.created_at) }))
    },

    async latencyAt(projectId, lo, hi, offset) {
      const s = scoped(projectId, [lo, hi, offset])
      const rows = await prepared<{ latency: number }>(
        db,
        `select latency from traces where ${s.cond} and latency >= $1 and latency < $2
         order by latency limit 1 offset $3`,
        s.params,
      )
      return rows[0]?.latency
    },
  }
  const activity = createActivityReads({
    async query<R>(build: (bind: (value: unknown) => string) => string) {
      const params: unknown[] = []
      const text = build((value) => {
        params.push(typeof value === 'string' ? encodeText(value) : value)
        return `$${params.length}`
      })
      return (await prepared(db, text, params)) as R[]
    },
    select: queries.select,
    async countAll(kind, projectId) {
      const s = scoped(projectId === undefined ? undefined : encodeText(projectId))
      const rows = await prepared<{ n: number }>(
        db,
        `select coalesce(sum(${kind}), 0) as n from activity_counts where ${s.cond}`,
        s.params,
      )
      return rows[0]?.n ?? 0
    },
  })
  return { ...createTraceReads(queries), ...activity }
}
