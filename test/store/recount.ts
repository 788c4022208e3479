// What a recount gives: the rollups of a fresh store of the kind under test that ingested the same traces, to compare
// a store's figures with after deletions, an upgrade or a repair.
import type { Test } from 'tap'
import type { Score, Trace } from '../../schemas/index.js'
import { unreported } from '../../src/store/reported-cost.js'
import { ROLLUP_TABLES } from '../../src/store/rollups.js'
import { roundMean } from '../../src/store/score-reads.js'
import { meanOf, valueSum } from '../../src/store/score-writes.js'
import type { NewScore, Store } from '../../src/store/types.js'
import { allRows, createTestStore, tableRows } from '../helper.js'

export async function everyTrace(store: Store): Promise<Trace[]> {
  const out: Trace[] = []
  for await (const chunk of store.traces.walk({}, 1000, (trace) => trace)) out.push(...chunk)
  return out
}

/** Every rollup row, as plain sorted JSON (numbers as numbers on both stores). */
export async function rollups(store: Store) {
  const rows = await allRows(store)
  return Object.fromEntries(
    ROLLUP_TABLES.map((table) => [
      table,
      (rows[table] ?? []).map((r) => JSON.stringify(Object.entries(r).map(([k, v]) => [k, Number(v) || v]))).sort(),
    ]),
  )
}

/** What a recount from scratch gives: a fresh store that ingested the survivors (and their scores). */
export async function recount(t: Test, survivors: Trace[], scores: readonly Score[] = []): Promise<Store> {
  const fresh = await createTestStore(t)
  for (let i = 0; i < survivors.length; i += 500) await fresh.traces.insert(survivors.slice(i, i + 500).map(unreported))
  const all = newScores(scores, survivors)
  for (let i = 0; i < all.length; i += 500) await fresh.scores.insert(all.slice(i, i + 500))
  return fresh
}

/** Every score stored, oldest first. */
export async function everyScore(store: Store): Promise<Score[]> {
  return (await store.scores.list({}, { limit: 1_000_000 })).items.reverse()
}

const SCORE_ROLLUPS = ['score_hourly', 'trace_scores', 'score_values'] as const

/** The score rollup rows, as plain sorted JSON (rows that hold no score left are as absent as in a recount). */
export async function scoreRollups(store: Store) {
  const rows: Record<string, Record<string, unknown>[]> = {}
  for (const table of SCORE_ROLLUPS) rows[table] = await tableRows(store, table)
  return Object.fromEntries(
    SCORE_ROLLUPS.map((table) => [
      table,
      (rows[table] ?? [])
        .filter((r) => Number(r.scores) !== 0)
        .map((r) => JSON.stringify(Object.entries(r).map(([k, v]) => [k, Number(v) || v])))
        .sort(),
    ]),
  )
}

/** Scores of the traces a store holds, to record: each with its trace's user, as the score service records it. */
export function newScores(scores: readonly Score[], traces: readonly Trace[]): NewScore[] {
  const users = new Map(traces.map((tr) => [tr.trace_id, tr.user_id]))
  return scores.map((score) => ({
    score,
    user_id: score.trace_id === null ? null : (users.get(score.trace_id) ?? null),
  }))
}

/**
 * Every score figure of a store recounted from its scores table: /analytics' count, mean and labels per name (per
 * project and overall) and each trace's summary, summed as exactly as the rollups sum them.
 */
export async function scoresEqualRecount(
  t: Test,
  store: Store,
  what: string,
  projects: (string | undefined)[],
  traces: readonly Trace[],
  scores: readonly Score[],
) {
  type Sum = { count: number; hi: number; lo: number; labels: Map<string, number> }
  const add = (sums: Map<string, Sum>, key: string, s: Score) => {
    const sum = sums.get(key) ?? { count: 0, hi: 0, lo: 0, labels: new Map() }
    sums.set(key, sum)
    const { hi, lo } = valueSum(s.value)
    sum.count++
    sum.hi += hi
    sum.lo += lo
    if (s.label !== null) sum.labels.set(s.label, (sum.labels.get(s.label) ?? 0) + 1)
  }
  const mean = (s: Sum) => roundMean(meanOf(s.hi, s.lo, s.count))
  for (const project_id of projects) {
    const sums = new Map<string, Sum>()
    for (const s of scores)
      if (project_id === undefined || s.project_id === project_id) add(sums, `${s.name}\u0000${s.data_type}`, s)
    const analytics = await store.scores.analytics(project_id, NOW_FOR_SCORES)
    const got = Object.fromEntries(
      analytics.map((a) => [`${a.name}\u0000${a.data_type}`, { count: a.count, mean: a.mean, labels: a.labels }]),
    )
    const want = Object.fromEntries(
      [...sums].map(([key, s]) => [
        key,
        {
          count: s.count,
          mean: key.endsWith('categorical') ? null : mean(s),
          labels: [...s.labels]
            .map(([label, count]) => ({ label, count }))
            .sort((a, b) => b.count - a.count || (a.label < b.label ? -1 : 1)),
        },
      ]),
    )
    t.same(got, want, `${what}: /analytics scores ${project_id ?? 'all'} equal a recount of the scores table`)
  }
  const perTrace = new Map<string, Map<string, Sum>>()
  for (const s of scores) {
    if (s.trace_id === null) continue
    const sums = perTrace.get(s.trace_id) ?? new Map<string, Sum>()
    perTrace.set(s.trace_id, sums)
    add(sums, s.name, s)
  }
  const summaries = await store.scores.summaries(traces.map((tr) => tr.trace_id))
  const got = Object.fromEntries([...summaries].map(([id, s]) => [id, s]))
  const want = Object.fromEntries(
    [...perTrace].map(([id, sums]) => [
      id,
      Object.fromEntries(
        [...sums].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, s]) => [name, { count: s.count, mean: mean(s) }]),
      ),
    ]),
  )
  t.same(got, want, `${what}: every trace's score summary equals a recount of the scores table`)
  const stored = new Set(traces.map((tr) => tr.trace_id))
  t.equal(
    scores.filter((s) => s.trace_id !== null && !stored.has(s.trace_id)).length,
    0,
    `${what}: no score outlives its trace`,
  )
}

/** The time /analytics' score series are read at by scoresEqualRecount. */
export const NOW_FOR_SCORES = Date.UTC(2026, 10, 21, 13, 30)
