// Two traces side by side: their steps aligned by a longest common subsequence of (type, name) in order — so a step
// reordered, inserted, deleted or retried shows as added or missing around the steps both share — and texts compared
// word by word or line by line. Pure, shared by the viewer's compare view and the MCP tool compare_traces.
import type { Step } from './step.js'

/** What an aligned row is: the same step in both, in both but different, only in B (added), only in A (missing). */
export type RowKind = 'same' | 'changed' | 'added' | 'missing'

export interface AlignedRow {
  a: Step | null
  b: Step | null
  kind: RowKind
}

/** A step's identity for the alignment: its type and name (its tool when it has one). */
const keyOf = (s: Step) => `${s.type}\u0000${s.tool ?? s.name}`

/** Whether two steps of the same key did the same: status, input, output and error. */
function sameStep(a: Step, b: Step): boolean {
  return (
    a.status === b.status &&
    a.error === b.error &&
    JSON.stringify(a.input) === JSON.stringify(b.input) &&
    JSON.stringify(a.output) === JSON.stringify(b.output)
  )
}

/**
 * The longest common subsequence of two key sequences as pairs of indexes, in order: one table of (n+1)(m+1) lengths,
 * so 1000 steps against 1000 are a million cells (a few ms).
 */
export function lcsPairs<T>(a: readonly T[], b: readonly T[]): [number, number][] {
  const n = a.length
  const m = b.length
  const width = m + 1
  const table = new Uint16Array((n + 1) * width)
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] =
        a[i] === b[j]
          ? (table[(i + 1) * width + j + 1] as number) + 1
          : Math.max(table[(i + 1) * width + j] as number, table[i * width + j + 1] as number)
    }
  }
  const pairs: [number, number][] = []
  let i = 0
  let j = 0
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      pairs.push([i, j])
      i++
      j++
    } else if ((table[(i + 1) * width + j] as number) >= (table[i * width + j + 1] as number)) i++
    else j++
  }
  return pairs
}

/** The steps of A and B aligned: shared steps side by side, each in order, the others where they fall. */
export function alignSteps(a: readonly Step[], b: readonly Step[]): AlignedRow[] {
  const pairs = lcsPairs(a.map(keyOf), b.map(keyOf))
  const rows: AlignedRow[] = []
  let i = 0
  let j = 0
  const flush = (untilA: number, untilB: number) => {
    for (; i < untilA; i++) rows.push({ a: a[i] as Step, b: null, kind: 'missing' })
    for (; j < untilB; j++) rows.push({ a: null, b: b[j] as Step, kind: 'added' })
  }
  for (const [pi, pj] of pairs) {
    flush(pi, pj)
    const sa = a[pi] as Step
    const sb = b[pj] as Step
    rows.push({ a: sa, b: sb, kind: sameStep(sa, sb) ? 'same' : 'changed' })
    i = pi + 1
    j = pj + 1
  }
  flush(a.length, b.length)
  return rows
}

export type DiffOp = 'same' | 'add' | 'del'
export interface DiffPart {
  op: DiffOp
  text: string
}

/** Tokens beyond which a text is compared line by line (a word diff of long texts costs too much). */
export const WORD_DIFF_LIMIT = 2000
/** Lines beyond which two texts are not compared at all, only said to differ. */
export const LINE_DIFF_LIMIT = 2000

/** Words (with the space after each) or lines (with their line break). */
const tokens = (text: string, lines: boolean) =>
  lines ? (text.match(/[^\n]*\n|[^\n]+$/g) ?? []) : (text.match(/\s+|[^\s]+/g) ?? [])

/**
 * A text diff of A into B: word by word, or line by line when either text is long; when even the lines are too many,
 * A removed and B added whole. Adjacent parts of one kind are merged.
 */
export function diffText(a: string, b: string): DiffPart[] {
  if (a === b) return a === '' ? [] : [{ op: 'same', text: a }]
  let ta = tokens(a, false)
  let tb = tokens(b, false)
  if (ta.length > WORD_DIFF_LIMIT || tb.length > WORD_DIFF_LIMIT) {
    ta = tokens(a, true)
    tb = tokens(b, true)
  }
  const parts: DiffPart[] = []
  const push = (op: DiffOp, text: string) => {
    const last = parts.at(-1)
    if (last && last.op === op) last.text += text
    else if (text !== '') parts.push({ op, text })
  }
  if (ta.length > LINE_DIFF_LIMIT || tb.length > LINE_DIFF_LIMIT) {
    push('del', a)
    push('add', b)
    return parts
  }
  let i = 0
  let j = 0
  for (const [pi, pj] of lcsPairs(ta, tb)) {
    for (; i < pi; i++) push('del', ta[i] as string)
    for (; j < pj; j++) push('add', tb[j] as string)
    push('same', ta[pi] as string)
    i = pi + 1
    j = pj + 1
  }
  for (; i < ta.length; i++) push('del', ta[i] as string)
  for (; j < tb.length; j++) push('add', tb[j] as string)
  return parts
}

/** A step's input or output as text: a string as it is, anything else as indented JSON. */
export const asText = (value: unknown): string =>
  value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value, null, 2)

/** B's figure minus A's; null when either has none. */
export const delta = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a === null || a === undefined || b === null || b === undefined ? null : b - a
