// The waterfall of a trace's steps: the step tree (parent_index) flattened in display order, each row placed on the
// trace's time axis. Pure, so a 1000-step trace is laid out once in well under a frame and tested without a browser.
import type { Step, Trace } from '../../../../schemas/index.js'

export interface WaterfallRow {
  step: Step
  depth: number
  /** Milliseconds from the trace's start to the step's start. */
  offset: number
  /** Milliseconds the step lasted (0 when unknown). */
  duration: number
  /** Whether `offset` was placed after the previous step because the step has no `started_at`. */
  estimated: boolean
  /** A tool called again after an earlier call of it: a retry. */
  retry: boolean
  childCount: number
}

export interface Waterfall {
  rows: WaterfallRow[]
  /** The time axis: from the trace's start to the end of whatever ended last, at least the trace's latency. */
  span: number
}

/**
 * Rows in tree order (a parent, then its children, siblings by index), without the descendants of `collapsed` steps.
 * A step whose parent is unknown (out of range) is shown at the top level. Steps without `started_at` are placed
 * where the previous step ended, so the bars still read in order.
 */
export function buildWaterfall(
  trace: Pick<Trace, 'created_at' | 'latency' | 'steps'>,
  collapsed: ReadonlySet<number> = new Set(),
): Waterfall {
  const steps = trace.steps
  const start = Date.parse(trace.created_at)
  const children = new Map<number | null, Step[]>()
  const valid = (parent: number | null) => parent !== null && parent >= 0 && parent < steps.length
  for (const step of steps) {
    const parent = valid(step.parent_index) ? step.parent_index : null
    const list = children.get(parent)
    if (list) list.push(step)
    else children.set(parent, [step])
  }

  // Timing in index order (the order things happened), independent of the tree.
  const offsets = new Map<number, { offset: number; duration: number; estimated: boolean }>()
  const seenTools = new Set<string>()
  const retries = new Set<number>()
  let cursor = 0
  let span = trace.latency
  for (const step of steps) {
    const duration = step.latency ?? 0
    const at = step.started_at === null ? Number.NaN : Date.parse(step.started_at) - start
    const estimated = !Number.isFinite(at)
    const offset = estimated ? cursor : Math.max(0, at)
    offsets.set(step.index, { offset, duration, estimated })
    cursor = Math.max(cursor, offset + duration)
    span = Math.max(span, offset + duration)
    if (step.tool !== null) {
      if (seenTools.has(step.tool)) retries.add(step.index)
      seenTools.add(step.tool)
    }
  }

  const rows: WaterfallRow[] = []
  const visited = new Set<number>()
  // Iterative depth-first walk: a deep chain of 1000 steps must not exhaust the stack.
  const stack: { step: Step; depth: number }[] = (children.get(null) ?? [])
    .map((step) => ({ step, depth: 0 }))
    .reverse()
  while (stack.length > 0) {
    const { step, depth } = stack.pop()!
    if (visited.has(step.index)) continue
    visited.add(step.index)
    const kids = children.get(step.index) ?? []
    rows.push({ step, depth, ...offsets.get(step.index)!, retry: retries.has(step.index), childCount: kids.length })
    if (!collapsed.has(step.index))
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ step: kids[i]!, depth: depth + 1 })
  }
  // Steps caught in a cycle (which the server refuses, but an old client could have stored) are still shown.
  if (collapsed.size === 0) {
    for (const step of steps) {
      if (!visited.has(step.index)) {
        rows.push({ step, depth: 0, ...offsets.get(step.index)!, retry: retries.has(step.index), childCount: 0 })
      }
    }
  }
  return { rows, span: span > 0 ? span : 1 }
}

/** The row to select after pressing j (+1) or k (-1) from `current` (a step index, or null for none yet). */
export function moveSelection(rows: readonly WaterfallRow[], current: number | null, delta: 1 | -1): number | null {
  if (rows.length === 0) return null
  const at = current === null ? -1 : rows.findIndex((row) => row.step.index === current)
  if (at === -1) return rows[delta === 1 ? 0 : rows.length - 1]!.step.index
  return rows[Math.min(rows.length - 1, Math.max(0, at + delta))]!.step.index
}
