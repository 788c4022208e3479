// Sessions and users as tables: their totals (from the server's rollups), each row a link to its own page, and the
// filters and pager of their lists.
import { type FormEvent, useMemo } from 'react'
import { Link, useLocation } from 'wouter'
import type { SessionSummary, UserSummary } from '../../../../schemas/index.js'
import { formatCount, formatMs, formatTime } from '../../ui/format.js'
import { FilterActions } from '../../ui/parts.js'
import { ProjectFilter } from '../../ui/project-options.js'
import {
  type ActivityQuery,
  activitySearch,
  costOfTotals,
  meanText,
  pagesAround,
  parseActivityQuery,
  scoreNamesOf,
  scoreOf,
} from './activity-query.js'

/** A session's or user's own page, in its project. */
export const activityHref = (kind: 'sessions' | 'users', id: string, projectId: string) =>
  `/${kind}/${encodeURIComponent(id)}?project_id=${encodeURIComponent(projectId)}`

/** What a session and a user both sum up of their traces. */
export type Totals = Pick<
  SessionSummary,
  | 'traces'
  | 'first_at'
  | 'last_at'
  | 'latency_total'
  | 'token_count'
  | 'cost'
  | 'unpriced'
  | 'failed'
  | 'warnings'
  | 'scores'
>

function TotalsCells({ t, scoreNames }: { t: Totals; scoreNames: readonly string[] }) {
  return (
    <>
      <td className="num">{formatCount(t.traces)}</td>
      <td style={{ whiteSpace: 'nowrap' }}>{formatTime(t.first_at)}</td>
      <td style={{ whiteSpace: 'nowrap' }}>{formatTime(t.last_at)}</td>
      <td className="num">{formatMs(t.latency_total)}</td>
      <td className="num">{formatCount(t.token_count)}</td>
      <td className="num" data-cost={t.unpriced === t.traces ? 'unpriced' : t.cost}>
        {costOfTotals(t)}
      </td>
      <td className="num">{t.failed > 0 ? <span className="badge failed">{formatCount(t.failed)}</span> : 0}</td>
      <td className="num">{t.warnings > 0 ? <span className="badge warning">{formatCount(t.warnings)}</span> : 0}</td>
      {scoreNames.map((name) => (
        <td
          key={name}
          className={scoreOf(t.scores, name) === undefined ? 'num muted' : 'num'}
          data-score={name}
          title={`Mean ${name} (how many scores)`}
        >
          {meanText(t.scores, name)}
        </td>
      ))}
    </>
  )
}

interface Heading {
  label: string
  num?: boolean
}

const TOTALS_HEADINGS: Heading[] = [
  { label: 'Traces', num: true },
  { label: 'First' },
  { label: 'Last activity' },
  { label: 'Latency (Σ)', num: true },
  { label: 'Tokens', num: true },
  { label: 'Cost', num: true },
  { label: 'Failed', num: true },
  { label: 'Warnings', num: true },
]

/** The headings: the row's own, the totals', then one per score name the page's rows carry (its mean). */
function Headings({ first, scoreNames }: { first: Heading[]; scoreNames: readonly string[] }) {
  const scores = scoreNames.map((name) => ({ label: `score: ${name}`, num: true }))
  return (
    <thead>
      <tr>
        {[...first, ...TOTALS_HEADINGS, ...scores].map((h) => (
          <th key={h.label} className={h.num ? 'num' : undefined}>
            {h.label}
          </th>
        ))}
      </tr>
    </thead>
  )
}

/** The first cells of a row: the session or user, a link to its page, and its project. */
function IdCells({ kind, id, projectId }: { kind: 'sessions' | 'users'; id: string; projectId: string }) {
  return (
    <>
      <td>
        <Link href={activityHref(kind, id, projectId)}>{id}</Link>
      </td>
      <td>{projectId}</td>
    </>
  )
}

/** A session's user, a link to their page ('—' when its traces name none). */
export function UserLink({ userId, projectId }: { userId: string | null; projectId: string }) {
  return userId === null ? '—' : <Link href={activityHref('users', userId, projectId)}>{userId}</Link>
}

