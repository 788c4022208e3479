// How rollup deltas are written on SQLite: one upsert statement per rollup, prepared once, each row of the deltas added
// to what its row holds.
import type Database from 'better-sqlite3'
import {
  ACTIVITY_COUNTED,
  activityUpsertSet,
  addExcluded,
  CALL_COUNTED,
  type RollupDeltas,
  SUM_COLUMNS,
  sessionUserSet,
  TOTALS_COUNTS,
} from '../rollups.js'

/** What adds some traces' counts to every rollup (inside the caller's transaction). */
export function createRollupWrites(db: Database.Database): (deltas: RollupDeltas) => void {
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
  const upsertCalls = upsert('call_totals', ['project_id', 'kind', 'name'], CALL_COUNTED)

  return (deltas: RollupDeltas) => {
    for (const row of deltas.totals) upsertTotals.run(row)
    for (const row of deltas.hourly) upsertHourly.run(row)
    for (const row of deltas.latency) upsertLatency.run(row)
    for (const row of deltas.tokens) upsertTokens.run(row)
    for (const row of deltas.cost) upsertCost.run(row)
    for (const row of deltas.sessions) upsertSession.run(row)
    for (const row of deltas.users) upsertUser.run(row)
    for (const row of deltas.calls) upsertCalls.run(row)
  }
}
