// The trace list: a virtualized table over any number of traces (pages of the light list fetched as you scroll, by
// the server's cursor), filtered, searched and sorted by the URL. Newest first, traces that match are pushed live at
// the top from /ws — or held back, counted, while paused; in another order they are counted, and shown on request.
import { useQueryClient } from '@tanstack/react-query'
import { useVirtualizer } from '@tanstack/react-virtual'
import { useEffect, useMemo, useRef, useState } from 'react'
import { Link, useLocation, useSearch } from 'wouter'
import type { Trace, TraceSummary } from '../../../../schemas/index.js'
import { useLiveTraces } from '../../api/live.js'
import { keys, useTraceList } from '../../api/queries.js'
import { formatCost, formatCount, formatMs, formatScore, formatTime } from '../../ui/format.js'
import { Marked } from '../../ui/marked.js'
import { ErrorBox, StatusBadge } from '../../ui/parts.js'
import { AddToDataset } from '../datasets/datasets.js'
import {
  belongsToList,
  isNewestFirst,
  type ListSort,
  parseFilter,
  scoreColumn,
  scoreSort,
  summarize,
  type TraceFilter,
  toggleSort,
  traceListHref,
} from './filters.js'
import { type Held, hold, insertLive, removeDeleted, resumeByRefetch, type TracePages, unhold } from './live-list.js'
import { TraceFilters } from './trace-filters.js'

const ROW_HEIGHT = 34
const NONE_HELD: Held = { items: [], count: 0 }

/** A trace's mean of a score (how many scores, on hover); "—" when it has none of that name. */
function ScoreCell({ trace, name }: { trace: TraceSummary; name: string }) {
  const score = trace.scores !== undefined && Object.hasOwn(trace.scores, name) ? trace.scores[name] : undefined
  return score === undefined ? (
    <span className="num muted" data-score="none">
      —
    </span>
  ) : (
    <span className="num" data-score={score.mean} title={`${formatCount(score.count)} × ${name}`}>
      {formatScore(score.mean)}
    </span>
  )
}

/** A column heading that orders the list by its field (descending first; again: ascending). */
function SortHeading({
  filter,
  sort,
  label,
  num,
}: {
  filter: TraceFilter
  sort: ListSort
  label: string
  num?: boolean
}) {
  const [, navigate] = useLocation()
  const active = (filter.sort ?? 'created_at') === sort
  const order = filter.order ?? 'desc'
  return (
    <span className={num ? 'num' : undefined} data-order={active ? order : undefined}>
      <button
        type="button"
        className="sort"
        data-sort={sort}
        title={`Sort by ${label.toLowerCase()}`}
        aria-pressed={active}
        onClick={() => navigate(traceListHref(toggleSort(filter, sort)), { replace: true })}
      >
        {label}
        <span aria-hidden="true">{active ? (order === 'asc' ? ' ▲' : ' ▼') : ''}</span>
      </button>
    </span>
  )
}

