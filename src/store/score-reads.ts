// Score reads, written once for both databases over a dialect's Query: a score, a page of them, a trace's, the light
// list's summaries, /analytics' figures from the hourly rollup, and the score configs.
import type { Score, ScoreAnalytics, ScoreConfig, ScoreSummary } from '../../schemas/index.js'
import { CHART_BUCKETS, chartWindow, HOUR_MS } from '../analytics/math.js'
import { setOwn } from '../lib/own.js'
import type { PlanDialect } from './plan.js'
import type { Query } from './read-queries.js'
import { meanOf, SCORE_COLUMNS, SPLIT, scoreOf, VALUE_UNITS } from './score-writes.js'
import type { ScoreFilter, ScorePage, ScorePageAfter, ScoreTarget } from './types.js'

const SELECT = `select ${SCORE_COLUMNS.join(', ')} from scores`

/** A mean as /analytics and the summaries report it: 6 decimals (a naive recount of the values gives the same). */
export const roundMean = (mean: number): number => Math.round(mean * 1e6) / 1e6

/**
 * Per (project, session) or (project, user) of these, its scores' count and mean per name, in one grouped read
 * through the scores' session or user index. Each value is summed as the rollups sum it (whole micro-units split in two
 * integers, exact whatever the count), so a mean here is what a rollup of the same scores would give.
 */
export async function scoreMeansOf(
  query: Query,
  column: 'session_id' | 'user_id',
  keys: readonly { project_id: string; id: string }[],
): Promise<Map<string, ScoreSummary>> {
  const out = new Map<string, ScoreSummary>()
  if (keys.length === 0) return out
  const units = `cast(round(value * ${VALUE_UNITS}) as bigint)`
  const lo = `((${units} % ${SPLIT}) + ${SPLIT}) % ${SPLIT}`
  const rows = await query<{ project_id: string; id: string; name: string; n: number; hi: number; lo: number }>(
    (b) =>
      `select project_id, ${column} as id, name, count(*) as n, sum((${units} - ${lo}) / ${SPLIT}) as hi,
              sum(${lo}) as lo
       from scores where ${column} in (${[...new Set(keys.map((k) => k.id))].map(b).join(', ')})
       group by project_id, ${column}, name order by name`,
  )
  for (const r of rows) {
    const key = activityKey(r.project_id, r.id)
    const summary = out.get(key) ?? {}
    out.set(key, summary)
    const n = Number(r.n)
    // A name is data: `__proto__` is an own key like any other.
    setOwn(summary, r.name, { count: n, mean: roundMean(meanOf(Number(r.hi), Number(r.lo), n)) })
  }
  return out
}

/** The key of a session or user of a project in scoreMeansOf's answer. */
export const activityKey = (projectId: string, id: string): string => JSON.stringify([projectId, id])

/** The WHERE clause of a filter (and a page's start). */
function scoreWhere(f: ScoreFilter, bind: (value: unknown) => string, after?: ScorePageAfter): string {
  const c: string[] = []
  const eq = (column: keyof ScoreFilter & string) => {
    const v = f[column]
    if (v !== undefined) c.push(`${column} = ${bind(v)}`)
  }
  for (const column of ['project_id', 'trace_id', 'session_id', 'name', 'source', 'author'] as const) eq(column)
  if (f.since !== undefined) c.push(`created_at >= ${bind(f.since)}`)
  if (f.until !== undefined) c.push(`created_at < ${bind(f.until)}`)
  if (after) {
    c.push(
      `(created_at < ${bind(after.at)} or (created_at = ${bind(after.at)} and score_id < ${bind(after.score_id)}))`,
    )
  }
  return c.length === 0 ? '' : `where ${c.join(' and ')}`
}

interface HourlyRow {
  name: string
  data_type: Score['data_type']
  label: string
  hour: number
  scores: number
  value_hi: number
  value_lo: number
}

