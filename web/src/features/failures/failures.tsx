// Failures: the three lists of /failures — failed, retried and slow traces — with their full totals, for all
// projects or one, kept current as traces arrive.
import type { Trace } from '../../../../schemas/index.js'
import { keys, useFailures } from '../../api/queries.js'
import { formatCount, formatMs } from '../../ui/format.js'
import { ScopedPage, TraceRows, useScopedLiveQuery } from '../../ui/scoped-page.js'

function FailureList({
  title,
  total,
  traces,
  detail,
}: {
  title: string
  total: number
  traces: Trace[]
  detail: (t: Trace) => string
}) {
  return (
    <section className="panel" aria-label={title}>
      <h2>
        {title}{' '}
        <span className="muted" data-total={title}>
          {formatCount(total)}
        </span>
      </h2>
      {traces.length === 0 ? <p className="muted">None.</p> : <TraceRows traces={traces} detail={detail} />}
    </section>
  )
}

export function Failures() {
  const { query } = useScopedLiveQuery(useFailures, keys.failures, (trace) => trace.status !== 'success')
  const data = query.data
  return (
    <ScopedPage title="Failures" query={query}>
      {data && (
        <div className="grid-3">
          <FailureList
            title="Failed"
            total={data.totals.failed_traces}
            traces={data.failed_traces}
            detail={(t) => t.failure_reason ?? ''}
          />
          <FailureList
            title="Retried"
            total={data.totals.retries}
            traces={data.retries}
            detail={(t) => `${t.retry_count} ${t.retry_count === 1 ? 'retry' : 'retries'}`}
          />
          <FailureList
            title="Slow"
            total={data.totals.slow_requests}
            traces={data.slow_requests}
            detail={(t) => formatMs(t.latency)}
          />
        </div>
      )}
    </ScopedPage>
  )
}
