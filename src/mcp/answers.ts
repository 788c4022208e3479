// What the MCP tools answer, sized for a model's context (docs/api.md, MCP): summaries first, whole bodies when asked,
// and every text longer than a fixed limit cut there with a note saying so. Pure functions over the REST answers.
import { type AlignedRow, alignSteps, delta, type RowKind } from '../../schemas/align.js'
import {
  type AnalyticsResponse,
  type FailuresResponse,
  type GetTraceInput,
  type ListTraceSummariesResponse,
  MCP_COMPARE_ROWS,
  MCP_PREVIEW_LIMIT,
  MCP_STEP_PAGE,
  MCP_TEXT_LIMIT,
  type SessionDetailResponse,
  type Step,
  type Trace,
  type TraceSummary,
} from '../../schemas/index.js'
import { roundCost } from '../costs/pricing.js'

/** Cuts texts at one limit and counts what it cut. */
export interface Cutter {
  /** `text` itself when it is at most the limit long; else its first characters and a note of how many are left out. */
  text(text: string): string
  text(text: string | null): string | null
  /** A JSON value kept as it is when its JSON text is at most the limit long; else that text, cut. */
  value(value: unknown): unknown
  /** How many texts were cut. */
  readonly cuts: number
}

/** A cutter at `limit` characters (Infinity: nothing is cut); `hint` says how to see the rest. */
export function textCutter(limit: number, hint: string): Cutter {
  let cuts = 0
  const cut = (text: string): string => {
    if (text.length <= limit) return text
    cuts++
    // Never half of a surrogate pair: the cut text stays well-formed.
    const end = /[\uD800-\uDBFF]/.test(text.charAt(limit - 1)) ? limit - 1 : limit
    return `${text.slice(0, end)}… [cut: ${text.length - end} more of ${text.length} characters; ${hint}]`
  }
  function text(text: string): string
  function text(text: string | null): string | null
  function text(text: string | null): string | null {
    return text === null ? null : cut(text)
  }
  return {
    text,
    value: (value) => {
      if (typeof value === 'string') return cut(value)
      if (value === null || typeof value !== 'object') return value
      const json = JSON.stringify(value)
      return json.length <= limit ? value : cut(json)
    },
    get cuts() {
      return cuts
    },
  }
}

const FULL_TEXT_HINT = 'full_text: true shows it whole'
const GET_TRACE_HINT = 'get_trace shows more'

/** A trace without its bodies (prompt, response, metadata, steps, scores), as GET /traces?fields=summary lists it. */
export type TraceBrief = Omit<TraceSummary, 'scores'>

/** A trace as a list shows it: its summary, its failure reason cut to a preview. */
export function briefOf(trace: Trace, cutter = textCutter(MCP_PREVIEW_LIMIT, GET_TRACE_HINT)): TraceBrief {
  const { prompt: _p, response: _r, metadata: _m, steps, scores: _s, ...summary } = trace
  return { ...summary, failure_reason: cutter.text(summary.failure_reason), step_count: steps.length }
}

/** The notes of an answer, present only when something was left out. */
const withNotes = <T extends object>(answer: T, notes: string[]): T & { notes?: string[] } =>
  notes.length > 0 ? { ...answer, notes } : answer

/** search_traces: the page of summaries GET /traces gave, failure reasons cut to a preview. */
export function searchAnswer(page: ListTraceSummariesResponse) {
  const cutter = textCutter(MCP_PREVIEW_LIMIT, GET_TRACE_HINT)
  const items = page.items.map((item) => ({ ...item, failure_reason: cutter.text(item.failure_reason) }))
  const notes: string[] = []
  if (page.next_cursor !== null) {
    notes.push(`${items.length} of ${page.total} traces shown: pass next_cursor as cursor for the next page`)
  }
  return withNotes({ total: page.total, next_cursor: page.next_cursor, items }, notes)
}