/** Per (name, data type): the totals, the labels and the series of the chart's hours. */
function analyticsOf(rows: readonly HourlyRow[], start: number): ScoreAnalytics[] {
  const groups = new Map<
    string,
    { entry: ScoreAnalytics; hi: number; lo: number; labels: Map<string, number>; hours: Map<number, HourlyRow[]> }
  >()
  for (const r of rows) {
    const key = `${r.name}\u0000${r.data_type}`
    let g = groups.get(key)
    if (!g) {
      g = {
        entry: { name: r.name, data_type: r.data_type, count: 0, mean: null, labels: [], series: [] },
        hi: 0,
        lo: 0,
        labels: new Map(),
        hours: new Map(),
      }
      groups.set(key, g)
    }
    g.entry.count += r.scores
    g.hi += r.value_hi
    g.lo += r.value_lo
    if (r.label !== '') g.labels.set(r.label, (g.labels.get(r.label) ?? 0) + r.scores)
    const bucket = (r.hour - start) / HOUR_MS
    if (bucket >= 0 && bucket < CHART_BUCKETS) {
      const hour = g.hours.get(bucket) ?? []
      hour.push(r)
      g.hours.set(bucket, hour)
    }
  }
  const out: ScoreAnalytics[] = []
  for (const g of groups.values()) {
    const e = g.entry
    const numeric = e.data_type !== 'categorical'
    e.mean = numeric && e.count > 0 ? roundMean(meanOf(g.hi, g.lo, e.count)) : null
    e.labels = [...g.labels]
      .map(([label, count]) => ({ label, count }))
      .sort((a, b) => b.count - a.count || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0))
    e.series = Array.from({ length: CHART_BUCKETS }, (_, i) => {
      const hour = g.hours.get(i) ?? []
      let count = 0
      let hi = 0
      let lo = 0
      for (const h of hour) {
        count += h.scores
        hi += h.value_hi
        lo += h.value_lo
      }
      return {
        timestamp: new Date(start + i * HOUR_MS).toISOString(),
        count,
        mean: numeric && count > 0 ? roundMean(meanOf(hi, lo, count)) : null,
      }
    })
    out.push(e)
  }
  return out.sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : a.data_type < b.data_type ? -1 : a.data_type > b.data_type ? 1 : 0,
  )
}

interface ConfigRow {
  name: string
  data_type: ScoreConfig['data_type']
  min: number | null
  max: number | null
  categories: string | string[] | null
  description: string | null
  created_at: number
  updated_at: number
}

const configOf = (r: ConfigRow): ScoreConfig => ({
  name: r.name,
  data_type: r.data_type,
  min: r.min,
  max: r.max,
  categories: typeof r.categories === 'string' ? (JSON.parse(r.categories) as string[]) : r.categories,
  description: r.description,
  created_at: new Date(r.created_at).toISOString(),
  updated_at: new Date(r.updated_at).toISOString(),
})

/**
 * `stepCount`: the dialect's expression of a trace row's number of steps. `inList`: `column in (the values)`, one
 * bound parameter whatever the count (one statement text for every page size).
 */
