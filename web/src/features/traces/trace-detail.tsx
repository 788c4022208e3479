// One trace: its header, the steps as a waterfall tree on a time axis, and the selected step's input, output and
// error beside it. The selected step is in the URL (?step=N); j/k move between steps. "Graph" (?view=graph) shows the
// agents and tools above the waterfall; picking one selects its calls there.
import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useMemo, useState } from 'react'
import { Link } from 'wouter'
import type { Step, Trace } from '../../../../schemas/index.js'
import { useLiveScores, useLiveTraces } from '../../api/live.js'
import { keys, useTrace } from '../../api/queries.js'
import { formatCost, formatCount, formatMs, formatTime, formatValue } from '../../ui/format.js'
import { CopyButton, ErrorBox, LongText, StatusBadge } from '../../ui/parts.js'
import { useSearchParam } from '../../ui/url.js'
import { activityHref } from '../activity/activity-table.js'
import { ScoresPanel } from '../annotation/scores-panel.js'
import { AddToDataset } from '../datasets/datasets.js'
import { buildAgentGraph, layoutAgentGraph } from './agent-graph.js'
import { AgentGraphView } from './agent-graph-view.js'
import { buildWaterfall, moveSelection } from './waterfall.js'
import { WaterfallView } from './waterfall-view.js'

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  )
}

const listLink = (key: 'session_id' | 'user_id', value: string) => `/traces?${key}=${encodeURIComponent(value)}`

/** A session or user: its page, and its traces in the list. */
function ActivityFact({
  label,
  kind,
  filterKey,
  id,
  projectId,
}: {
  label: string
  kind: 'sessions' | 'users'
  filterKey: 'session_id' | 'user_id'
  id: string | null
  projectId: string
}) {
  return (
    <Fact label={label}>
      {id === null ? (
        '—'
      ) : (
        <>
          <Link href={activityHref(kind, id, projectId)}>{id}</Link>{' '}
          <Link href={listLink(filterKey, id)} className="muted" title={`Every trace of this ${label.toLowerCase()}`}>
            (traces)
          </Link>
        </>
      )}
    </Fact>
  )
}

function Header({ trace }: { trace: Trace }) {
  return (
    <section className="panel" aria-label="Trace">
      <div className="header">
        <h1>{trace.name ?? trace.trace_id}</h1>
        <StatusBadge status={trace.status} />
        <span className="spacer" />
        <AddToDataset traceIds={[trace.trace_id]} />
        <CopyButton text={() => JSON.stringify(trace, null, 2)} label="Copy JSON" />
      </div>
      {trace.failure_reason && (
        <div className="block error" role="note" aria-label="Failure reason" style={{ marginTop: 8 }}>
          <LongText text={trace.failure_reason} />
        </div>
      )}
      <dl className="facts" style={{ marginTop: 8 }}>
        <Fact label="Trace id">
          <code>{trace.trace_id}</code>
        </Fact>
        <Fact label="Time">{formatTime(trace.created_at)}</Fact>
        <Fact label="Latency">{formatMs(trace.latency)}</Fact>
        <Fact label="Tokens">
          {formatCount(trace.token_count)}
          {trace.prompt_tokens !== null || trace.completion_tokens !== null
            ? ` (${formatCount(trace.prompt_tokens)} in · ${formatCount(trace.completion_tokens)} out)`
            : ''}
        </Fact>
        <Fact label="Cost">
          <span data-cost={trace.cost ?? 'unpriced'}>{formatCost(trace.cost)}</span>
        </Fact>
        <Fact label="Model">{trace.model ?? '—'}</Fact>
        <Fact label="Project">
          <Link href={`/traces?project_id=${encodeURIComponent(trace.project_id)}`}>{trace.project_id}</Link>
        </Fact>
        <Fact label="Environment">{trace.environment}</Fact>
        <Fact label="Retries">{trace.retry_count}</Fact>
        <ActivityFact
          label="Session"
          kind="sessions"
          filterKey="session_id"
          id={trace.session_id}
          projectId={trace.project_id}
        />
        <ActivityFact label="User" kind="users" filterKey="user_id" id={trace.user_id} projectId={trace.project_id} />
        {trace.tags.length > 0 && (
          <Fact label="Tags">
            <span className="tags">
              {trace.tags.map((tag) => (
                <span className="tag" key={tag}>
                  {tag}
                </span>
              ))}
            </span>
          </Fact>
        )}
      </dl>
    </section>
  )
}

function Section({ title, value, error }: { title: string; value: unknown; error?: boolean }) {
  const text = formatValue(value)
  if (text === '' || text === '{}') return null
  return (
    <section aria-label={title}>
      <h3>{title}</h3>
      <div className={`block${error ? ' error' : ''}`}>
        <LongText text={text} />
      </div>
    </section>
  )
}

