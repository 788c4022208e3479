// Trace writes on PostgreSQL, each inside the caller's transaction: a batch stored (the trace_id directory, the rows
// with their search text, every rollup and the notification to other replicas), a batch deleted with the exact
// inverse, a chunk re-priced, and the rebuilds a migration asks for. Every value is bound as a parameter; arrays go
// through unnest. Storing a batch takes two statements: the trace_ids and the traces, then every rollup and the
// notification.
import { searchText, type Trace } from '../../../schemas/index.js'
import { jobRowsOf } from '../evaluation-jobs.js'
import { type PricedTrace, parseReportedCosts, REPORTED_COST, reportedCostJson } from '../reported-cost.js'
import { costsDiffer, REPRICE_CHUNK, type RepriceChunk, type RepricePosition } from '../reprice.js'
import { REBUILD_CHUNK, ROLLUP_SOURCE_COLUMNS, type RollupRow, rollupInput } from '../rollup-rebuild.js'
import {
  type ActivityDelta,
  deltaRows,
  REBUILD_CALL_TOTALS,
  ROLLUP_KEYS,
  ROLLUP_TABLES,
  removalDeltas,
  rollupDeltas,
  type TraceCallRow,
  traceCallRows,
} from '../rollups.js'
import { deleteScoresOfTraces } from '../score-writes.js'
import { BUMP_REMOVALS, BUMP_REMOVALS_RETURNING, type PassedCount, passRemoval } from '../search-counts.js'
import type { StoredKey } from '../stored-trace.js'
import type { DeletedTrace, DeleteSelection, InsertOutcome, Repricer } from '../types.js'
import { encodeJson, encodeText } from './nul.js'
import { POSTGRES_PLANS, runPlan } from './plan.js'
import { notifyPayloads } from './replica-feed.js'
import { applyDeltas, countActivity } from './rollup-writes.js'
import { prepared, type Queryable } from './statements.js'
import type { TraceRow } from './tables.js'
import { COLUMNS, fromRow, type PostgresSearchCounts, SELECT_TRACE, where } from './trace-rows.js'

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
  experiment_id: 'text',
  dataset_item_id: 'text',
  tags: 'jsonb',
  metadata: 'jsonb',
  created_at: 'int8',
  steps: 'jsonb',
  reported_cost: 'text',
  search_text: 'text',
}

/** The columns written at insert: the trace's, then what the client reported of its costs. */
type InsertColumn = StoredKey | typeof REPORTED_COST | 'search_text'
const INSERT_COLUMNS: InsertColumn[] = [...COLUMNS, REPORTED_COST, 'search_text']

