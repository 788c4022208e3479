// The agent graph of a trace: its agents and tools as nodes, who called whom as edges, from the step tree
// (parent_index), each with its calls, failures, mean latency and tokens; then a layered layout of it. Pure, so a
// 1000-step trace is built and laid out without a browser, and tested so.
import { callOf } from '../../../../schemas/agent-calls.js'
import type { Step, Trace } from '../../../../schemas/index.js'

export type GraphNodeKind = 'trace' | 'agent' | 'tool'

/** What a node or an edge counts of its calls. */
export interface CallStats {
  calls: number
  failures: number
  /** Mean latency of the calls that report one, ms; null when none does. */
  meanLatency: number | null
  /** Tokens of the model calls made within these calls (not inside another agent or tool), and the calls' own. */
  tokens: number
}

export interface GraphNode extends CallStats {
  /** `trace`, `agent:<name>` or `tool:<name>`. */
  key: string
  kind: GraphNodeKind
  name: string
  /** The steps that are calls of this node (an agent's invocations, a tool's calls), by index; none for the trace. */
  steps: number[]
}

export interface GraphEdge extends CallStats {
  from: string
  to: string
}

export interface AgentGraph {
  nodes: GraphNode[]
  edges: GraphEdge[]
}

const ROOT = 'trace'

/** The node a step is a call of (schemas/agent-calls.ts), or null for a step that only runs inside one. */
function nodeKeyOf(step: Step): { key: string; kind: GraphNodeKind; name: string } | null {
  const call = callOf(step)
  return call === null ? null : { key: `${call.kind}:${call.name}`, ...call }
}

interface Sums {
  calls: number
  failures: number
  latencySum: number
  latencyCount: number
  tokens: number
}

const noSums = (): Sums => ({ calls: 0, failures: 0, latencySum: 0, latencyCount: 0, tokens: 0 })

const statsOf = (s: Sums): CallStats => ({
  calls: s.calls,
  failures: s.failures,
  meanLatency: s.latencyCount === 0 ? null : Math.round((100 * s.latencySum) / s.latencyCount) / 100,
  tokens: s.tokens,
})

/**
 * The graph of a trace. Every step is a call of a node (an agent or a tool step) or runs inside the nearest such
 * ancestor (else inside the trace itself); an edge goes from the node a call was made inside to the node called.
 * A step whose parent is out of range, or whose ancestry loops, is taken as top-level.
 */
export function buildAgentGraph(
  trace: Pick<Trace, 'name' | 'status' | 'latency' | 'token_count' | 'steps'>,
): AgentGraph {
  const steps = trace.steps
  const parentOf = (s: Step) =>
    s.parent_index !== null && s.parent_index >= 0 && s.parent_index < steps.length && s.parent_index !== s.index
      ? s.parent_index
      : null
  // The call each step runs inside: the nearest ancestor that is a call (-1: the trace). Memoized; a loop is cut.
  const owner = new Int32Array(steps.length).fill(-2)
  const ownerOf = (index: number): number => {
    const path: number[] = []
    let at: number | null = parentOf(steps[index]!)
    let found = -1
    while (at !== null) {
      if (owner[at] === -3) break // on the path being resolved: a loop
      if (nodeKeyOf(steps[at]!) !== null) {
        found = at
        break
      }
      if (owner[at]! >= -1) {
        found = owner[at]!
        break
      }
      owner[at] = -3
      path.push(at)
      at = parentOf(steps[at]!)
    }
    // Every non-call step on the way runs inside the same call.
    for (const p of path) owner[p] = found
    return found
  }
  for (let i = 0; i < steps.length; i++) if (owner[i] === -2) owner[i] = ownerOf(i)

  const nodes = new Map<string, GraphNode & { sums: Sums }>()
  const root: GraphNode & { sums: Sums } = {
    key: ROOT,
    kind: 'trace',
    name: trace.name ?? 'trace',
    steps: [],
    sums: {
      calls: 1,
      failures: trace.status === 'failed' ? 1 : 0,
      latencySum: trace.latency,
      latencyCount: 1,
      tokens: 0,
    },
    ...statsOf(noSums()),
  }
  nodes.set(ROOT, root)
  const keyOfCall = (index: number) => (index === -1 ? ROOT : nodeKeyOf(steps[index]!)!.key)
  // Tokens each call accounts for: its own, and its model calls'.
  const callTokens = new Map<number, number>()
  const addTokens = (call: number, n: number) => callTokens.set(call, (callTokens.get(call) ?? 0) + n)
  for (const s of steps) {
    if (s.token_count === null) continue
    if (nodeKeyOf(s) !== null && s.type === 'tool') addTokens(s.index, s.token_count)
    else if (s.type === 'llm') addTokens(owner[s.index]!, s.token_count)
  }
  root.sums.tokens = callTokens.get(-1) ?? 0

  const edges = new Map<string, GraphEdge & { sums: Sums }>()
  for (const s of steps) {
    const id = nodeKeyOf(s)
    if (id === null) continue
    let node = nodes.get(id.key)
    if (node === undefined) {
      node = { ...id, steps: [], sums: noSums(), ...statsOf(noSums()) }
      nodes.set(id.key, node)
    }
    node.steps.push(s.index)
    const from = keyOfCall(owner[s.index]!)
    const edgeKey = JSON.stringify([from, id.key])
    let edge = edges.get(edgeKey)
    if (edge === undefined) {
      edge = { from, to: id.key, sums: noSums(), ...statsOf(noSums()) }
      edges.set(edgeKey, edge)
    }
    const tokens = callTokens.get(s.index) ?? 0
    for (const sums of [node.sums, edge.sums]) {
      sums.calls += 1
      sums.failures += s.status === 'failed' ? 1 : 0
      if (s.latency !== null) {
        sums.latencySum += s.latency
        sums.latencyCount += 1
      }
      sums.tokens += tokens
    }
  }
  const finish = <T extends CallStats & { sums: Sums }>({ sums, ...rest }: T): Omit<T, 'sums'> =>
    Object.assign(rest, statsOf(sums))
  return { nodes: [...nodes.values()].map(finish), edges: [...edges.values()].map(finish) }
}

