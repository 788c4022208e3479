// Users: the list (newest activity first, filtered and paged in the URL) and one user — their totals and their
// sessions, newest activity first. Both stay current as traces arrive.
import { useQueryClient } from '@tanstack/react-query'
import { useMemo } from 'react'
import { Link, useSearch } from 'wouter'
import { useThrottledOnTrace } from '../../api/live.js'
import { useUser, useUsers } from '../../api/queries.js'
import { formatCount, formatMs, formatTime } from '../../ui/format.js'
import { ErrorBox } from '../../ui/parts.js'
import { LIVE_REFRESH_MS } from '../../ui/scoped-page.js'
import { ACTIVITY_PAGE, costOfTotals, parseActivityQuery } from './activity-query.js'
import { ActivityFilters, Pager, SessionTable, UserTable } from './activity-table.js'

export function Users() {
  const search = useSearch()
  const query = useMemo(() => parseActivityQuery(search, false), [search])
  const list = useUsers({ ...query, limit: ACTIVITY_PAGE })
  const client = useQueryClient()
  useThrottledOnTrace(
    () => client.invalidateQueries({ queryKey: ['users'] }),
    LIVE_REFRESH_MS,
    (trace) => trace.user_id !== null && (query.project_id === undefined || trace.project_id === query.project_id),
  )
  const items = list.data?.items ?? []
  return (
    <div className="page">
      <div className="header">
        <h1>Users</h1>
        <span className="muted" data-testid="user-total">
          {list.data ? `${formatCount(list.data.total)} users` : ''}
        </span>
      </div>
      <ActivityFilters path="/users" search={search} withUser={false} />
      {list.isError && <ErrorBox error={list.error} />}
      {list.isPending && <p className="muted">Loading…</p>}
      {list.isSuccess && items.length === 0 && (
        <p className="muted">No users match. Traces that carry a user_id make one.</p>
      )}
      {items.length > 0 && (
        <section className="panel">
          <UserTable users={items} />
        </section>
      )}
      {list.data && <Pager path="/users" query={query} shown={items.length} total={list.data.total} noun="users" />}
    </div>
  )
}

export function UserDetail({ id }: { id: string }) {
  const search = useSearch()
  const projectId = new URLSearchParams(search).get('project_id') ?? undefined
  const user = useUser(id, projectId)
  const client = useQueryClient()
  useThrottledOnTrace(
    () => client.invalidateQueries({ queryKey: ['user', id] }),
    LIVE_REFRESH_MS,
    (trace) => trace.user_id === id && (projectId === undefined || trace.project_id === projectId),
  )
  const u = user.data?.user
  const sessions = user.data?.sessions ?? []
  const facts: [string, string][] = u
    ? [
        ['Project', u.project_id],
        ['Sessions', formatCount(u.sessions)],
        ['Traces', formatCount(u.traces)],
        ['From', formatTime(u.first_at)],
        ['To', formatTime(u.last_at)],
        ['Latency (Σ)', formatMs(u.latency_total)],
        ['Tokens', formatCount(u.token_count)],
        ['Cost', costOfTotals(u)],
        ['Failed', formatCount(u.failed)],
        ['Warnings', formatCount(u.warnings)],
      ]
    : []
  return (
    <div className="page">
      <div className="muted">
        <Link href="/users">Users</Link> / {id}
      </div>
      {user.isError && <ErrorBox error={user.error} />}
      {user.isPending && <p className="muted">Loading…</p>}
      {u && (
        <>
          <section className="panel" aria-label="User">
            <div className="header">
              <h1>{u.user_id}</h1>
              <span className="spacer" />
              <Link
                href={`/traces?user_id=${encodeURIComponent(u.user_id)}&project_id=${encodeURIComponent(u.project_id)}`}
              >
                Their traces in the list
              </Link>
            </div>
            <dl className="facts" style={{ marginTop: 8 }}>
              {facts.map(([label, value]) => (
                <div key={label} data-fact={label}>
                  <dt>{label}</dt>
                  <dd>{value}</dd>
                </div>
              ))}
            </dl>
          </section>
          <section className="panel" aria-label="Their sessions">
            <h3>Sessions</h3>
            {sessions.length === 0 ? (
              <p className="muted">No sessions: their traces carry no session_id.</p>
            ) : (
              <SessionTable sessions={sessions} showUser={false} />
            )}
            {sessions.length < u.sessions && (
              <p className="muted">
                The {formatCount(sessions.length)} most recent of {formatCount(u.sessions)} sessions.{' '}
                <Link
                  href={`/sessions?user_id=${encodeURIComponent(u.user_id)}&project_id=${encodeURIComponent(u.project_id)}`}
                >
                  All of them
                </Link>
              </p>
            )}
          </section>
        </>
      )}
    </div>
  )
}
