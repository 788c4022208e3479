// Score writes, written once for both databases as plans (plan.ts). The rollups of scores move in the same
// transaction as the scores:
// - score_hourly per (project, name, data type, label, hour of created_at): how many, and the exact sum of values;
// - trace_scores per (trace, name): how many, the exact sum, and their mean (the light list, the order by a score);
// - score_values per (name, value, label, project) of the scores of traces: how many (the count of a score filter).
// Sums are exact: each value counts as whole micro-units, held in two integer columns (as ExactSum in rollups.ts), so a
// delete subtracts exactly what the insert added and every figure stays equal to a recount.
import type { Score, ScoreConfig } from '../../schemas/index.js'
import { HOUR_MS } from '../analytics/math.js'
import { type Plan, type PlanDialect, run } from './plan.js'
import type { NewScore, ScoreInsertOutcome } from './types.js'

/** Micro-units per unit of a score's value: the exact sums count whole micro-units. */
export const VALUE_UNITS = 1_000_000
/** The unit of value_hi, in micro-units: value_lo holds the rest. */
export const SPLIT = 1_000_000

/** A value as whole micro-units, split into the two integer columns of an exact sum (lo in [0, SPLIT)). */
export function valueSum(value: number): { hi: number; lo: number } {
  const units = Math.round(value * VALUE_UNITS)
  const hi = Math.floor(units / SPLIT)
  return { hi, lo: units - hi * SPLIT }
}

/** The mean of `count` values whose exact sum is hi/lo: computed as the database computes it (IEEE doubles). */
export const meanOf = (hi: number, lo: number, count: number): number => (hi * SPLIT + lo) / VALUE_UNITS / count

/** A rollup row's key in score_hourly. */
const hourlyKey = (s: Score) => ({
  project_id: s.project_id,
  name: s.name,
  data_type: s.data_type,
  label: s.label ?? '',
  hour: Math.floor(Date.parse(s.created_at) / HOUR_MS) * HOUR_MS,
})

interface Delta {
  scores: number
  hi: number
  lo: number
}

/** The signed rollup deltas of some scores: per hourly key, and per (trace, name). */
function deltasOf(scores: readonly Score[], sign: 1 | -1) {
  const hourly = new Map<string, ReturnType<typeof hourlyKey> & Delta>()
  const perTrace = new Map<string, { trace_id: string; name: string; project_id: string } & Delta>()
  const perValue = new Map<string, { name: string; value: number; label: string; project_id: string } & Delta>()
  const add = (row: Delta, s: Score) => {
    const { hi, lo } = valueSum(s.value)
    row.scores += sign
    row.hi += sign * hi
    row.lo += sign * lo
  }
  /** The row of `key` in `map`, made empty the first time. */
  const rowOf = <R extends Delta>(map: Map<string, R>, key: Omit<R, keyof Delta>): R => {
    const k = JSON.stringify(key)
    const found = map.get(k)
    if (found) return found
    const made = { ...key, scores: 0, hi: 0, lo: 0 } as R
    map.set(k, made)
    return made
  }
  for (const s of scores) {
    add(rowOf(hourly, hourlyKey(s)), s)
    if (s.trace_id === null) continue
    add(rowOf(perTrace, { trace_id: s.trace_id, name: s.name, project_id: s.project_id }), s)
    add(rowOf(perValue, { name: s.name, value: s.value, label: s.label ?? '', project_id: s.project_id }), s)
  }
  return { hourly: [...hourly.values()], perTrace: [...perTrace.values()], perValue: [...perValue.values()] }
}

