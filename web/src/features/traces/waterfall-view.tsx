// The waterfall: one virtualized row per visible step (so 1000 steps render as fast as 30), indented by depth, with
// a bar from the step's start for its latency on the trace's time axis. Failed steps and retried tools are marked.
import { useVirtualizer } from '@tanstack/react-virtual'
import { useEffect, useRef } from 'react'
import { formatCost, formatMs } from '../../ui/format.js'
import type { Waterfall } from './waterfall.js'

const ROW = 28

export function WaterfallView({
  waterfall,
  selected,
  highlighted,
  collapsed,
  onSelect,
  onToggle,
}: {
  waterfall: Waterfall
  selected: number | null
  /** Steps marked beside the selected one (the calls of a node picked in the agent graph). */
  highlighted?: ReadonlySet<number>
  collapsed: ReadonlySet<number>
  onSelect: (index: number) => void
  onToggle: (index: number) => void
}) {
  const body = useRef<HTMLDivElement>(null)
  const { rows, span } = waterfall
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => body.current,
    estimateSize: () => ROW,
    overscan: 15,
  })
  const position = selected === null ? -1 : rows.findIndex((r) => r.step.index === selected)
  useEffect(() => {
    if (position >= 0) virtualizer.scrollToIndex(position, { align: 'auto' })
  }, [position, virtualizer])

  return (
    <section className="waterfall" aria-label="Steps">
      <div
        className="thead"
        style={{ display: 'grid', gridTemplateColumns: 'minmax(180px, 2fr) 3fr', padding: '4px 8px' }}
      >
        <span className="muted">{rows.length} steps</span>
        <span className="muted" style={{ display: 'flex', justifyContent: 'space-between', marginRight: 12 }}>
          <span>0</span>
          <span>{formatMs(span / 2)}</span>
          <span>{formatMs(span)}</span>
        </span>
      </div>
      <div className="wbody" ref={body}>
        {rows.length === 0 && (
          <p className="muted" style={{ padding: 12 }}>
            This trace has no steps.
          </p>
        )}
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index]!
            const { step } = row
            const left = (100 * row.offset) / span
            const width = Math.max(0.2, (100 * row.duration) / span)
            return (
              // biome-ignore lint/a11y/useKeyWithClickEvents lint/a11y/noStaticElementInteractions: the whole row is a mouse target; from the keyboard, its name is a button, and j/k move (trace-detail.tsx).
              <div
                key={step.index}
                className="wrow"
                aria-current={step.index === selected ? 'step' : undefined}
                data-step-index={step.index}
                data-highlighted={highlighted?.has(step.index) ? '' : undefined}
                onClick={() => onSelect(step.index)}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${item.start}px)` }}
              >
                <span className="wname" style={{ paddingLeft: 8 + row.depth * 14 }}>
                  {row.childCount > 0 ? (
                    <button
                      type="button"
                      className="twisty"
                      aria-label={collapsed.has(step.index) ? 'Expand' : 'Collapse'}
                      aria-expanded={!collapsed.has(step.index)}
                      onClick={(e) => {
                        e.stopPropagation()
                        onToggle(step.index)
                      }}
                    >
                      {collapsed.has(step.index) ? '▶' : '▼'}
                    </button>
                  ) : (
                    <span style={{ width: 16 }} />
                  )}
                  <button
                    type="button"
                    className="pick"
                    title={`${step.type}${step.tool ? ` · ${step.tool}` : ''}`}
                    onClick={(e) => {
                      e.stopPropagation()
                      onSelect(step.index)
                    }}
                  >
                    {step.name}
                  </button>
                  {step.status === 'failed' && <span className="marker failed">failed</span>}
                  {row.retry && <span className="marker retry">retry</span>}
                </span>
                <span className="wtrack">
                  <span
                    className={`wbar${step.status === 'failed' ? ' failed' : ''}${row.estimated ? ' estimated' : ''}`}
                    style={{ left: `${left}%`, width: `${width}%`, background: `var(--bar-${step.type})` }}
                  />
                  <span
                    className="wtime"
                    style={
                      left + width > 80 ? { right: `${100 - left + 0.5}%` } : { left: `calc(${left + width}% + 4px)` }
                    }
                  >
                    {formatMs(step.latency)}
                    {/* A step's cost beside its time when it has one; the side panel says "unpriced" otherwise. */}
                    {step.cost !== null && <span data-step-cost={step.cost}> · {formatCost(step.cost)}</span>}
                  </span>
                </span>
              </div>
            )
          })}
        </div>
      </div>
    </section>
  )
}