export function TraceList() {
  const search = useSearch()
  const filter = useMemo(() => parseFilter(search), [search])
  const list = useTraceList(filter)
  const client = useQueryClient()
  const [paused, setPaused] = useState(false)
  const [held, setHeld] = useState<Held>(NONE_HELD)
  const [fresh, setFresh] = useState<ReadonlySet<string>>(new Set())
  // In another order than newest first, new traces belong somewhere in the middle: they are only counted.
  const [unshown, setUnshown] = useState(0)
  const newestFirst = isNewestFirst(filter)
  const scored = scoreColumn(filter)
  const key = keys.traces(filter)

  // A new filter starts a new list: nothing held for the old one carries over.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset on a new search only.
  useEffect(() => {
    setHeld(NONE_HELD)
    setUnshown(0)
  }, [search])

  const addLive = (traces: ReturnType<typeof summarize>[]) => {
    client.setQueryData<TracePages>(key, (data) => insertLive(data, traces))
    setFresh(new Set(traces.map((t) => t.trace_id)))
  }
  useLiveTraces(
    (trace: Trace) => {
      const summary = summarize(trace)
      if (!belongsToList(summary, filter, trace)) return
      if (!newestFirst) setUnshown((n) => n + 1)
      else if (paused) setHeld((h) => hold(h, summary))
      else addLive([summary])
    },
    // Traces stored while the socket was down are not replayed: read the list again.
    () => client.invalidateQueries({ queryKey: key }),
    // A deleted trace leaves the list (and what the pause holds) at once.
    ({ trace_id }) => {
      client.setQueryData<TracePages>(key, (data) => removeDeleted(data, trace_id))
      setHeld((h) => unhold(h, trace_id))
    },
  )

  const resume = () => {
    setPaused(false)
    if (resumeByRefetch(held)) client.invalidateQueries({ queryKey: key })
    else addLive(held.items)
    setHeld(NONE_HELD)
  }

  /** The list read again from its first page, with the traces that were only counted. */
  const showUnshown = () => {
    setUnshown(0)
    void client.resetQueries({ queryKey: key })
  }

  const rows = useMemo(() => list.data?.pages.flatMap((p) => p.items) ?? [], [list.data])
  // The traces ticked in the list, in the order ticked: two of them can be compared side by side.
  const [selected, setSelected] = useState<string[]>([])
  const toggle = (traceId: string) =>
    setSelected((now) => (now.includes(traceId) ? now.filter((id) => id !== traceId) : [...now, traceId]))
  const [, navigate] = useLocation()
  const total = list.data?.pages[0]?.total ?? 0
  const body = useRef<HTMLDivElement>(null)
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => body.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 20,
  })
  const items = virtualizer.getVirtualItems()
  const lastShown = items.at(-1)?.index ?? 0
  useEffect(() => {
    if (lastShown >= rows.length - 30 && list.hasNextPage && !list.isFetchingNextPage) void list.fetchNextPage()
  }, [lastShown, rows.length, list.hasNextPage, list.isFetchingNextPage, list.fetchNextPage])

  return (
    <div className="page fill">
      <div className="header">
        <h1>Traces</h1>
        <span className="muted" data-testid="trace-total">
          {list.data ? `${formatCount(total)} traces` : ''}
        </span>
        <span className="spacer" />
        {selected.length > 0 && (
          <>
            <span className="muted">{selected.length} selected</span>
            <button
              type="button"
              disabled={selected.length !== 2}
              title="Two traces side by side"
              onClick={() =>
                navigate(
                  `/compare?a=${encodeURIComponent(selected[0] ?? '')}&b=${encodeURIComponent(selected[1] ?? '')}`,
                )
              }
            >
              Compare
            </button>
            <AddToDataset traceIds={selected} />
            <button type="button" onClick={() => setSelected([])}>
              Clear
            </button>
          </>
        )}
        {!newestFirst ? (
          unshown > 0 && (
            <button type="button" className="primary" onClick={showUnshown} aria-live="polite">
              {formatCount(unshown)} new · Show
            </button>
          )
        ) : paused ? (
          <button type="button" className="primary" onClick={resume} aria-live="polite">
            Resume{held.count > 0 ? ` · ${formatCount(held.count)} new` : ''}
          </button>
        ) : (
          <button type="button" onClick={() => setPaused(true)} title="Hold new traces back">
            Pause live
          </button>
        )}
      </div>
      <TraceFilters search={search} />
      {list.isError && <ErrorBox error={list.error} />}
      <section className={scored === null ? 'table' : 'table scored'} aria-label="Traces">
        <div className="thead">
          <span />
          <SortHeading filter={filter} sort="created_at" label="Time" />
          <span>Name</span>
          <span>Model</span>
          <span>Project</span>
          <span>Status</span>
          <SortHeading filter={filter} sort="latency" label="Latency" num />
          <SortHeading filter={filter} sort="token_count" label="Tokens" num />
          <SortHeading filter={filter} sort="cost" label="Cost" num />
          <span className="num">Steps</span>
          {scored !== null && <SortHeading filter={filter} sort={scoreSort(scored)} label={`score: ${scored}`} num />}
        </div>
        <div className="tbody" ref={body}>
          {list.isPending && (
            <p className="muted" style={{ padding: 12 }}>
              Loading…
            </p>
          )}
          {list.isSuccess && rows.length === 0 && (
            <p className="muted" style={{ padding: 12 }}>
              No traces match. New ones appear here as they are stored.
            </p>
          )}
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {items.map((item) => {
              const t = rows[item.index]!
              return (
                <Link
                  key={t.trace_id}
                  href={`/traces/${encodeURIComponent(t.trace_id)}`}
                  className={`tr${fresh.has(t.trace_id) ? ' fresh' : ''}`}
                  data-trace-id={t.trace_id}
                  style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${item.start}px)` }}
                >
                  <span>
                    <input
                      type="checkbox"
                      aria-label={`Select ${t.trace_id}`}
                      checked={selected.includes(t.trace_id)}
                      onClick={(event) => {
                        // A tick selects; it does not open the trace.
                        event.stopPropagation()
                        event.preventDefault()
                        toggle(t.trace_id)
                      }}
                      onChange={() => {}}
                    />
                  </span>
                  <span>{formatTime(t.created_at)}</span>
                  <span title={t.name ?? ''}>
                    {t.name === null ? (
                      <span className="muted">{t.trace_id}</span>
                    ) : (
                      <Marked text={t.name} q={filter.q} />
                    )}
                  </span>
                  <span>{t.model ?? '—'}</span>
                  <span>{t.project_id}</span>
                  <span>
                    <StatusBadge status={t.status} />
                  </span>
                  <span className="num">{formatMs(t.latency)}</span>
                  <span className="num">{formatCount(t.token_count)}</span>
                  <span className={`num${t.cost === null ? ' muted' : ''}`} data-cost={t.cost ?? 'unpriced'}>
                    {formatCost(t.cost)}
                  </span>
                  <span className="num">{t.step_count}</span>
                  {scored !== null && <ScoreCell trace={t} name={scored} />}
                </Link>
              )
            })}
          </div>
        </div>
      </section>
      <div className="list-foot">
        <span>
          {formatCount(rows.length)} of {formatCount(total)} loaded
        </span>
        {list.isFetchingNextPage && <span>Loading more…</span>}
      </div>
    </div>
  )
}
