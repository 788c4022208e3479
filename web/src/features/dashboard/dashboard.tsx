// The dashboard: every figure of /analytics for all projects or one, kept current as traces arrive.
import { useMemo } from 'react'
import { Link } from 'wouter'
import type { BreakdownEntry, CostBreakdownEntry } from '../../../../schemas/index.js'
import { keys, useAnalytics } from '../../api/queries.js'
import { TimeChart } from '../../ui/chart.js'
import { formatCompact, formatCost, formatCount, formatMs, formatPercent } from '../../ui/format.js'
import { ScopedPage, TraceRows, useScopedLiveQuery } from '../../ui/scoped-page.js'
import { chartSeries, chartTimes } from './chart-data.js'

function Breakdown({
  title,
  entries,
  link,
}: {
  title: string
  entries: BreakdownEntry[]
  link: (key: string) => string
}) {
  const max = Math.max(1, ...entries.map((e) => e.count))
  return (
    <section className="panel" aria-label={title}>
      <h3>{title}</h3>
      {entries.length === 0 ? (
        <p className="muted">No traces yet.</p>
      ) : (
        <div className="bars">
          {entries.slice(0, 10).map((e) => (
            <div className="bar-row" key={e.key}>
              <div className="bar-fill" style={{ width: `${(100 * e.count) / max}%` }} />
              <span>
                <Link href={link(e.key)}>{e.key}</Link>
              </span>
              <span className="num">{formatCount(e.count)}</span>
            </div>
          ))}
        </div>
      )}
    </section>
  )
}

/** Cost per model: bars by cost, with how many of the model's traces are unpriced (not counted as $0). */
function CostBreakdown({ entries, link }: { entries: CostBreakdownEntry[]; link: (key: string) => string }) {
  const max = Math.max(Number.MIN_VALUE, ...entries.map((e) => e.cost))
  return (
    <section className="panel" aria-label="Cost by model">
      <h3>Cost by model</h3>
      {entries.length === 0 ? (
        <p className="muted">No traces yet.</p>
      ) : (
        <div className="bars">
          {entries.slice(0, 10).map((e) => (
            <div className="bar-row" key={e.key} data-cost-model={e.key}>
              <div className="bar-fill" style={{ width: `${(100 * e.cost) / max}%` }} />
              <span>
                <Link href={link(e.key)}>{e.key}</Link>
                {e.unpriced > 0 && (
                  <span className="muted" title="Traces without a cost: no reported cost and no known price">
                    {' '}
                    · {formatCount(e.unpriced)} unpriced
                  </span>
                )}
              </span>
              <span className="num">{e.unpriced === e.count ? 'unpriced' : formatCost(e.cost)}</span>
            </div>
          ))}
        </div>
      )}
    </section>
  )
}

const costTick = (usd: number) => (usd === 0 ? '$0' : usd >= 1000 ? `$${formatCompact(usd)}` : formatCost(usd))

const CHARTS = [
  { title: 'Traces per hour', label: 'traces', key: 'traces', format: formatCount, tick: formatCompact },
  { title: 'Mean latency', label: 'latency', key: 'latency', format: formatMs, tick: formatMs },
  { title: 'Tokens per hour', label: 'tokens', key: 'tokens', format: formatCount, tick: formatCompact },
  { title: 'Cost per hour', label: 'cost', key: 'cost', format: formatCost, tick: costTick },
] as const

export function Dashboard() {
  const { project, query } = useScopedLiveQuery(useAnalytics, keys.analytics)
  const data = query.data
  const charts = useMemo(() => {
    if (!data) return null
    return { x: chartTimes(data.charts, Date.now()), ...chartSeries(data.charts) }
  }, [data])
  const scoped = (query: string) => {
    const params = new URLSearchParams(query)
    if (project) params.set('project_id', project)
    const text = params.toString()
    return text === '' ? '/traces' : `/traces?${text}`
  }
  const s = data?.summary
  const cards: [string, string, string?][] = s
    ? [
        ['Traces', formatCount(s.total_traces), scoped('')],
        ['Success rate', formatPercent(s.success_rate)],
        ['Average latency', formatMs(s.average_latency)],
        ['p95 latency', formatMs(s.p95_latency)],
        ['Tokens', formatCount(s.total_token_usage)],
        // Nothing priced is not free: the sum of no costs reads "unpriced".
        ['Cost', s.total_traces > 0 && s.unpriced_traces === s.total_traces ? 'unpriced' : formatCost(s.total_cost)],
        ['Unpriced traces', formatCount(s.unpriced_traces)],
        ['Failed', formatCount(s.failed_traces), scoped('status=failed')],
        ['Warnings', formatCount(s.warning_traces), scoped('status=warning')],
        ['Retried', formatCount(s.retries), '/failures'],
        ['Slow', formatCount(s.slow_requests), '/failures'],
      ]
    : []

  return (
    <ScopedPage title="Dashboard" query={query}>
      {s && (
        <section className="cards" aria-label="Summary">
          {cards.map(([label, value, href]) => (
            <div className="card" key={label} data-figure={label}>
              <div className="label">{href ? <Link href={href}>{label}</Link> : label}</div>
              <div className="value">{value}</div>
            </div>
          ))}
        </section>
      )}
      {charts && (
        <section className="grid-charts" aria-label="Last 24 hours">
          {CHARTS.map((c) => (
            <div className="panel" key={c.key}>
              <TimeChart
                title={c.title}
                x={charts.x}
                series={[{ label: c.label, values: charts[c.key], format: c.format, tick: c.tick }]}
              />
            </div>
          ))}
        </section>
      )}
      {data && (
        <section className="grid-3">
          <Breakdown title="Status" entries={data.status_breakdown} link={(k) => scoped(`status=${k}`)} />
          <Breakdown
            title="Models"
            entries={data.model_breakdown}
            link={(k) => scoped(k === 'unknown' ? '' : `model=${encodeURIComponent(k)}`)}
          />
          <Breakdown
            title="Projects"
            entries={data.project_breakdown}
            link={(k) => `/traces?project_id=${encodeURIComponent(k)}`}
          />
          <CostBreakdown
            entries={data.cost_breakdown}
            link={(k) => scoped(k === 'unknown' ? 'sort=cost' : `model=${encodeURIComponent(k)}&sort=cost`)}
          />
        </section>
      )}
      {data && (
        <section className="panel" aria-label="Recent failures">
          <h3>Recent failures</h3>
          {data.recent_failures.length === 0 ? (
            <p className="muted">No failed traces.</p>
          ) : (
            <TraceRows traces={data.recent_failures} detail={(t) => t.failure_reason ?? ''} />
          )}
        </section>
      )}
    </ScopedPage>
  )
}