/** Applies signed deltas to the rollups; rows left without a score go (a recount would not have them). */
function* applyDeltas(d: PlanDialect, deltas: ReturnType<typeof deltasOf>): Plan<void> {
  for (const h of deltas.hourly) {
    yield* run(
      (b) =>
        `insert into score_hourly (project_id, name, data_type, label, hour, scores, value_hi, value_lo)
         values (${b(h.project_id)}, ${b(h.name)}, ${b(h.data_type)}, ${b(h.label)}, ${b(h.hour)}, ${b(h.scores)},
                 ${b(h.hi)}, ${b(h.lo)})
         on conflict (project_id, name, data_type, label, hour) do update set
           scores = score_hourly.scores + excluded.scores,
           value_hi = score_hourly.value_hi + excluded.value_hi,
           value_lo = score_hourly.value_lo + excluded.value_lo`,
    )
    if (h.scores < 0) {
      yield* run(
        (b) =>
          `delete from score_hourly where project_id = ${b(h.project_id)} and name = ${b(h.name)}
           and data_type = ${b(h.data_type)} and label = ${b(h.label)} and hour = ${b(h.hour)} and scores = 0`,
      )
    }
  }
  const mean = (t: string) =>
    `${d.float(`(${t}.value_hi + excluded.value_hi) * ${SPLIT} + ${t}.value_lo + excluded.value_lo`)} / ${VALUE_UNITS} / (${t}.scores + excluded.scores)`
  for (const t of deltas.perTrace) {
    const first = t.scores > 0 ? meanOf(t.hi, t.lo, t.scores) : 0
    yield* run(
      (b) =>
        `insert into trace_scores (trace_id, name, project_id, scores, value_hi, value_lo, mean)
         values (${b(t.trace_id)}, ${b(t.name)}, ${b(t.project_id)}, ${b(t.scores)}, ${b(t.hi)}, ${b(t.lo)}, ${b(first)})
         on conflict (trace_id, name) do update set
           scores = trace_scores.scores + excluded.scores,
           value_hi = trace_scores.value_hi + excluded.value_hi,
           value_lo = trace_scores.value_lo + excluded.value_lo,
           mean = case when trace_scores.scores + excluded.scores = 0 then 0 else ${mean('trace_scores')} end`,
    )
    if (t.scores < 0) {
      yield* run(
        (b) => `delete from trace_scores where trace_id = ${b(t.trace_id)} and name = ${b(t.name)} and scores = 0`,
      )
    }
  }
  for (const v of deltas.perValue) {
    yield* run(
      (b) =>
        `insert into score_values (name, value, label, project_id, scores)
         values (${b(v.name)}, ${b(v.value)}, ${b(v.label)}, ${b(v.project_id)}, ${b(v.scores)})
         on conflict (name, value, label, project_id) do update set scores = score_values.scores + excluded.scores`,
    )
    if (v.scores < 0) {
      yield* run(
        (b) =>
          `delete from score_values where name = ${b(v.name)} and value = ${b(v.value)} and label = ${b(v.label)}
           and project_id = ${b(v.project_id)} and scores = 0`,
      )
    }
  }
}

/** The columns of a score row, in the order every statement names them. */
export const SCORE_COLUMNS = [
  'score_id',
  'project_id',
  'trace_id',
  'step_index',
  'session_id',
  'user_id',
  'name',
  'data_type',
  'value',
  'label',
  'comment',
  'source',
  'author',
  'created_at',
  'metadata',
] as const

/** A stored row as the Score the API answers (metadata is JSON text on SQLite, a value on PostgreSQL). */
export function scoreOf(row: Record<string, unknown>): Score {
  const metadata = row.metadata
  return {
    score_id: row.score_id as string,
    project_id: row.project_id as string,
    trace_id: (row.trace_id as string | null) ?? null,
    step_index: (row.step_index as number | null) ?? null,
    session_id: (row.session_id as string | null) ?? null,
    name: row.name as string,
    data_type: row.data_type as Score['data_type'],
    value: row.value as number,
    label: (row.label as string | null) ?? null,
    comment: (row.comment as string | null) ?? null,
    source: row.source as Score['source'],
    author: (row.author as string | null) ?? null,
    created_at: new Date(row.created_at as number).toISOString(),
    metadata: (typeof metadata === 'string' ? JSON.parse(metadata) : metadata) as Score['metadata'],
  }
}

