// The trace list: a virtualized table over any number of traces (pages of the light list fetched as you scroll),
// filtered by the URL, with traces that match pushed live at the top from /ws — or held back, counted, while paused.
import { useQueryClient } from '@tanstack/react-query'
import { useVirtualizer } from '@tanstack/react-virtual'
import { useEffect, useMemo, useRef, useState } from 'react'
import { Link, useSearch } from 'wouter'
import type { Trace } from '../../../../schemas/index.js'
import { useLiveTraces } from '../../api/live.js'
import { keys, useTraceList } from '../../api/queries.js'
import { formatCount, formatMs, formatTime } from '../../ui/format.js'
import { ErrorBox, StatusBadge } from '../../ui/parts.js'
import { matchesFilter, parseFilter, summarize } from './filters.js'
import { type Held, hold, insertLive, resumeByRefetch, type TracePages } from './live-list.js'
import { TraceFilters } from './trace-filters.js'

const ROW_HEIGHT = 34
const NONE_HELD: Held = { items: [], count: 0 }

export function TraceList() {
  const search = useSearch()
  const filter = useMemo(() => parseFilter(search), [search])
  const list = useTraceList(filter)
  const client = useQueryClient()
  const [paused, setPaused] = useState(false)
  const [held, setHeld] = useState<Held>(NONE_HELD)
  const [fresh, setFresh] = useState<ReadonlySet<string>>(new Set())
  const key = keys.traces(filter)

  // A new filter starts a new list: nothing held for the old one carries over.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset on a new search only.
  useEffect(() => setHeld(NONE_HELD), [search])

  const addLive = (traces: ReturnType<typeof summarize>[]) => {
    client.setQueryData<TracePages>(key, (data) => insertLive(data, traces))
    setFresh(new Set(traces.map((t) => t.trace_id)))
  }
  useLiveTraces(
    (trace: Trace) => {
      const summary = summarize(trace)
      if (!matchesFilter(summary, filter)) return
      if (paused) setHeld((h) => hold(h, summary))
      else addLive([summary])
    },
    // Traces stored while the socket was down are not replayed: read the list again.
    () => client.invalidateQueries({ queryKey: key }),
  )

  const resume = () => {
    setPaused(false)
    if (resumeByRefetch(held)) client.invalidateQueries({ queryKey: key })
    else addLive(held.items)
    setHeld(NONE_HELD)
  }

  const rows = useMemo(() => list.data?.pages.flatMap((p) => p.items) ?? [], [list.data])
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
        {paused ? (
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
      <section className="table" aria-label="Traces">
        <div className="thead">
          <span>Time</span>
          <span>Name</span>
          <span>Model</span>
          <span>Project</span>
          <span>Status</span>
          <span className="num">Latency</span>
          <span className="num">Tokens</span>
          <span className="num">Steps</span>
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
                  <span>{formatTime(t.created_at)}</span>
                  <span title={t.name ?? ''}>{t.name ?? <span className="muted">{t.trace_id}</span>}</span>
                  <span>{t.model ?? '—'}</span>
                  <span>{t.project_id}</span>
                  <span>
                    <StatusBadge status={t.status} />
                  </span>
                  <span className="num">{formatMs(t.latency)}</span>
                  <span className="num">{formatCount(t.token_count)}</span>
                  <span className="num">{t.step_count}</span>
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
