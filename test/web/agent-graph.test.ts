// The agent graph: agents and tools as nodes, who called whom as edges with their counts, and a layered layout that
// lays out a 1000-step trace well within a second.
import { performance } from 'node:perf_hooks'
import t from 'tap'
import type { Step } from '../../schemas/index.js'
import {
  buildAgentGraph,
  layoutAgentGraph,
  NODE_HEIGHT,
  NODE_WIDTH,
} from '../../web/src/features/traces/agent-graph.js'
import { step } from './fixtures.js'

const trace = (steps: Step[], status: 'success' | 'failed' = 'success') => ({
  name: 'support',
  status,
  latency: 1000,
  token_count: 0,
  steps,
})

// A supervisor calls a researcher twice (once failed) and a writer; the researcher searches the web three times.
const multiAgent = trace([
  step(0, { type: 'agent', name: 'supervisor', latency: 900 }),
  step(1, { type: 'llm', parent_index: 0, token_count: 100 }),
  step(2, { type: 'agent', name: 'researcher', parent_index: 0, latency: 300 }),
  step(3, { type: 'function', name: 'chain', parent_index: 2 }),
  step(4, { type: 'llm', parent_index: 3, token_count: 40 }),
  step(5, { type: 'tool', name: 'web', tool: 'search', parent_index: 3, latency: 50 }),
  step(6, { type: 'tool', name: 'web', tool: 'search', parent_index: 2, latency: 70, status: 'failed' }),
  step(7, { type: 'agent', name: 'researcher', parent_index: 0, latency: 100, status: 'failed' }),
  step(8, { type: 'tool', name: 'search', parent_index: 7, latency: null }),
  step(9, { type: 'agent', name: 'writer', parent_index: 0, latency: 200 }),
  step(10, { type: 'llm', parent_index: 9, token_count: 7 }),
  // A model call at the top level runs inside the trace itself.
  step(11, { type: 'llm', token_count: 3 }),
])

t.test('agents and tools are nodes with their calls, failures, mean latency and tokens', async (t) => {
  const g = buildAgentGraph(multiAgent)
  const node = (key: string) => g.nodes.find((n) => n.key === key)
  t.same(
    g.nodes.map((n) => n.key),
    ['trace', 'agent:supervisor', 'agent:researcher', 'tool:search', 'agent:writer'],
  )
  t.same(node('trace'), {
    key: 'trace',
    kind: 'trace',
    name: 'support',
    steps: [],
    calls: 1,
    failures: 0,
    meanLatency: 1000,
    tokens: 3,
  })
  t.same(node('agent:supervisor'), {
    key: 'agent:supervisor',
    kind: 'agent',
    name: 'supervisor',
    steps: [0],
    calls: 1,
    failures: 0,
    meanLatency: 900,
    tokens: 100,
  })
  t.same(node('agent:researcher'), {
    key: 'agent:researcher',
    kind: 'agent',
    name: 'researcher',
    steps: [2, 7],
    calls: 2,
    failures: 1,
    meanLatency: 200,
    tokens: 40,
  })
  // A tool is named by `tool`, else by its step's name; a call without a latency is not in the mean.
  t.same(node('tool:search')?.steps, [5, 6, 8])
  t.same([node('tool:search')?.calls, node('tool:search')?.failures, node('tool:search')?.meanLatency], [3, 1, 60])
  t.equal(node('agent:writer')?.tokens, 7)
})

t.test('edges go from the caller to the called, each with its own counts', async (t) => {
  const g = buildAgentGraph(multiAgent)
  t.same(
    g.edges.map((e) => [e.from, e.to, e.calls, e.failures, e.meanLatency, e.tokens]),
    [
      ['trace', 'agent:supervisor', 1, 0, 900, 100],
      ['agent:supervisor', 'agent:researcher', 2, 1, 200, 40],
      ['agent:researcher', 'tool:search', 3, 1, 60, 0],
      ['agent:supervisor', 'agent:writer', 1, 0, 200, 7],
    ],
  )
})

t.test('a trace without agents or tools is the trace alone; a broken parent is top-level', async (t) => {
  const alone = buildAgentGraph(trace([step(0), step(1, { parent_index: 0 })], 'failed'))
  t.same(
    alone.nodes.map((n) => [n.key, n.failures]),
    [['trace', 1]],
  )
  t.same(alone.edges, [])
  const broken = buildAgentGraph(trace([step(0, { type: 'tool', tool: 'x', parent_index: 42 })]))
  t.same(
    broken.edges.map((e) => [e.from, e.to]),
    [['trace', 'tool:x']],
  )
})

t.test('the layout puts each node a layer below its first caller, without overlaps', async (t) => {
  const g = buildAgentGraph(multiAgent)
  const layout = layoutAgentGraph(g)
  const layer = (key: string) => layout.nodes.get(key)?.layer
  t.same(['trace', 'agent:supervisor', 'agent:researcher', 'agent:writer', 'tool:search'].map(layer), [0, 1, 2, 2, 3])
  const placed = [...layout.nodes.values()]
  for (const a of placed)
    for (const b of placed) {
      if (a === b) continue
      const apart = Math.abs(a.x - b.x) >= NODE_WIDTH || Math.abs(a.y - b.y) >= NODE_HEIGHT
      t.ok(apart, `${a.key} and ${b.key} do not overlap`)
    }
  for (const p of placed) t.ok(p.x >= 0 && p.x + NODE_WIDTH <= layout.width && p.y + NODE_HEIGHT <= layout.height)
})

/** A generated 1000-step trace: 50 agents under a supervisor, each calling 4 of 200 tools and a model 15 times. */
function thousandSteps(): Step[] {
  const steps: Step[] = [step(0, { type: 'agent', name: 'supervisor' })]
  for (let a = 0; steps.length < 1000; a++) {
    const agent = steps.length
    steps.push(step(agent, { type: 'agent', name: `agent-${a % 50}`, parent_index: 0, latency: 100 + a }))
    for (let k = 0; k < 18 && steps.length < 1000; k++) {
      const i = steps.length
      steps.push(
        k % 4 === 0
          ? step(i, {
              type: 'tool',
              tool: `tool-${(a * 7 + k) % 200}`,
              parent_index: agent,
              status: k % 8 ? 'success' : 'failed',
            })
          : step(i, { type: 'llm', parent_index: agent, token_count: 10 }),
      )
    }
  }
  return steps
}

t.test('a 1000-step trace is built and laid out well within a second (bench figure printed)', async (t) => {
  const steps = thousandSteps()
  t.equal(steps.length, 1000)
  const runs: number[] = []
  let nodes = 0
  for (let run = 0; run < 5; run++) {
    const start = performance.now()
    const g = buildAgentGraph(trace(steps))
    const layout = layoutAgentGraph(g)
    runs.push(performance.now() - start)
    nodes = layout.nodes.size
  }
  t.ok(nodes > 50, 'agents and tools are all placed')
  runs.sort((a, b) => a - b)
  t.comment(`agent graph of 1000 steps (${nodes} nodes): build + layout median ${runs[2]!.toFixed(2)} ms`)
})
