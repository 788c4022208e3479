// Experiments side by side (/ui/experiments?ids=a,b[,c]; one id: one run): the aggregates, then the grid — items as
// rows, runs as columns, each cell its run's status, output, latency and scores, coloured where it improved on or
// regressed from the first run, with links to its trace and to the two traces compared.
import { useVirtualizer } from '@tanstack/react-virtual'
import { useLayoutEffect, useRef, useState } from 'react'
import { Link } from 'wouter'
import type { CompareExperimentsResponse, ExperimentDelta, ExperimentRun } from '../../../../schemas/index.js'
import { useExperiments } from '../../api/queries.js'
import { formatCost, formatMs, formatPercent, formatValue } from '../../ui/format.js'
import { ErrorBox, StatusBadge } from '../../ui/parts.js'
import { useSearchParam } from '../../ui/url.js'
import { expectedCompareHref } from './datasets.js'
import { cellTrend } from './trend.js'

function Cell({
  run,
  delta,
  base,
  expected,
}: {
  run: ExperimentRun | null
  delta: ExperimentDelta | null
  base: ExperimentRun | null
  /** The link to the run beside its dataset item's expected output. */
  expected: (traceId: string) => string
}) {
  if (!run) return <td className="muted">not run</td>
  const trend = cellTrend(delta, run, base)
  return (
    <td className={`cell-${trend}`} data-trend={trend}>
      <StatusBadge status={run.status} /> <span>{(run.output ?? run.error ?? '').slice(0, 120)}</span>
      <div className="muted">
        {formatMs(run.latency)} ·{' '}
        {Object.entries(run.scores)
          .map(([n, v]) => `${n} ${Math.round(v * 100) / 100}`)
          .join(' · ')}
      </div>
      <Link href={`/traces/${encodeURIComponent(run.trace_id)}`}>trace</Link>
      {' · '}
      <Link href={expected(run.trace_id)}>vs expected</Link>
      {base && base.trace_id !== run.trace_id && (
        <>
          {' · '}
          <Link href={`/compare?a=${encodeURIComponent(base.trace_id)}&b=${encodeURIComponent(run.trace_id)}`}>
            compare
          </Link>
        </>
      )}
    </td>
  )
}

export function Experiments() {
  const [ids] = useSearchParam('ids')
  const query = useExperiments(ids ?? '')
  if (!ids) return <p className="muted">Open a dataset and pick its experiments.</p>
  if (query.isError) return <ErrorBox error={query.error} />
  if (!query.data) return <p className="muted">Loading…</p>
  const { experiments, aggregates, items } = query.data
  const columns = experiments.map((e, i) => ({
    id: e.experiment_id,
    a: aggregates[i] ?? (aggregates[0] as (typeof aggregates)[0]),
  }))
  return (
    <div className="page">
      <h1>{experiments.length > 1 ? 'Experiments compared' : experiments[0]?.name}</h1>
      <table className="plain" aria-label="Aggregates">
        <thead>
          <tr>
            <th />
            {experiments.map((e) => (
              <th key={e.experiment_id}>{e.name}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr>
            <th>Pass rate</th>
            {columns.map(({ id, a }) => (
              <td key={id}>{formatPercent(a.pass_rate * 100)}</td>
            ))}
          </tr>
          <tr>
            <th>Mean latency</th>
            {columns.map(({ id, a }) => (
              <td key={id}>{formatMs(a.latency_mean)}</td>
            ))}
          </tr>
          <tr>
            <th>Cost</th>
            {columns.map(({ id, a }) => (
              <td key={id}>{formatCost(a.total_cost)}</td>
            ))}
          </tr>
          {[...new Set(aggregates.flatMap((a) => Object.keys(a.scores)))].map((name) => (
            <tr key={name}>
              <th>{name}</th>
              {columns.map(({ id, a }) => (
                <td key={id}>{a.scores[name] ? Math.round(a.scores[name].mean * 1000) / 1000 : '—'}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <Grid experiments={experiments} items={items} />
    </div>
  )
}

/** A row's height before it is measured (status, output, figures, links). */
const ROW_ESTIMATE = 76

/**
 * The grid: items as rows, runs as columns. Only the rows near the view are in the page (a dataset of thousands of
 * items renders as fast as one of twenty); the page's scroll area scrolls them, spacer rows keep the table's height.
 */
function Grid({ experiments, items }: Pick<CompareExperimentsResponse, 'experiments' | 'items'>) {
  const body = useRef<HTMLTableSectionElement>(null)
  const [margin, setMargin] = useState(0)
  const scroller = () => body.current?.closest('main') ?? null
  useLayoutEffect(() => {
    const element = body.current
    const area = element?.closest('main')
    if (!element || !area) return
    setMargin(element.getBoundingClientRect().top - area.getBoundingClientRect().top + area.scrollTop)
  }, [])
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: scroller,
    estimateSize: () => ROW_ESTIMATE,
    overscan: 10,
    scrollMargin: margin,
    // Before the scroll area is measured (the first render, and where there is none): the first rows.
    initialRect: { width: 1200, height: 1200 },
  })
  const rows = virtualizer.getVirtualItems()
  const top = rows.length > 0 ? rows[0]!.start - margin : 0
  const bottom = rows.length > 0 ? virtualizer.getTotalSize() - (rows.at(-1)!.end - margin) : 0
  return (
    <table className="plain" data-testid="experiment-grid" data-items={items.length}>
      <thead>
        <tr>
          <th>Input</th>
          <th>Expected</th>
          {experiments.map((e) => (
            <th key={e.experiment_id}>{e.name}</th>
          ))}
        </tr>
      </thead>
      <tbody ref={body}>
        {top > 0 && <tr data-spacer="" style={{ height: top }} />}
        {rows.map((row) => {
          const item = items[row.index]!
          return (
            <tr key={item.dataset_item_id} data-index={row.index} ref={virtualizer.measureElement}>
              <td>{formatValue(item.input).slice(0, 200)}</td>
              <td>{formatValue(item.expected_output).slice(0, 200)}</td>
              {item.runs.map((run, i) => (
                <Cell
                  key={experiments[i]?.experiment_id}
                  run={run}
                  delta={i === 0 ? null : (item.deltas[i] ?? null)}
                  base={i === 0 ? null : (item.runs[0] ?? null)}
                  expected={(traceId) =>
                    expectedCompareHref(
                      traceId,
                      { dataset_id: experiments[i]?.dataset_id ?? '', dataset_item_id: item.dataset_item_id },
                      experiments[i]?.as_of,
                    )
                  }
                />
              ))}
            </tr>
          )
        })}
        {bottom > 0 && <tr data-spacer="" style={{ height: bottom }} />}
      </tbody>
    </table>
  )
}
