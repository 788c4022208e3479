// Sessions: the list (newest activity first, filtered and paged in the URL) and one session as the conversation it
// was — its traces oldest first, each a prompt and a response with its status, latency and cost. Both stay current
// as traces arrive.
import { useQueryClient } from '@tanstack/react-query'
import { useMemo } from 'react'
import { Link, useSearch } from 'wouter'
import type { Trace } from '../../../../schemas/index.js'
import { useThrottledOnTrace } from '../../api/live.js'
import { useSession, useSessions } from '../../api/queries.js'
import { formatCost, formatCount, formatMs, formatTime } from '../../ui/format.js'
import { ErrorBox, LongText, StatusBadge } from '../../ui/parts.js'
import { LIVE_REFRESH_MS } from '../../ui/scoped-page.js'
import { ACTIVITY_PAGE, costOfTotals, parseActivityQuery } from './activity-query.js'
import { ActivityFilters, activityHref, Pager, SessionTable } from './activity-table.js'

export function Sessions() {
  const search = useSearch()
  const query = useMemo(() => parseActivityQuery(search, true), [search])
  const list = useSessions({ ...query, limit: ACTIVITY_PAGE })
  const client = useQueryClient()
  useThrottledOnTrace(
    () => client.invalidateQueries({ queryKey: ['sessions'] }),
    LIVE_REFRESH_MS,
    (trace) => trace.session_id !== null && (query.project_id === undefined || trace.project_id === query.project_id),
  )
  const items = list.data?.items ?? []
  return (
    <div className="page">
      <div className="header">
        <h1>Sessions</h1>
        <span className="muted" data-testid="session-total">
          {list.data ? `${formatCount(list.data.total)} sessions` : ''}
        </span>
      </div>
      <ActivityFilters path="/sessions" search={search} withUser />
      {list.isError && <ErrorBox error={list.error} />}
      {list.isPending && <p className="muted">Loading…</p>}
      {list.isSuccess && items.length === 0 && (
        <p className="muted">No sessions match. Traces that carry a session_id make one.</p>
      )}
      {items.length > 0 && (
        <section className="panel">
          <SessionTable sessions={items} />
        </section>
      )}
      {list.data && (
        <Pager path="/sessions" query={query} shown={items.length} total={list.data.total} noun="sessions" />
      )}
    </div>
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
  const client = useQueryClient()
  const data = session.data
  useThrottledOnTrace(
    () => client.invalidateQueries({ queryKey: ['session', id] }),
    LIVE_REFRESH_MS,
    (trace) => trace.session_id === id && (projectId === undefined || trace.project_id === projectId),
  )
  const s = data?.session
  return (
    <div className="page">
      <div className="muted">
        <Link href="/sessions">Sessions</Link> / {id}
      </div>
      {session.isError && <ErrorBox error={session.error} />}
      {session.isPending && <p className="muted">Loading…</p>}
      {s && data && (
        <>
          <section className="panel" aria-label="Session">
            <div className="header">
              <h1>{s.session_id}</h1>
              <span className="spacer" />
              <Link
                href={`/traces?session_id=${encodeURIComponent(s.session_id)}&project_id=${encodeURIComponent(s.project_id)}`}
              >
                Its traces in the list
              </Link>
            </div>
            <dl className="facts" style={{ marginTop: 8 }}>
              <div>
                <dt>Project</dt>
                <dd>{s.project_id}</dd>
              </div>
              <div>
                <dt>User</dt>
                <dd>
                  {s.user_id === null ? (
                    '—'
                  ) : (
                    <Link href={activityHref('users', s.user_id, s.project_id)}>{s.user_id}</Link>
                  )}
                </dd>
              </div>
              <div>
                <dt>Traces</dt>
                <dd>{formatCount(s.traces)}</dd>
              </div>
              <div>
                <dt>From</dt>
                <dd>{formatTime(s.first_at)}</dd>
              </div>
              <div>
                <dt>To</dt>
                <dd>{formatTime(s.last_at)}</dd>
              </div>
              <div>
                <dt>Latency (Σ)</dt>
                <dd>{formatMs(s.latency_total)}</dd>
              </div>
              <div>
                <dt>Tokens</dt>
                <dd>{formatCount(s.token_count)}</dd>
              </div>
              <div>
                <dt>Cost</dt>
                <dd data-testid="session-cost">{costOfTotals(s)}</dd>
              </div>
              <div>
                <dt>Failed</dt>
                <dd>{formatCount(s.failed)}</dd>
              </div>
              <div>
                <dt>Warnings</dt>
                <dd>{formatCount(s.warnings)}</dd>
              </div>
            </dl>
          </section>
          <section className="thread" aria-label="Conversation">
            {data.traces.map((trace, i) => (
              <Exchange key={trace.trace_id} trace={trace} position={i + 1} />
            ))}
            {data.traces.length < s.traces && (
              <p className="muted">
                The first {formatCount(data.traces.length)} of {formatCount(s.traces)} traces.{' '}
                <Link
                  href={`/traces?session_id=${encodeURIComponent(s.session_id)}&project_id=${encodeURIComponent(s.project_id)}`}
                >
                  All of them in the list
                </Link>
              </p>
            )}
          </section>
        </>
      )}
    </div>
  )
}
