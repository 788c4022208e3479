// A view of aggregates about all projects or one (?project_id=): its page frame, and its query kept current by the
// live stream with a throttled refetch, so an hour of heavy ingest costs a bounded number of requests.
import { type QueryKey, type UseQueryResult, useQueryClient } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { Link } from 'wouter'
import type { Trace } from '../../../schemas/index.js'
import { useThrottledOnTrace } from '../api/live.js'
import { formatTime } from './format.js'
import { ErrorBox, StatusBadge } from './parts.js'
import { ProjectPicker } from './project-picker.js'
import { useSearchParam } from './url.js'

/** Aggregates are read again at most this often while traces arrive. */
export const LIVE_REFRESH_MS = 2000

export function useScopedLiveQuery<T>(
  useData: (project: string | undefined) => UseQueryResult<T>,
  queryKey: (project: string | undefined) => QueryKey,
  accept: (trace: Trace) => boolean = () => true,
  /** Whether scores given or deleted change what the view shows (the dashboard's score cards). */
  withScores = false,
) {
  const [projectId] = useSearchParam('project_id')
  const project = projectId ?? undefined
  const query = useData(project)
  const client = useQueryClient()
  useThrottledOnTrace(
    () => client.invalidateQueries({ queryKey: queryKey(project) }),
    LIVE_REFRESH_MS,
    (trace) => (project === undefined || trace.project_id === project) && accept(trace),
    (deleted) => project === undefined || deleted.project_id === project,
    (event) => withScores && (project === undefined || event.data.project_id === project),
  )
  return { project, query }
}

export function ScopedPage({ title, query, children }: { title: string; query: UseQueryResult; children: ReactNode }) {
  return (
    <div className="page">
      <div className="header">
        <h1>{title}</h1>
        <span className="spacer" />
        <ProjectPicker />
      </div>
      {query.isError && <ErrorBox error={query.error} />}
      {query.isPending && <p className="muted">Loading…</p>}
      {children}
    </div>
  )
}

/** A short list of traces: time, name (a link to the trace), status and one detail. */
export function TraceRows({ traces, detail }: { traces: Trace[]; detail: (trace: Trace) => string }) {
  return (
    <table className="plain">
      <tbody>
        {traces.map((t) => (
          <tr key={t.trace_id}>
            <td style={{ whiteSpace: 'nowrap' }}>{formatTime(t.created_at)}</td>
            <td>
              <Link href={`/traces/${encodeURIComponent(t.trace_id)}`}>{t.name ?? t.trace_id}</Link>
            </td>
            <td>
              <StatusBadge status={t.status} />
            </td>
            <td className="muted">{detail(t)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
