// Sessions: the list (newest activity first, filtered and paged in the URL) and one session as the conversation it
// was — its traces oldest first, each a prompt and a response with its status, latency and cost. Both stay current
// as traces arrive.
import type { ReactNode } from 'react'
import { Link, useSearch } from 'wouter'
import type { Trace } from '../../../../schemas/index.js'
import { useSession, useSessions } from '../../api/queries.js'
import { formatCost, formatCount, formatMs, formatTime } from '../../ui/format.js'
import { LongText, StatusBadge } from '../../ui/parts.js'
import { ActivityList, DetailPage, listHref, SummaryPanel, totalsFacts, useRefreshOnTrace } from './activity-page.js'
import { costOfTotals } from './activity-query.js'
import { SessionTable, UserLink } from './activity-table.js'

export function Sessions() {
  return (
    <ActivityList kind="sessions" useList={useSessions}>
      {(items) => <SessionTable sessions={items} />}
    </ActivityList>
  )
}

/** One turn of the conversation: who spoke, and what. */
function Turn({ who, text }: { who: 'user' | 'assistant'; text: string }) {
  return (
    <div className={`turn ${who}`} data-turn={who}>
      <div className="who">{who === 'user' ? 'Prompt' : 'Response'}</div>
      <LongText text={text} />
    </div>
  )
}

/** A trace as a step of the conversation: its prompt and response, and what it took. */
function Exchange({ trace, position }: { trace: Trace; position: number }) {
  return (
    <article className="exchange" data-thread-trace={trace.trace_id} aria-label={`Turn ${position}`}>
      <div className="header">
        <span className="muted">#{position}</span>
        <Link href={`/traces/${encodeURIComponent(trace.trace_id)}`}>{trace.name ?? trace.trace_id}</Link>
        <StatusBadge status={trace.status} />
        <span className="spacer" />
        <span className="muted">{formatTime(trace.created_at)}</span>
        <span className="muted">{trace.model ?? ''}</span>
        <span>{formatMs(trace.latency)}</span>
        <span className={trace.cost === null ? 'muted' : undefined} data-cost={trace.cost ?? 'unpriced'}>
          {formatCost(trace.cost)}
        </span>
      </div>
      {trace.prompt !== null && trace.prompt !== '' && <Turn who="user" text={trace.prompt} />}
      {trace.response !== null && trace.response !== '' && <Turn who="assistant" text={trace.response} />}
      {trace.failure_reason && (
        <div className="block error" role="note" aria-label="Failure reason">
          <LongText text={trace.failure_reason} />
        </div>
      )}
    </article>
  )
}

export function SessionDetail({ id }: { id: string }) {
  const search = useSearch()
  const projectId = new URLSearchParams(search).get('project_id') ?? undefined
  const session = useSession(id, projectId)
  const data = session.data
  useRefreshOnTrace(
    ['session', id],
    (trace) => trace.session_id === id && (projectId === undefined || trace.project_id === projectId),
  )
  const s = data?.session
  const facts: [string, ReactNode][] = s
    ? [
        ['Project', s.project_id],
        ['User', <UserLink key="user" userId={s.user_id} projectId={s.project_id} />],
        ...totalsFacts(
          s,
          <span key="cost" data-testid="session-cost">
            {costOfTotals(s)}
          </span>,
        ),
      ]
    : []
  return (
    <DetailPage kind="sessions" id={id} query={session}>
      {s && data && (
        <>
          <SummaryPanel kind="sessions" id={s.session_id} projectId={s.project_id} facts={facts} />
          <section className="thread" aria-label="Conversation">
            {data.traces.map((trace, i) => (
              <Exchange key={trace.trace_id} trace={trace} position={i + 1} />
            ))}
            {data.traces.length < s.traces && (
              <p className="muted">
                The first {formatCount(data.traces.length)} of {formatCount(s.traces)} traces.{' '}
                <Link href={listHref('traces', 'session_id', s.session_id, s.project_id)}>All of them in the list</Link>
              </p>
            )}
          </section>
        </>
      )}
    </DetailPage>
  )
}
