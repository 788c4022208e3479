// The sessions and users lists' filters and page live in the URL under the names GET /sessions and GET /users use,
// so a filtered page is a link. Pure functions: URL ⇄ query, the pages around an offset.
import type { ListSessionsQuery, ScoreSummary, SessionSummary } from '../../../../schemas/index.js'
import { formatCost, formatCount, formatScore } from '../../ui/format.js'

/** Rows per page of the sessions and users lists. */
export const ACTIVITY_PAGE = 50

/** The query of GET /sessions (GET /users takes the same without `user_id`). */
export type ActivityQuery = ListSessionsQuery

const TEXT_KEYS = ['project_id', 'user_id', 'since', 'until'] as const

/** The query a query string names (`user_id` only where the list has it); values the API would refuse are left out. */
export function parseActivityQuery(search: string, withUser: boolean): ActivityQuery {
  const params = new URLSearchParams(search)
  const query: ActivityQuery = {}
  for (const key of TEXT_KEYS) {
    if (key === 'user_id' && !withUser) continue
    const value = params.get(key)
    if (value !== null && value.trim() !== '') query[key] = value.trim()
  }
  const offset = Number(params.get('offset'))
  if (Number.isInteger(offset) && offset > 0 && offset <= 1_000_000_000) query.offset = offset
  return query
}

/** The query string of a query (stable key order, empty values and a zero offset left out), without the `?`. */
export function activitySearch(query: ActivityQuery): string {
  const params = new URLSearchParams()
  for (const key of [...TEXT_KEYS, 'offset'] as const) {
    const value = query[key]
    if (value !== undefined && value !== '' && value !== 0) params.set(key, String(value))
  }
  return params.toString()
}

/** Where the previous and next pages start (null: there is none), and which rows this page shows (1-based). */
export function pagesAround(offset: number, shown: number, total: number, size = ACTIVITY_PAGE) {
  return {
    previous: offset > 0 ? Math.max(0, offset - size) : null,
    next: offset + shown < total ? offset + size : null,
    first: shown === 0 ? 0 : offset + 1,
    last: offset + shown,
  }
}

/** A sum of costs with its unpriced part: all unpriced reads "unpriced", some adds how many were left out. */
export function costOfTotals(t: Pick<SessionSummary, 'traces' | 'cost' | 'unpriced'>): string {
  if (t.traces > 0 && t.unpriced === t.traces) return 'unpriced'
  return t.unpriced > 0 ? `${formatCost(t.cost)} (+${formatCount(t.unpriced)} unpriced)` : formatCost(t.cost)
}

/** Every score name the rows carry a mean of, name ascending: the page's score columns. */
export function scoreNamesOf(rows: readonly { scores: ScoreSummary }[]): string[] {
  const names = new Set<string>()
  for (const row of rows) for (const name of Object.keys(row.scores)) names.add(name)
  return [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}

/** A row's count and mean of a score name (its own entry only: a name such as `constructor` is a name). */
export const scoreOf = (scores: ScoreSummary, name: string) => (Object.hasOwn(scores, name) ? scores[name] : undefined)

/** A mean and how many scores make it, as a cell or a fact reads: `0.525 (6)`; none is "—". */
export function meanText(scores: ScoreSummary, name: string): string {
  const score = scoreOf(scores, name)
  return score === undefined ? '—' : `${formatScore(score.mean)} (${formatCount(score.count)})`
}