export function SessionTable({ sessions, showUser = true }: { sessions: SessionSummary[]; showUser?: boolean }) {
  const scoreNames = scoreNamesOf(sessions)
  return (
    <table className="plain" aria-label="Sessions">
      <Headings
        first={[{ label: 'Session' }, { label: 'Project' }, ...(showUser ? [{ label: 'User' }] : [])]}
        scoreNames={scoreNames}
      />
      <tbody>
        {sessions.map((s) => (
          <tr key={`${s.project_id}/${s.session_id}`} data-session-id={s.session_id}>
            <IdCells kind="sessions" id={s.session_id} projectId={s.project_id} />
            {showUser && (
              <td>
                <UserLink userId={s.user_id} projectId={s.project_id} />
              </td>
            )}
            <TotalsCells t={s} scoreNames={scoreNames} />
          </tr>
        ))}
      </tbody>
    </table>
  )
}

export function UserTable({ users }: { users: UserSummary[] }) {
  const scoreNames = scoreNamesOf(users)
  return (
    <table className="plain" aria-label="Users">
      <Headings
        first={[{ label: 'User' }, { label: 'Project' }, { label: 'Sessions', num: true }]}
        scoreNames={scoreNames}
      />
      <tbody>
        {users.map((u) => (
          <tr key={`${u.project_id}/${u.user_id}`} data-user-id={u.user_id}>
            <IdCells kind="users" id={u.user_id} projectId={u.project_id} />
            <td className="num">{formatCount(u.sessions)}</td>
            <TotalsCells t={u} scoreNames={scoreNames} />
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/** The filter bar of a sessions or users list, written to the URL under the API's names (a new filter: page one). */
export function ActivityFilters({ path, search, withUser }: { path: string; search: string; withUser: boolean }) {
  const [, navigate] = useLocation()
  const query = useMemo(() => parseActivityQuery(search, withUser), [search, withUser])
  const apply = (next: ActivityQuery) => {
    const text = activitySearch({ ...next, offset: undefined })
    navigate(text === '' ? path : `${path}?${text}`, { replace: true })
  }
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const params = new URLSearchParams()
    for (const [key, value] of new FormData(event.currentTarget)) {
      if (typeof value === 'string' && value.trim() !== '') params.set(key, value.trim())
    }
    apply(parseActivityQuery(params.toString(), withUser))
  }
  return (
    <form className="filters" onSubmit={submit} key={search} aria-label="Filters">
      <ProjectFilter chosen={query.project_id} onPick={(project_id) => apply({ ...query, project_id })} />
      {withUser && (
        <label>
          User
          <input name="user_id" defaultValue={query.user_id ?? ''} />
        </label>
      )}
      <label>
        Active since
        <input name="since" className="wide" placeholder="2026-11-21T00:00Z" defaultValue={query.since ?? ''} />
      </label>
      <label>
        Active before
        <input name="until" className="wide" placeholder="ISO 8601 or epoch" defaultValue={query.until ?? ''} />
      </label>
      <FilterActions onClear={() => apply({})} />
    </form>
  )
}

/** Previous / next page of a list paged by offset, kept in the URL. */
export function Pager({
  path,
  query,
  shown,
  total,
  noun,
}: {
  path: string
  query: ActivityQuery
  shown: number
  total: number
  noun: string
}) {
  const [, navigate] = useLocation()
  const offset = query.offset ?? 0
  const at = pagesAround(offset, shown, total)
  const go = (to: number) => {
    const text = activitySearch({ ...query, offset: to })
    navigate(text === '' ? path : `${path}?${text}`)
  }
  return (
    <div className="list-foot">
      <span data-testid="activity-range">
        {formatCount(at.first)}–{formatCount(at.last)} of {formatCount(total)} {noun}
      </span>
      <span className="spacer" />
      <button type="button" disabled={at.previous === null} onClick={() => at.previous !== null && go(at.previous)}>
        Previous
      </button>
      <button type="button" disabled={at.next === null} onClick={() => at.next !== null && go(at.next)}>
        Next
      </button>
    </div>
  )
}