/** The fields of a step its summary keeps: what it was, how it went; not what went in or out. */
const STEP_SUMMARY_FIELDS = [
  'index',
  'parent_index',
  'name',
  'type',
  'tool',
  'status',
  'latency',
  'token_count',
  'cost',
  'error',
] as const satisfies readonly (keyof Step)[]

type StepSummary = Pick<Step, (typeof STEP_SUMMARY_FIELDS)[number]>

/** A step as its summary: what it was and how it went, its error cut by `cutter`. */
const stepSummary = (step: Step, cutter: Cutter): StepSummary => {
  const summary = Object.fromEntries(STEP_SUMMARY_FIELDS.map((field) => [field, step[field]])) as StepSummary
  return { ...summary, error: cutter.text(step.error) }
}

/** get_trace (and the trace resource): the trace, its texts cut unless asked whole, its steps as detailed as asked. */
export function traceAnswer(trace: Trace, input: GetTraceInput) {
  const { steps: detail = 'summary', step_offset: offset = 0, step_limit: limit = MCP_STEP_PAGE } = input
  const cutter = textCutter(input.full_text ? Number.POSITIVE_INFINITY : MCP_TEXT_LIMIT, FULL_TEXT_HINT)
  const { steps, ...rest } = trace
  const shown = steps.slice(offset, offset + limit)
  const body = {
    ...rest,
    prompt: cutter.text(rest.prompt),
    response: cutter.text(rest.response),
    failure_reason: cutter.text(rest.failure_reason),
    metadata: cutter.value(rest.metadata),
  }
  let stepsOut: (Step | StepSummary)[] | undefined
  if (detail === 'summary') {
    stepsOut = shown.map((step) => stepSummary(step, cutter))
  } else if (detail === 'full') {
    stepsOut = shown.map((step) => ({
      ...step,
      input: cutter.value(step.input),
      output: cutter.value(step.output),
      error: cutter.text(step.error),
      metadata: cutter.value(step.metadata) as Step['metadata'],
    }))
  }
  const notes: string[] = []
  if (detail !== 'none' && shown.length < steps.length) {
    const next = offset + shown.length
    notes.push(
      shown.length === 0
        ? `no steps from step_offset ${offset}: the trace has ${steps.length}`
        : `steps ${offset}–${next - 1} of ${steps.length} shown` +
            (next < steps.length ? `: step_offset=${next} for the next` : ''),
    )
  }
  if (cutter.cuts > 0) notes.push(cutNote(cutter.cuts))
  const answer = stepsOut === undefined ? body : { ...body, steps: stepsOut }
  return withNotes({ trace: answer, step_count: steps.length }, notes)
}

const cutNote = (cuts: number) =>
  `${cuts} text${cuts === 1 ? '' : 's'} longer than ${MCP_TEXT_LIMIT} characters cut there (full_text: true shows ` +
  'them whole)'

/** get_failures: the totals, and each list as trace summaries. */
export function failuresAnswer(answer: FailuresResponse) {
  const cutter = textCutter(MCP_PREVIEW_LIMIT, GET_TRACE_HINT)
  return {
    totals: answer.totals,
    failed_traces: answer.failed_traces.map((trace) => briefOf(trace, cutter)),
    retries: answer.retries.map((trace) => briefOf(trace, cutter)),
    slow_requests: answer.slow_requests.map((trace) => briefOf(trace, cutter)),
  }
}

/** get_analytics: the REST answer, its recent failures as trace summaries. */
export function analyticsAnswer(answer: AnalyticsResponse) {
  return { ...answer, recent_failures: answer.recent_failures.map((trace) => briefOf(trace)) }
}

