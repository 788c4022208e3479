// What the sessions and users pages share: the list page (its count, filters, table and pager), the facts of one
// session or user, the links to its traces, and the throttled refetch that keeps a page current as traces arrive.
import { type QueryKey, type UseQueryResult, useQueryClient } from '@tanstack/react-query'
import { type ReactNode, useMemo } from 'react'
import { Link, useSearch } from 'wouter'
import type { Trace } from '../../../../schemas/index.js'
import { useThrottledOnTrace } from '../../api/live.js'
import { formatCount, formatMs, formatTime } from '../../ui/format.js'
import { ErrorBox } from '../../ui/parts.js'
import { LIVE_REFRESH_MS } from '../../ui/scoped-page.js'
import {
  ACTIVITY_PAGE,
  type ActivityQuery,
  costOfTotals,
  meanText,
  parseActivityQuery,
  scoreNamesOf,
} from './activity-query.js'
import { ActivityFilters, Pager, type Totals } from './activity-table.js'

/** Reads `queryKey` again, at most every LIVE_REFRESH_MS, while traces that `matches` accepts arrive. */
export function useRefreshOnTrace(queryKey: QueryKey, matches: (trace: Trace) => boolean) {
  const client = useQueryClient()
  useThrottledOnTrace(() => client.invalidateQueries({ queryKey }), LIVE_REFRESH_MS, matches)
}

/** The list of `what` (traces or sessions) with `field` = `id`, in the project `projectId`. */
export const listHref = (what: 'traces' | 'sessions', field: 'session_id' | 'user_id', id: string, projectId: string) =>
  `/${what}?${field}=${encodeURIComponent(id)}&project_id=${encodeURIComponent(projectId)}`

/** What differs between the pages of sessions and of users. */
const LISTS = {
  sessions: {
    title: 'Sessions',
    testId: 'session-total',
    field: 'session_id',
    empty: 'No sessions match. Traces that carry a session_id make one.',
    label: 'Session',
    tracesText: 'Its traces in the list',
  },
  users: {
    title: 'Users',
    testId: 'user-total',
    field: 'user_id',
    empty: 'No users match. Traces that carry a user_id make one.',
    label: 'User',
    tracesText: 'Their traces in the list',
  },
} as const

/**
 * The page of a list of sessions or users, filtered and paged in the URL and kept current as traces of its kind
 * arrive: its title and count, its filters, its table (`children` of the page's items) and its pager.
 */
export function ActivityList<T>({
  kind,
  useList,
  children,
}: {
  kind: keyof typeof LISTS
  useList: (query: ActivityQuery) => UseQueryResult<{ total: number; items: T[] }>
  children: (items: T[]) => ReactNode
}) {
  const { title, testId, field, empty } = LISTS[kind]
  const search = useSearch()
  const query = useMemo(() => parseActivityQuery(search, kind === 'sessions'), [search, kind])
  const list = useList({ ...query, limit: ACTIVITY_PAGE })
  useRefreshOnTrace(
    [kind],
    (trace) => trace[field] !== null && (query.project_id === undefined || trace.project_id === query.project_id),
  )
  const items = list.data?.items ?? []
  return (
    <div className="page">
      <div className="header">
        <h1>{title}</h1>
        <span className="muted" data-testid={testId}>
          {list.data ? `${formatCount(list.data.total)} ${kind}` : ''}
        </span>
      </div>
      <ActivityFilters path={`/${kind}`} search={search} withUser={kind === 'sessions'} />
      {list.isError && <ErrorBox error={list.error} />}
      {list.isPending && <p className="muted">Loading…</p>}
      {list.isSuccess && items.length === 0 && <p className="muted">{empty}</p>}
      {items.length > 0 && <section className="panel">{children(items)}</section>}
      {list.data && <Pager path={`/${kind}`} query={query} shown={items.length} total={list.data.total} noun={kind} />}
    </div>
  )
}

/**
 * The facts every session and user has, from its totals, then its mean of each score name it has (and how many
 * scores make it); `cost` shows the cost (by default as text).
 */
export function totalsFacts(t: Totals, cost: ReactNode = costOfTotals(t)): [string, ReactNode][] {
  const scores = scoreNamesOf([t]).map((name): [string, ReactNode] => [`score: ${name}`, meanText(t.scores, name)])
  return [
    ['Traces', formatCount(t.traces)],
    ['From', formatTime(t.first_at)],
    ['To', formatTime(t.last_at)],
    ['Latency (Σ)', formatMs(t.latency_total)],
    ['Tokens', formatCount(t.token_count)],
    ['Cost', cost],
    ['Failed', formatCount(t.failed)],
    ['Warnings', formatCount(t.warnings)],
    ...scores,
  ]
}

/** The page of one session or user: the way back to its list, its error or loading state, then `children`. */
export function DetailPage({
  kind,
  id,
  query,
  children,
}: {
  kind: keyof typeof LISTS
  id: string
  query: UseQueryResult
  children: ReactNode
}) {
  return (
    <div className="page">
      <div className="muted">
        <Link href={`/${kind}`}>{LISTS[kind].title}</Link> / {id}
      </div>
      {query.isError && <ErrorBox error={query.error} />}
      {query.isPending && <p className="muted">Loading…</p>}
      {children}
    </div>
  )
}

/** The panel atop the page of the session or user `id`: its id, the link to its traces in the list, its facts. */
export function SummaryPanel({
  kind,
  id,
  projectId,
  facts,
}: {
  kind: keyof typeof LISTS
  id: string
  projectId: string
  facts: [string, ReactNode][]
}) {
  const { label, field, tracesText } = LISTS[kind]
  return (
    <section className="panel" aria-label={label}>
      <div className="header">
        <h1>{id}</h1>
        <span className="spacer" />
        <Link href={listHref('traces', field, id, projectId)}>{tracesText}</Link>
      </div>
      <Facts facts={facts} />
    </section>
  )
}

/** The facts of one session or user, each a label and its value. */
function Facts({ facts }: { facts: [string, ReactNode][] }) {
  return (
    <dl className="facts" style={{ marginTop: 8 }}>
      {facts.map(([label, value]) => (
        <div key={label} data-fact={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  )
}