export function createScoreReads(query: Query, d: Pick<PlanDialect, 'inList' | 'stepCount'>) {
  return {
    async targets(traceIds: readonly string[]): Promise<Map<string, ScoreTarget>> {
      const out = new Map<string, ScoreTarget>()
      if (traceIds.length === 0) return out
      const rows = await query<ScoreTarget & { trace_id: string }>(
        (b) =>
          `select trace_id, project_id, session_id, user_id, ${d.stepCount} as step_count from traces
           where ${d.inList(b, 'trace_id', traceIds)}`,
      )
      for (const { trace_id, ...target } of rows)
        out.set(trace_id, { ...target, step_count: Number(target.step_count) })
      return out
    },

    async get(scoreId: string): Promise<Score | null> {
      const [row] = await query<Record<string, unknown>>((b) => `${SELECT} where score_id = ${b(scoreId)}`)
      return row ? scoreOf(row) : null
    },

    async list(filter: ScoreFilter, page: { limit: number; after?: ScorePageAfter }): Promise<ScorePage> {
      const rows = await query<Record<string, unknown>>(
        (b) =>
          `${SELECT} ${scoreWhere(filter, b, page.after)} order by created_at desc, score_id desc limit ${b(page.limit + 1)}`,
      )
      const [count] = await query<{ n: number }>((b) => `select count(*) as n from scores ${scoreWhere(filter, b)}`)
      return {
        total: Number(count?.n ?? 0),
        items: rows.slice(0, page.limit).map(scoreOf),
        more: rows.length > page.limit,
      }
    },

    async ofTrace(traceId: string): Promise<Score[]> {
      const rows = await query<Record<string, unknown>>(
        (b) => `${SELECT} where trace_id = ${b(traceId)} order by created_at, score_id`,
      )
      return rows.map(scoreOf)
    },

    async ofTraces(traceIds: readonly string[]): Promise<Map<string, Score[]>> {
      const out = new Map<string, Score[]>()
      if (traceIds.length === 0) return out
      const rows = await query<Record<string, unknown>>(
        (b) => `${SELECT} where ${d.inList(b, 'trace_id', traceIds)} order by trace_id, created_at, score_id`,
      )
      for (const row of rows) {
        const score = scoreOf(row)
        const list = out.get(score.trace_id!) ?? []
        out.set(score.trace_id!, list)
        list.push(score)
      }
      return out
    },

    async summaries(traceIds: readonly string[]): Promise<Map<string, ScoreSummary>> {
      const out = new Map<string, ScoreSummary>()
      if (traceIds.length === 0) return out
      const rows = await query<{ trace_id: string; name: string; scores: number; mean: number }>(
        (b) =>
          `select trace_id, name, scores, mean from trace_scores
           where ${d.inList(b, 'trace_id', traceIds)} order by trace_id, name`,
      )
      for (const r of rows) {
        const s = out.get(r.trace_id) ?? {}
        out.set(r.trace_id, s)
        setOwn(s, r.name, { count: Number(r.scores), mean: roundMean(r.mean) })
      }
      return out
    },

    async means(name: string, traceIds: readonly string[]): Promise<Map<string, number>> {
      if (traceIds.length === 0) return new Map()
      // Every name of these traces, through the key (trace_id, name): with the name in the statement, SQLite walked
      // the name's whole index (name, mean, trace_id) for each page's cursor (0.8 s at 1M scores).
      const rows = await query<{ trace_id: string; name: string; mean: number }>(
        (b) => `select trace_id, name, mean from trace_scores where ${d.inList(b, 'trace_id', traceIds)}`,
      )
      return new Map(rows.filter((r) => r.name === name).map((r) => [r.trace_id, Number(r.mean)]))
    },

    async windowMean(name: string, projectId: string | undefined, since: number) {
      const [row] = await query<{ n: number; total: number | null }>(
        (b) =>
          `select count(*) as n, sum(value) as total from scores
           where ${projectId === undefined ? '' : `project_id = ${b(projectId)} and `}created_at >= ${b(since)}
             and name = ${b(name)}`,
      )
      const count = Number(row?.n ?? 0)
      return { count, mean: count === 0 ? null : roundMean(Number(row?.total ?? 0) / count) }
    },

    async analytics(projectId: string | undefined, now: number): Promise<ScoreAnalytics[]> {
      const { start } = chartWindow(now)
      const rows = await query<HourlyRow>(
        (b) =>
          `select name, data_type, label, hour, sum(scores) as scores, sum(value_hi) as value_hi,
                  sum(value_lo) as value_lo
           from score_hourly ${projectId === undefined ? '' : `where project_id = ${b(projectId)}`}
           group by name, data_type, label, hour`,
      )
      return analyticsOf(
        rows.map((r) => ({
          ...r,
          scores: Number(r.scores),
          value_hi: Number(r.value_hi),
          value_lo: Number(r.value_lo),
        })),
        start,
      )
    },

    async listConfigs(): Promise<ScoreConfig[]> {
      return (await query<ConfigRow>(() => 'select * from score_configs order by name')).map(configOf)
    },

    async getConfig(name: string): Promise<ScoreConfig | null> {
      const [row] = await query<ConfigRow>((b) => `select * from score_configs where name = ${b(name)}`)
      return row ? configOf(row) : null
    },
  }
}

export type ScoreReads = ReturnType<typeof createScoreReads>
