// How rollup deltas are written on PostgreSQL: every rollup's upsert (with the notification to other replicas) as one
// statement, rows in key order so that concurrent transactions never deadlock, and the counts of sessions and users.
import {
  ACTIVITY_COUNTED,
  activityUpsertSet,
  addExcluded,
  CALL_COUNTED,
  type HistogramDelta,
  type RollupDeltas,
  SUM_COLUMNS,
  sessionUserSet,
  TOTALS_COUNTS,
} from '../rollups.js'
import { encodeText } from './nul.js'
import type { Queryable } from './statements.js'

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
export async function countActivity(
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

/** Adds what some traces count to every rollup (inside the caller's transaction), rows in key order. */
export async function applyDeltas(
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
  const calls = sortedBy(deltas.calls, (r) => JSON.stringify([r.project_id, r.kind, r.name]))
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
    {
      table: 'call_totals',
      keys: { project_id: 'text', kind: 'text', name: 'text' },
      counted: CALL_COUNTED,
      rows: calls.map((r) => ({ ...r, name: encodeText(r.name) })),
    },
  ]
}
