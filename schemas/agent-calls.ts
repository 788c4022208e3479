// Which steps are calls of an agent or a tool, and of which: what the trace page's graph draws as nodes, what
// GET /traces?agent= filters on and what /analytics' agent and tool breakdowns count — decided here once, so that
// they all agree. Types only from step.ts, so the viewer's bundle takes no schema runtime.
import type { Step } from './step.js'

/** What a call is a call of. */
export type CallKind = 'agent' | 'tool'

/** The agent or tool a step is a call of. */
export interface CallTarget {
  kind: CallKind
  name: string
}

/**
 * The agent or tool a step calls, or null for a step that only runs inside one (a model call, a chain, …): an
 * `agent` step invokes the agent of its name; a `tool` step calls its `tool`, else the tool of its name.
 */
export function callOf(step: Pick<Step, 'type' | 'name' | 'tool'>): CallTarget | null {
  if (step.type === 'agent') return { kind: 'agent', name: step.name }
  if (step.type === 'tool') return { kind: 'tool', name: step.tool ?? step.name }
  return null
}

/** Whether a trace holds a call of the agent of this name (GET /traces?agent=). */
export const callsAgent = (steps: readonly Pick<Step, 'type' | 'name' | 'tool'>[], agent: string): boolean =>
  steps.some((s) => s.type === 'agent' && s.name === agent)
