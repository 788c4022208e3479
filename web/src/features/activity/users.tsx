// Users: the list (newest activity first, filtered and paged in the URL) and one user — their totals and their
// sessions, newest activity first. Both stay current as traces arrive.
import type { ReactNode } from 'react'
import { Link, useSearch } from 'wouter'
import { useUser, useUsers } from '../../api/queries.js'
import { formatCount } from '../../ui/format.js'
import { ActivityList, DetailPage, listHref, SummaryPanel, totalsFacts, useRefreshOnTrace } from './activity-page.js'
import { SessionTable, UserTable } from './activity-table.js'

export function Users() {
  return (
    <ActivityList kind="users" useList={useUsers}>
      {(items) => <UserTable users={items} />}
    </ActivityList>
  )
}

export function UserDetail({ id }: { id: string }) {
  const search = useSearch()
  const projectId = new URLSearchParams(search).get('project_id') ?? undefined
  const user = useUser(id, projectId)
  useRefreshOnTrace(
    ['user', id],
    (trace) => trace.user_id === id && (projectId === undefined || trace.project_id === projectId),
  )
  const u = user.data?.user
  const sessions = user.data?.sessions ?? []
  const facts: [string, ReactNode][] = u
    ? [['Project', u.project_id], ['Sessions', formatCount(u.sessions)], ...totalsFacts(u)]
    : []
  return (
    <DetailPage kind="users" id={id} query={user}>
      {u && (
        <>
          <SummaryPanel kind="users" id={u.user_id} projectId={u.project_id} facts={facts} />
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
                <Link href={listHref('sessions', 'user_id', u.user_id, u.project_id)}>All of them</Link>
              </p>
            )}
          </section>
        </>
      )}
    </DetailPage>
  )
}