const SELECT = `select ${SCORE_COLUMNS.join(', ')} from scores`

/** Stores scores (see ScoreStore.insert). */
export function* insertScores(d: PlanDialect, batch: readonly NewScore[]): Plan<ScoreInsertOutcome[]> {
  const outcomes: ScoreInsertOutcome[] = []
  const created: Score[] = []
  for (const { score: s, user_id } of batch) {
    if (s.trace_id !== null) {
      const traceId = s.trace_id
      const found = yield* run((b) => d.lockTrace(b, traceId))
      if (found.length === 0) {
        outcomes.push({ kind: 'missing' })
        continue
      }
    }
    const values: unknown[] = [
      s.score_id,
      s.project_id,
      s.trace_id,
      s.step_index,
      s.session_id,
      user_id,
      s.name,
      s.data_type,
      s.value,
      s.label,
      s.comment,
      s.source,
      s.author,
      Date.parse(s.created_at),
    ]
    const inserted = yield* run(
      (b) =>
        `insert into scores (${SCORE_COLUMNS.join(', ')}) values (${values.map(b).join(', ')}, ${d.json(b, s.metadata)})
         on conflict (score_id) do nothing returning score_id`,
    )
    if (inserted.length === 1) {
      created.push(s)
      outcomes.push({ kind: 'created', score: s })
      continue
    }
    const [existing] = yield* run((b) => `${SELECT} where score_id = ${b(s.score_id)}`)
    // Gone again between the two statements: only a delete in another transaction can do that; stored as asked.
    outcomes.push(existing ? { kind: 'exists', score: scoreOf(existing) } : { kind: 'missing' })
  }
  yield* applyDeltas(d, deltasOf(created, 1))
  return outcomes
}

/** Deletes one score with what it added to the rollups; the deleted score, or null. */
export function* deleteScore(d: PlanDialect, scoreId: string): Plan<Score | null> {
  const rows = yield* run(
    (b) => `delete from scores where score_id = ${b(scoreId)} returning ${SCORE_COLUMNS.join(', ')}`,
  )
  if (rows.length === 0) return null
  const score = scoreOf(rows[0]!)
  yield* applyDeltas(d, deltasOf([score], -1))
  return score
}

/**
 * Deletes the scores of these traces (being deleted in the same transaction) with what they added to the rollups.
 * Returns how many went.
 */
export function* deleteScoresOfTraces(d: PlanDialect, traceIds: readonly string[]): Plan<number> {
  if (traceIds.length === 0) return 0
  const rows = yield* run(
    (b) => `delete from scores where ${d.inList(b, 'trace_id', traceIds)} returning ${SCORE_COLUMNS.join(', ')}`,
  )
  if (rows.length === 0) return 0
  yield* applyDeltas(d, deltasOf(rows.map(scoreOf), -1))
  return rows.length
}

/** Adds or replaces the config of a name; true when it was new. */
export function* putScoreConfig(d: PlanDialect, c: ScoreConfig): Plan<boolean> {
  const [old] = yield* run((b) => `select created_at from score_configs where name = ${b(c.name)}`)
  const created = old ? (old.created_at as number) : Date.parse(c.created_at)
  const values = [c.name, c.data_type, c.min, c.max]
  yield* run(
    (b) =>
      `insert into score_configs (name, data_type, min, max, categories, description, created_at, updated_at)
       values (${values.map(b).join(', ')}, ${c.categories === null ? 'null' : d.json(b, c.categories)},
               ${b(c.description)}, ${b(created)}, ${b(Date.parse(c.updated_at))})
       on conflict (name) do update set data_type = excluded.data_type, min = excluded.min, max = excluded.max,
         categories = excluded.categories, description = excluded.description, updated_at = excluded.updated_at`,
  )
  return old === undefined
}

export function* deleteScoreConfig(name: string): Plan<boolean> {
  const rows = yield* run((b) => `delete from score_configs where name = ${b(name)} returning name`)
  return rows.length > 0
}
