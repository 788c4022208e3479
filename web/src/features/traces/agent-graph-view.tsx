// The agent graph of a trace (agent-graph.ts) drawn in SVG: a box per agent and tool with its calls, failures, mean
// latency and tokens, an arrow per caller → called with its call count. Clicking a node selects its steps in the
// waterfall below.
import { formatCount, formatMs } from '../../ui/format.js'
import { type AgentGraph, type GraphLayout, NODE_HEIGHT, NODE_WIDTH } from './agent-graph.js'

const stats = (s: { calls: number; failures: number; meanLatency: number | null; tokens: number }) =>
  `${formatCount(s.calls)}× · ${s.failures > 0 ? `${formatCount(s.failures)} failed · ` : ''}${formatMs(s.meanLatency)}` +
  (s.tokens > 0 ? ` · ${formatCount(s.tokens)} tok` : '')

export function AgentGraphView({
  graph,
  layout,
  selected,
  onSelect,
}: {
  graph: AgentGraph
  layout: GraphLayout
  selected: string | null
  onSelect: (key: string) => void
}) {
  return (
    <section className="agent-graph" aria-label="Agent graph">
      {graph.nodes.length === 1 && <p className="muted">No agent or tool step in this trace.</p>}
      <svg width={layout.width} height={layout.height} role="img" aria-label="Agents and tools, who called whom">
        <defs>
          <marker
            id="agent-graph-arrow"
            viewBox="0 0 10 10"
            refX="10"
            refY="5"
            markerWidth="8"
            markerHeight="8"
            orient="auto"
          >
            <path d="M0,0 L10,5 L0,10 z" fill="var(--fg-muted)" />
          </marker>
        </defs>
        {graph.edges.map((e) => {
          const from = layout.nodes.get(e.from)
          const to = layout.nodes.get(e.to)
          if (!from || !to) return null
          const x1 = from.x + NODE_WIDTH / 2
          const y1 = from.y + NODE_HEIGHT
          const x2 = to.x + NODE_WIDTH / 2
          const y2 = to.y
          // Downwards a straight arrow; back up (a call to an agent placed higher) a curve beside the boxes.
          const d =
            y2 > y1
              ? `M${x1},${y1} L${x2},${y2}`
              : `M${x1},${y1} C${x1 + NODE_WIDTH},${y1 + 40} ${x2 + NODE_WIDTH},${y2 - 40} ${x2},${y2}`
          return (
            <g
              key={`${e.from}\u0000${e.to}`}
              data-edge={`${e.from} → ${e.to}`}
              className={e.failures > 0 ? 'failed' : ''}
            >
              <title>{`${e.from} → ${e.to}: ${stats(e)}`}</title>
              <path d={d} fill="none" stroke="var(--fg-muted)" markerEnd="url(#agent-graph-arrow)" />
              <text x={(x1 + x2) / 2 + 6} y={(y1 + y2) / 2} className="edge-label">
                {`${e.calls}×${e.failures > 0 ? ` (${e.failures} failed)` : ''}`}
              </text>
            </g>
          )
        })}
        {graph.nodes.map((n) => {
          const at = layout.nodes.get(n.key)
          if (!at) return null
          return (
            // biome-ignore lint/a11y/useSemanticElements: an SVG group cannot be a button; it takes focus and Enter instead.
            <g
              key={n.key}
              role="button"
              tabIndex={0}
              data-node={n.key}
              aria-pressed={selected === n.key}
              aria-label={`${n.kind} ${n.name}: ${stats(n)}`}
              className={`node ${n.kind}${n.failures > 0 ? ' failed' : ''}`}
              transform={`translate(${at.x},${at.y})`}
              onClick={() => onSelect(n.key)}
              onKeyDown={(event) => {
                if (event.key === 'Enter' || event.key === ' ') {
                  event.preventDefault()
                  onSelect(n.key)
                }
              }}
            >
              <rect
                width={NODE_WIDTH}
                height={NODE_HEIGHT}
                rx={6}
                style={{ stroke: `var(--bar-${n.kind === 'trace' ? 'other' : n.kind})` }}
              />
              <text x={10} y={20} className="node-name">
                {n.kind === 'trace' ? n.name : `${n.kind === 'agent' ? '◆' : '⚙'} ${n.name}`.slice(0, 26)}
              </text>
              <text x={10} y={40} className="node-stats">
                {stats(n)}
              </text>
            </g>
          )
        })}
      </svg>
    </section>
  )
}