export interface PlacedNode {
  key: string
  layer: number
  x: number
  y: number
}

export interface GraphLayout {
  nodes: Map<string, PlacedNode>
  width: number
  height: number
}

export const NODE_WIDTH = 180
export const NODE_HEIGHT = 56
const GAP_X = 40
const GAP_Y = 64
const MARGIN = 16

/**
 * A layered layout, top-down: each node's layer is its distance in calls from the trace (breadth first, so a loop
 * back to an agent already placed draws as an edge upwards); within a layer, nodes are ordered by the mean position
 * of their callers in the layer above (one barycentre pass), ties by first call. Linear in nodes and edges.
 */
export function layoutAgentGraph(graph: AgentGraph): GraphLayout {
  const out = new Map<string, string[]>()
  for (const e of graph.edges) out.set(e.from, [...(out.get(e.from) ?? []), e.to])
  const layerOf = new Map<string, number>([[ROOT, 0]])
  const queue = [ROOT]
  for (let i = 0; i < queue.length; i++) {
    const key = queue[i]!
    for (const next of out.get(key) ?? []) {
      if (layerOf.has(next)) continue
      layerOf.set(next, layerOf.get(key)! + 1)
      queue.push(next)
    }
  }
  // Unreachable nodes (none, for a graph built from a tree) go below the rest.
  const deepest = Math.max(0, ...layerOf.values())
  for (const n of graph.nodes) if (!layerOf.has(n.key)) layerOf.set(n.key, deepest + 1)

  const firstCall = new Map(graph.nodes.map((n) => [n.key, n.steps[0] ?? -1]))
  const layers: string[][] = []
  for (const n of graph.nodes) {
    const layer = layerOf.get(n.key)!
    const keys = layers[layer] ?? []
    keys.push(n.key)
    layers[layer] = keys
  }
  const callers = new Map<string, string[]>()
  for (const e of graph.edges) callers.set(e.to, [...(callers.get(e.to) ?? []), e.from])
  const position = new Map<string, number>()
  for (const [layer, keys] of layers.entries()) {
    if (keys === undefined) continue
    const weight = (key: string) => {
      const above = (callers.get(key) ?? []).filter((c) => layerOf.get(c) === layer - 1)
      return above.length === 0
        ? Number.POSITIVE_INFINITY
        : above.reduce((s, c) => s + position.get(c)!, 0) / above.length
    }
    const weights = new Map(keys.map((k) => [k, weight(k)]))
    keys.sort((a, b) => weights.get(a)! - weights.get(b)! || firstCall.get(a)! - firstCall.get(b)!)
    for (const [i, k] of keys.entries()) position.set(k, i)
  }
  const widest = Math.max(1, ...layers.map((keys) => keys?.length ?? 0))
  const width = MARGIN * 2 + widest * NODE_WIDTH + (widest - 1) * GAP_X
  const placed = new Map<string, PlacedNode>()
  for (const [layer, keys] of layers.entries()) {
    if (keys === undefined) continue
    // Each layer centred under the widest.
    const rowWidth = keys.length * NODE_WIDTH + (keys.length - 1) * GAP_X
    const left = (width - rowWidth) / 2
    keys.forEach((key, i) => {
      placed.set(key, { key, layer, x: left + i * (NODE_WIDTH + GAP_X), y: MARGIN + layer * (NODE_HEIGHT + GAP_Y) })
    })
  }
  const height = MARGIN * 2 + layers.length * NODE_HEIGHT + Math.max(0, layers.length - 1) * GAP_Y
  return { nodes: placed, width, height }
}