const toColumnValue = ({ trace: t, reported }: PricedTrace, column: InsertColumn): unknown => {
  if (column === REPORTED_COST) return reportedCostJson(reported)
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
 * Stores a batch inside an open transaction on `db`: idempotent on trace_id (the trace_ids directory decides, so a
 * trace_id is unique across projects), rollups for the newly stored traces, and one notification per ~1000 traces on
 * `channel` (sent by PostgreSQL at commit, so exactly once and only for what was committed).
 */
export async function insertTraces(
  db: Queryable,
  priced: readonly PricedTrace[],
  notify: { channel: string; origin: string } | null,
): Promise<{ outcomes: InsertOutcome[]; seqs: number[] }> {
  const batch = priced.map((p) => p.trace)
  // The first occurrence of an id in the batch is the one that may be stored; later ones answer like a re-send.
  const first = new Map<string, PricedTrace>()
  const firstIndex = new Map<string, number>()
  priced.forEach((p, i) => {
    if (first.has(p.trace.trace_id)) return
    first.set(p.trace.trace_id, p)
    firstIndex.set(p.trace.trace_id, i)
  })
  const candidates = [...first.values()]
  // trace_ids are ASCII (TRACE_ID_PATTERN): the directory and the traces table hold them alike.
  const inserted = await db.query<{ trace_id: string; seq: number }>(CLAIM_AND_INSERT, [
    candidates.map((p) => p.trace.trace_id),
    candidates.map((p) => p.trace.project_id),
    ...INSERT_COLUMNS.map((c) => candidates.map((p) => toColumnValue(p, c))),
  ])
  const createdIds = new Set(inserted.rows.map((r) => r.trace_id))
  const created = candidates.filter((p) => createdIds.has(p.trace.trace_id)).map((p) => p.trace)

  // Ids stored before: by the same project → the stored trace; by another → a conflict.
  const stored = new Map<string, Trace>()
  const owner = new Map<string, string>()
  const taken = candidates.filter((p) => !createdIds.has(p.trace.trace_id)).map((p) => p.trace.trace_id)
  if (taken.length > 0) {
    const owners = await db.query<{ trace_id: string; project_id: string }>(
      'select trace_id, project_id from trace_ids where trace_id = any($1::text[])',
      [taken],
    )
    for (const r of owners.rows) owner.set(r.trace_id, r.project_id)
    // The stored trace is read when any entry of the batch is its owner's, not only when the first with that id is (a
    // batch of one project grouped behind another project's trace of the same id).
    const asked = new Set(batch.map((t) => `${t.project_id}\u0000${t.trace_id}`))
    const mine = taken.filter((id) => asked.has(`${owner.get(id)}\u0000${id}`))
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
    const holder = createdIds.has(trace.trace_id)
      ? first.get(trace.trace_id)!.trace.project_id
      : owner.get(trace.trace_id)
    if (holder !== trace.project_id) return { kind: 'conflict', trace_id: trace.trace_id }
    // Stored just now by an earlier entry of this batch, or before.
    const existing = createdIds.has(trace.trace_id) ? first.get(trace.trace_id)!.trace : stored.get(trace.trace_id)
    return existing ? { kind: 'exists', trace: existing } : { kind: 'conflict', trace_id: trace.trace_id }
  })
  if (created.length === 0) return { outcomes, seqs: [] }

  const jobs = jobRowsOf(candidates.filter((p) => createdIds.has(p.trace.trace_id)))
  if (jobs.length > 0) {
    // The evaluations the new traces are due for, in their transaction (evaluation-jobs.ts).
    await db.query(
      `insert into evaluation_jobs (project_id, evaluator_id, trace_id, due_at, created_at)
       select * from unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[])
       on conflict (evaluator_id, trace_id) do nothing`,
      [
        jobs.map((j) => j.project_id),
        jobs.map((j) => j.evaluator_id),
        jobs.map((j) => j.trace_id),
        jobs.map((j) => j.due_at),
        jobs.map((j) => j.created_at),
      ],
    )
  }
  const calls = created.flatMap(traceCallRows)
  if (calls.length > 0) {
    // Each trace's calls of agents and tools (rollups.ts), in its transaction.
    await db.query(
      `insert into trace_calls (trace_id, project_id, kind, name, calls, failures, latency_micros, timed)
       select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int4[], $6::int4[], $7::int8[],
         $8::int4[])`,
      [
        calls.map((c) => c.trace_id),
        calls.map((c) => c.project_id),
        calls.map((c) => c.kind),
        calls.map((c) => encodeText(c.name)),
        calls.map((c) => c.calls),
        calls.map((c) => c.failures),
        calls.map((c) => c.latency_micros),
        calls.map((c) => c.timed),
      ],
    )
  }
  const seqs = inserted.rows.map((r) => r.seq)
  await applyDeltas(
    db,
    rollupDeltas(created, [], { added: calls }),
    notify && { channel: notify.channel, payloads: notifyPayloads(notify.origin, seqs) },
  )
  return { outcomes, seqs }
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
  await db.query(REBUILD_CALL_TOTALS)
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
  kind: 'text',
  name: 'text',
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
  const w = where(filter, trace_ids ? { traceIds: trace_ids } : {})
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
  // Their scores go after their directory rows: a score being stored holds its trace's directory row (for key share)
  // until it commits, so by now every score of these traces is committed and seen here.
  await runPlan(
    db,
    deleteScoresOfTraces(
      POSTGRES_PLANS,
      rows.map((r) => r.trace_id),
    ),
  )
  const { rows: calls } = await db.query<TraceCallRow>(
    `delete from trace_calls where trace_id = any($1::text[])
     returning trace_id, project_id, kind, name, calls, failures, latency_micros, timed`,
    [rows.map((r) => encodeText(r.trace_id))],
  )
  const deltas = removalDeltas(rows.map(rollupInput), calls)
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
    const w = where(f, {}, true)
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