function StepPanel({ trace, step }: { trace: Trace; step: Step | null }) {
  if (!step) {
    return (
      <aside className="side" aria-label="Trace input and output">
        <p className="muted">
          Select a step (click, or <span className="kbd">j</span>/<span className="kbd">k</span>) to see its input and
          output.
        </p>
        <Section title="Prompt" value={trace.prompt} />
        <Section title="Response" value={trace.response} />
        <Section title="Metadata" value={trace.metadata} />
      </aside>
    )
  }
  return (
    <aside className="side" aria-label="Step">
      <div className="header">
        <h2 style={{ margin: 0 }}>
          #{step.index} {step.name}
        </h2>
        <StatusBadge status={step.status} />
      </div>
      <dl className="facts">
        <Fact label="Type">{step.type}</Fact>
        {step.tool && <Fact label="Tool">{step.tool}</Fact>}
        <Fact label="Latency">{formatMs(step.latency)}</Fact>
        <Fact label="Tokens">{formatCount(step.token_count)}</Fact>
        <Fact label="Cost">
          <span data-cost={step.cost ?? 'unpriced'}>{formatCost(step.cost)}</span>
        </Fact>
        <Fact label="Started">{step.started_at ? formatTime(step.started_at) : '—'}</Fact>
        <Fact label="Parent">{step.parent_index === null ? '—' : `#${step.parent_index}`}</Fact>
      </dl>
      <Section title="Error" value={step.error} error />
      <Section title="Input" value={step.input} />
      <Section title="Output" value={step.output} />
      <Section title="Metadata" value={step.metadata} />
    </aside>
  )
}

export function TraceDetail({
  id,
  scoreNames,
  crumbs,
}: {
  id: string
  /** The score configs to offer (a queue's); every config when absent. */
  scoreNames?: readonly string[]
  /** What leads here (a queue's walk); the trace list when absent. */
  crumbs?: React.ReactNode
}) {
  const trace = useTrace(id)
  const client = useQueryClient()
  // A score of this trace given or deleted elsewhere (another person, an evaluator, the API): read it again.
  useLiveScores((event) => {
    if (event.data.trace_id === id) client.invalidateQueries({ queryKey: keys.trace(id) })
  })
  const [stepParam, setStepParam] = useSearchParam('step')
  const [view, setView] = useSearchParam('view')
  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(new Set())
  const [pickedNode, setPickedNode] = useState<string | null>(null)
  // Deleted while open (by someone else, or by retention): it stays on screen, marked, until the reader leaves.
  const [deleted, setDeleted] = useState(false)
  useLiveTraces(
    () => {},
    undefined,
    ({ trace_id }) => {
      if (trace_id === id) setDeleted(true)
    },
  )
  const data = trace.data
  const waterfall = useMemo(() => (data ? buildWaterfall(data, collapsed) : null), [data, collapsed])
  const graph = useMemo(() => (data && view === 'graph' ? buildAgentGraph(data) : null), [data, view])
  const layout = useMemo(() => (graph ? layoutAgentGraph(graph) : null), [graph])
  const highlighted = useMemo(
    () => new Set(graph?.nodes.find((n) => n.key === pickedNode)?.steps ?? []),
    [graph, pickedNode],
  )
  const selected = stepParam === null ? null : Number(stepParam)
  const step = data && selected !== null ? (data.steps[selected] ?? null) : null

  useEffect(() => {
    if (!waterfall) return
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null
      if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return
      if (event.metaKey || event.ctrlKey || event.altKey) return
      const delta = event.key === 'j' ? 1 : event.key === 'k' ? -1 : 0
      if (delta === 0) return
      event.preventDefault()
      const next = moveSelection(waterfall.rows, selected, delta)
      if (next !== null) setStepParam(String(next))
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [waterfall, selected, setStepParam])

  const toggle = (index: number) => {
    const next = new Set(collapsed)
    if (next.has(index)) next.delete(index)
    else next.add(index)
    setCollapsed(next)
  }

  return (
    <div className="page fill">
      <div className="muted">
        {crumbs ?? (
          <>
            <Link href="/traces">Traces</Link> / {id}
          </>
        )}
      </div>
      {deleted && (
        <div className="error-box" role="alert" data-testid="trace-deleted">
          This trace has been deleted.
        </div>
      )}
      {trace.isError && <ErrorBox error={trace.error} />}
      {trace.isPending && <p className="muted">Loading…</p>}
      {data && waterfall && (
        <>
          <Header trace={data} />
          <ScoresPanel trace={data} stepIndex={step ? step.index : null} names={scoreNames} />
          <div className="view-tabs" role="tablist" aria-label="Steps view">
            {(['waterfall', 'graph'] as const).map((v) => (
              <button
                key={v}
                type="button"
                role="tab"
                aria-selected={(view ?? 'waterfall') === v}
                onClick={() => setView(v === 'waterfall' ? null : v)}
              >
                {v === 'waterfall' ? 'Waterfall' : 'Graph'}
              </button>
            ))}
          </div>
          {graph && layout && (
            <AgentGraphView
              graph={graph}
              layout={layout}
              selected={pickedNode}
              onSelect={(key) => {
                setPickedNode(key)
                const first = graph.nodes.find((n) => n.key === key)?.steps[0]
                if (first !== undefined) {
                  // Its calls show: no collapsed step hides them.
                  setCollapsed(new Set())
                  setStepParam(String(first))
                }
              }}
            />
          )}
          <div className="detail">
            <WaterfallView
              waterfall={waterfall}
              selected={selected}
              highlighted={highlighted}
              collapsed={collapsed}
              onSelect={(index) => setStepParam(String(index))}
              onToggle={toggle}
            />
            <StepPanel trace={data} step={step} />
          </div>
        </>
      )}
    </div>
  )
}
