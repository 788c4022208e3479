// The dashboard: every figure of /analytics for all projects or one, kept current as traces arrive and scores are
// given: the summary, each score name's card and trend, the charts, the breakdowns and the recent failures.
import { useMemo } from 'react'
import { Link } from 'wouter'
import type {
  BreakdownEntry,
  CallBreakdownEntry,
  CostBreakdownEntry,
  ScoreAnalytics,
} from '../../../../schemas/index.js'
import { keys, useAnalytics } from '../../api/queries.js'
import { TimeChart } from '../../ui/chart.js'
import { formatCompact, formatCost, formatCount, formatMs, formatPercent, formatScore } from '../../ui/format.js'
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

/** Agents or tools: each one's calls, failures and mean latency, busiest first; an agent links to its traces. */
function CallBreakdown({
  title,
  entries,
  link,
}: {
  title: string
  entries: CallBreakdownEntry[]
  link?: (key: string) => string
}) {
  return (
    <section className="panel" aria-label={title}>
      <h3>{title}</h3>
      {entries.length === 0 ? (
        <p className="muted">None called yet.</p>
      ) : (
        <table className="plain">
          <thead>
            <tr>
              <th>Name</th>
              <th className="num">Calls</th>
              <th className="num">Failures</th>
              <th className="num">Mean latency</th>
            </tr>
          </thead>
          <tbody>
            {entries.slice(0, 10).map((e) => (
              <tr key={e.key} data-call={e.key}>
                <td>{link ? <Link href={link(e.key)}>{e.key}</Link> : e.key}</td>
                <td className="num">{formatCount(e.calls)}</td>
                <td className="num">{formatCount(e.failures)}</td>
                <td className="num">{e.mean_latency === null ? '—' : formatMs(e.mean_latency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}

/** A score name's card: its mean (numeric, boolean) or its label split (categorical), how many, and its trend. */
function ScoreCard({ score }: { score: ScoreAnalytics }) {
  const hours = score.series.filter((p) => p.mean !== null)
  const main =
    score.mean !== null
      ? formatScore(score.mean, score.data_type === 'boolean' ? 2 : 3)
      : (score.labels[0]?.label ?? '—')
  return (
    <div className="card score-card" data-score-card={score.name}>
      <div className="label">
        {score.name} <span className="muted">({score.data_type})</span>
      </div>
      <div className="value" data-score-mean>
        {main}
      </div>
      <div className="muted" data-score-count>
        {formatCount(score.count)} {score.count === 1 ? 'score' : 'scores'}
        {score.data_type !== 'numeric' &&
          score.labels.length > 0 &&
          ` · ${score.labels
            .slice(0, 4)
            .map((l) => `${l.label} ${formatPercent((100 * l.count) / score.count)}`)
            .join(' · ')}`}
      </div>
      {hours.length > 1 && (
        <div className="muted" title="Mean per hour, last 24 hours" data-score-trend>
          {hours.map((p) => (p.mean ?? 0).toFixed(2)).join(' → ')}
        </div>
      )}
    </div>
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
  const { project, query } = useScopedLiveQuery(useAnalytics, keys.analytics, undefined, true)
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
      {data && data.scores.length > 0 && (
        <section className="cards" aria-label="Scores">
          {data.scores.map((score) => (
            <ScoreCard key={`${score.name}:${score.data_type}`} score={score} />
          ))}
        </section>
      )}
      {charts && data?.scores.some((s) => s.mean !== null) && (
        <section className="panel" aria-label="Score trends">
          <TimeChart
            title="Mean score per hour"
            x={data.scores[0]!.series.map((p) => Date.parse(p.timestamp) / 1000)}
            series={data.scores
              .filter((s) => s.mean !== null)
              .slice(0, 6)
              .map((s) => ({
                label: s.name,
                values: s.series.map((p) => p.mean) as number[],
                format: (v: number) => v.toFixed(3),
              }))}
          />
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
      {data && (data.agent_breakdown.length > 0 || data.tool_breakdown.length > 0) && (
        <section className="grid-3">
          <CallBreakdown
            title="Agents"
            entries={data.agent_breakdown}
            link={(k) => scoped(`agent=${encodeURIComponent(k)}`)}
          />
          <CallBreakdown title="Tools" entries={data.tool_breakdown} />
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