/** get_session: the session, then its traces in order as summaries with their prompt and response. */
export function sessionAnswer(answer: SessionDetailResponse, fullText = false) {
  const cutter = textCutter(fullText ? Number.POSITIVE_INFINITY : MCP_PREVIEW_LIMIT, FULL_TEXT_HINT)
  const traces = answer.traces.map((trace) => ({
    ...briefOf(trace, cutter),
    prompt: cutter.text(trace.prompt),
    response: cutter.text(trace.response),
  }))
  const notes: string[] = []
  if (traces.length < answer.session.traces) {
    notes.push(`the first ${traces.length} of the session's ${answer.session.traces} traces shown (limit)`)
  }
  if (cutter.cuts > 0) {
    notes.push(
      `${cutter.cuts} text(s) longer than ${MCP_PREVIEW_LIMIT} characters cut there (full_text: true shows them whole)`,
    )
  }
  return withNotes({ session: answer.session, traces }, notes)
}

/** What of two aligned steps differs (their type and name are the same by the alignment). */
const STEP_COMPARED = ['status', 'error', 'input', 'output'] as const satisfies readonly (keyof Step)[]

/** A side of a comparison: the trace's figures and outcome, its texts cut as asked. */
function sideOf(trace: Trace, cutter: Cutter) {
  return {
    trace_id: trace.trace_id,
    project_id: trace.project_id,
    name: trace.name,
    model: trace.model,
    status: trace.status,
    created_at: trace.created_at,
    latency: trace.latency,
    token_count: trace.token_count,
    cost: trace.cost,
    step_count: trace.steps.length,
    failure_reason: cutter.text(trace.failure_reason),
    prompt: cutter.text(trace.prompt),
    response: cutter.text(trace.response),
  }
}

/** An aligned pair of steps: its kind, each side's summary, and for a changed pair what differs. */
function rowOf(row: AlignedRow, cutter: Cutter) {
  const a = row.a === null ? null : stepSummary(row.a, cutter)
  const b = row.b === null ? null : stepSummary(row.b, cutter)
  if (row.kind !== 'changed' || row.a === null || row.b === null) return { kind: row.kind, a, b }
  const [sa, sb] = [row.a, row.b]
  const differs = STEP_COMPARED.filter((field) => JSON.stringify(sa[field]) !== JSON.stringify(sb[field]))
  return { kind: row.kind, differs, a, b }
}

/**
 * compare_traces: two traces side by side, as the viewer's comparison shows them — each side's figures and the
 * differences (B minus A), then their steps aligned (the same alignment), each pair `same`, `changed` (with what
 * differs), `added` (only in B) or `missing` (only in A).
 */
export function compareAnswer(a: Trace, b: Trace, fullText = false) {
  const cutter = textCutter(fullText ? Number.POSITIVE_INFINITY : MCP_PREVIEW_LIMIT, FULL_TEXT_HINT)
  const aligned = alignSteps(a.steps, b.steps)
  const counts: Record<RowKind, number> = { same: 0, changed: 0, added: 0, missing: 0 }
  for (const row of aligned) counts[row.kind]++
  const cost = delta(a.cost, b.cost)
  const answer = {
    a: sideOf(a, cutter),
    b: sideOf(b, cutter),
    difference: {
      latency: delta(a.latency, b.latency),
      token_count: delta(a.token_count, b.token_count),
      cost: cost === null ? null : roundCost(cost),
      step_count: b.steps.length - a.steps.length,
      status: a.status === b.status ? 'same' : `${a.status} → ${b.status}`,
      prompt: a.prompt === b.prompt ? 'same' : 'differs',
      response: a.response === b.response ? 'same' : 'differs',
    },
    step_alignment: counts,
    steps: aligned.slice(0, MCP_COMPARE_ROWS).map((row) => rowOf(row, cutter)),
  }
  const notes: string[] = []
  if (aligned.length > MCP_COMPARE_ROWS) {
    notes.push(`the first ${MCP_COMPARE_ROWS} of ${aligned.length} aligned step pairs shown`)
  }
  if (cutter.cuts > 0) {
    notes.push(
      `${cutter.cuts} text(s) longer than ${MCP_PREVIEW_LIMIT} characters cut there (full_text: true shows them whole)`,
    )
  }
  return withNotes(answer, notes)
}
