// The spans of one OTLP trace → one Loupe TraceInput (then normalized like any other trace). The root span gives the
// trace; every other span becomes a step, in start order. Every field is bounded here, so that no span is lost to a
// limit of the trace schema (long texts are cut, extra attributes are counted instead of kept).

import { BOUNDS } from '../../schemas/common.js'
import type { OtlpLogRecord, OtlpSpan } from '../../schemas/otlp.js'
import { SCORE_LIMITS, type ScoreInput } from '../../schemas/score.js'
import type { StepInput } from '../../schemas/step.js'
import { LIMITS, type TraceInput } from '../../schemas/trace.js'
import { setOwn } from '../lib/own.js'
import { roundToMicros, toUtcIso } from '../lib/time.js'
import { derivedScoreId } from '../services/scores.js'
import { EVALUATION_EVENT, type Evaluation, readSpanMeaning, type SpanMeaning } from './conventions.js'
import { parseJsonText } from './values.js'

/** Serialized size budgets in bytes: the trace's metadata must stay under the contract's 64 KiB, a step's small. */
const TRACE_METADATA_BUDGET = 48 * 1024
const STEP_METADATA_BUDGET = 8 * 1024
/** The longest single attribute value kept in metadata, in characters. */
const ATTRIBUTE_VALUE_CHARS = 4096
const NAME_CHARS = 256
const LATEST_MS = Date.UTC(9999, 11, 31)
/** Step types that are one call of something (not a wrapper around calls). */
const CALL_TYPES = new Set<string>(['llm', 'retrieval', 'tool'])

export interface AssembledTrace {
  input: TraceInput
  /** Spans that became neither the root nor a step (over the step limit); counted in the metadata. */
  dropped: number
  /** Log records that name none of the spans: nothing to fold them into. */
  unmatched: number
  /** The trace's `gen_ai.evaluation.result` events as scores (source `evaluator`), to record once it is stored. */
  scores: ScoreInput[]
}

/** Where an evaluation was said: its trace, its span, the step the span became (null: the trace), and when. */
interface EvaluationPlace {
  trace_id: string
  span_id: string
  step_index: number | null
  time_ms: number
  /** Among the span's evaluations of the same name at the same time, which one (0 for the first). */
  occurrence: number
}

/**
 * One evaluation as a score, or null when it names nothing or gives neither a value nor a label. A value makes a
 * numeric score (its label, if any, kept in the score's metadata) — a boolean one when the label is `true`/`false`
 * and the value 1/0 —, a label alone a categorical one. The id is made of where the event was said, so a re-sent
 * trace records it once.
 */
function evaluationScore(e: Evaluation, place: EvaluationPlace): ScoreInput | null {
  const name = e.name === null ? '' : cut(e.name.trim(), 64).trim()
  const label = e.label === undefined ? '' : cut(e.label.trim(), SCORE_LIMITS.label)
  if (name === '' || (e.score === undefined && label === '')) return null
  const truth = label === 'true' ? 1 : label === 'false' ? 0 : null
  const otel: Record<string, unknown> = { span_id: place.span_id }
  if (e.response_id !== undefined) otel.response_id = cut(e.response_id, NAME_CHARS)
  if (e.error_type !== undefined) otel.error_type = cut(e.error_type, NAME_CHARS)
  const metadata: Record<string, unknown> = { otel }
  let value: ScoreInput['value']
  if (e.score === undefined) value = label
  else if (truth !== null && e.score === truth) value = truth === 1
  else {
    value = e.score
    if (label !== '') metadata.label = label
  }
  const created_at = isoOrNull(place.time_ms)
  return {
    score_id: derivedScoreId('otel', place.trace_id, place.span_id, place.time_ms, name, place.occurrence),
    trace_id: place.trace_id,
    step_index: place.step_index,
    name,
    value,
    comment: e.explanation === undefined ? null : cut(e.explanation, SCORE_LIMITS.comment),
    source: 'evaluator',
    ...(created_at === null ? {} : { created_at }),
    metadata,
  }
}

/** The evaluations of a span as scores: of the step it became, or of the trace when it is the root (or no step). */
function evaluationScores(node: Node, traceId: string, stepIndex: number | null): ScoreInput[] {
  const times = node.span.events.filter((event) => event.name === EVALUATION_EVENT).map((event) => event.time_ms)
  const seen = new Map<string, number>()
  return node.meaning.evaluations.flatMap((e, k) => {
    const time_ms = times[k] ?? 0
    const key = JSON.stringify([time_ms, e.name])
    const occurrence = seen.get(key) ?? 0
    seen.set(key, occurrence + 1)
    const score = evaluationScore(e, {
      trace_id: traceId,
      span_id: node.span.span_id,
      step_index: stepIndex,
      time_ms,
      occurrence,
    })
    return score ? [score] : []
  })
}

/** What a trace without its root span says for itself: nothing (its steps speak). */
const NO_MEANING: SpanMeaning = {
  type: 'other',
  tool: null,
  entity: null,
  agent_name: null,
  graph_node: null,
  function_id: null,
  model: null,
  response_model: null,
  prompt_tokens: null,
  completion_tokens: null,
  total_tokens: null,
  cost: null,
  prompt: null,
  response: null,
  input: null,
  output: null,
  session_id: null,
  user_id: null,
  tags: null,
  failed: false,
  error: null,
  rest: {},
  exception: null,
  error_type: null,
  provider: null,
  trace_name: null,
  prompt_is_message: false,
  first_user_message: null,
  evaluations: [],
}

interface Node {
  span: OtlpSpan
  meaning: SpanMeaning
  depth: number
  rank: number
  arrival: number
}

/**
 * Of two spans that started in the same millisecond, which ended first (negative: `a`). An exporter sends a scope's
 * spans in the order they ended, so within one scope that order decides: the JS SDKs stamp a whole-millisecond start
 * and add a precise duration, which can make a later sibling's recorded end the earlier one. Across scopes (an
 * exporter groups a body by scope, so arrival says nothing there) the recorded end times decide.
 */
function endedFirst(a: { span: OtlpSpan; arrival: number }, b: { span: OtlpSpan; arrival: number }): number {
  const sameScope = a.span.scope.name === b.span.scope.name && a.span.scope.version === b.span.scope.version
  return (sameScope ? 0 : a.span.end_ms - b.span.end_ms) || a.arrival - b.arrival
}

const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text)
const cutOrNull = (text: string | null, max: number) => (text === null ? null : cut(text, max))
const utf8 = new TextEncoder()
/** At most `max` bytes of UTF-8 (the contract's limit for prompt and response), cut on a character boundary. */
function cutBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text
  const ellipsis = '…'
  const { read } = utf8.encodeInto(text, new Uint8Array(max - Buffer.byteLength(ellipsis)))
  return `${text.slice(0, read)}${ellipsis}`
}
const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value))

/** A JSON value whose text is too long becomes its cut text, so one huge input cannot make the trace unstorable. */
function boundJson(value: unknown, max: number): unknown {
  if (typeof value === 'string') return cut(value, max)
  if (value === null || value === undefined) return null
  const text = JSON.stringify(value)
  return text.length > max ? cut(text, max) : value
}

/** `fixed` first, then each extra entry while the serialized object stays under `budget` bytes; the rest are counted. */
function boundedMetadata(
  fixed: Record<string, unknown>,
  extra: Record<string, unknown>,
  budget: number,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...fixed }
  let size = bytesOf(out)
  let omitted = 0
  for (const [key, value] of Object.entries(extra)) {
    if (Object.hasOwn(out, key)) continue
    const bounded = boundJson(value, ATTRIBUTE_VALUE_CHARS)
    const entry = bytesOf({ [key]: bounded })
    if (size + entry > budget) {
      omitted++
      continue
    }
    setOwn(out, key, bounded)
    size += entry
  }
  if (omitted > 0) out['loupe.omitted_attributes'] = omitted
  return out
}

const isoOrNull = (ms: number) => (ms > 0 && ms <= LATEST_MS ? toUtcIso(Math.floor(ms)) : null)

/**
 * Each span's place in the tree of what arrived: its `depth` below the top (a parent that never came counts as the
 * top) and its `rank` in a depth-first walk where siblings go by start time, then by which ended first. The JS SDKs
 * stamp whole milliseconds, so siblings often start in the same one: the one that ended first ran first (a tool whose
 * result the next model call read). Spans come in arrival order.
 */
function treeOrder(spans: readonly OtlpSpan[]): Map<string, { depth: number; rank: number }> {
  const arrival = new Map(spans.map((span, i) => [span.span_id, i]))
  const children = new Map<string | null, OtlpSpan[]>()
  for (const span of spans) {
    const parent = span.parent_span_id !== null && arrival.has(span.parent_span_id) ? span.parent_span_id : null
    children.set(parent, [...(children.get(parent) ?? []), span])
  }
  const arrived = (span: OtlpSpan) => ({ span, arrival: arrival.get(span.span_id)! })
  const inOrder = (list: readonly OtlpSpan[]) =>
    [...list].sort((a, b) => a.start_ms - b.start_ms || endedFirst(arrived(a), arrived(b)))
  const out = new Map<string, { depth: number; rank: number }>()
  // Iterative, so that a hostile chain of nested spans cannot exhaust the stack. A cycle (a broken exporter) is never
  // reached from the top; its spans are walked afterwards as tops of their own.
  const walk = (top: OtlpSpan) => {
    const stack: { span: OtlpSpan; depth: number }[] = [{ span: top, depth: 0 }]
    while (stack.length > 0) {
      const { span, depth } = stack.pop()!
      if (out.has(span.span_id)) continue
      out.set(span.span_id, { depth, rank: out.size })
      const next = inOrder(children.get(span.span_id) ?? []).reverse()
      for (const child of next) stack.push({ span: child, depth: depth + 1 })
    }
  }
  for (const top of inOrder(children.get(null) ?? [])) walk(top)
  for (const span of inOrder(spans)) walk(span)
  return out
}

/**
 * The span at the top of the trace: a span without a parent; else one whose parent is in another process (the root
 * of this service's part); else — the root never came — the earliest span whose parent is missing.
 */
function pickRoot(nodes: readonly Node[]): Node {
  const earliest = (candidates: Node[]) =>
    candidates.sort((a, b) => a.span.start_ms - b.span.start_ms || a.span.span_id.localeCompare(b.span.span_id))[0]
  return (
    earliest(nodes.filter((n) => n.span.parent_span_id === null)) ??
    earliest(nodes.filter((n) => n.span.parent_is_remote)) ??
    earliest(nodes.filter((n) => n.depth === 0)) ??
    earliest([...nodes])!
  )
}

/**
 * Steps in the order things happened: start time; on a tie, a span before its own descendants, else the one that
 * ended first (endedFirst), else the tree's order.
 */
function byStart(ancestorOf: (a: Node, b: Node) => boolean) {
  return (a: Node, b: Node) =>
    a.span.start_ms - b.span.start_ms ||
    (ancestorOf(a, b) ? -1 : ancestorOf(b, a) ? 1 : 0) ||
    endedFirst(a, b) ||
    a.rank - b.rank
}

/** Whether `a` is an ancestor of `b`, by the parent ids of the spans that arrived. */
function ancestry(nodes: readonly Node[]): (a: Node, b: Node) => boolean {
  const parentOf = new Map(nodes.map((n) => [n.span.span_id, n.span.parent_span_id]))
  return (a, b) => {
    if (a.depth >= b.depth) return false
    const seen = new Set<string>()
    let id = b.span.parent_span_id
    while (id !== null && id !== undefined && !seen.has(id)) {
      if (id === a.span.span_id) return true
      seen.add(id)
      id = parentOf.get(id) ?? null
    }
    return false
  }
}

/**
 * Each span with the GenAI log records that name it folded in as events (a log record is an event with a body: the
 * conventions read both alike), in the order they happened; and how many records named none of the spans.
 */
function foldRecords(
  spans: readonly OtlpSpan[],
  records: readonly OtlpLogRecord[],
): { spans: OtlpSpan[]; unmatched: number } {
  if (records.length === 0) return { spans: [...spans], unmatched: 0 }
  const bySpan = new Map<string, OtlpLogRecord[]>()
  for (const record of records) bySpan.set(record.span_id, [...(bySpan.get(record.span_id) ?? []), record])
  let matched = 0
  const folded = spans.map((span) => {
    const mine = bySpan.get(span.span_id)
    if (!mine) return span
    matched += mine.length
    bySpan.delete(span.span_id)
    const events = mine.map((r) => ({ name: r.event_name, time_ms: r.time_ms, attributes: r.attributes, body: r.body }))
    return { ...span, events: [...span.events, ...events].sort((a, b) => a.time_ms - b.time_ms) }
  })
  return { spans: folded, unmatched: records.length - matched }
}

/**
 * Tokens of the whole trace: the root's own when it reports any; otherwise (or without a root) the sum over the
 * top-most spans that report tokens (a model call nested in another that already counts it — the Vercel AI SDK does this — is not
 * counted twice).
 */
function traceTokens(root: Node | null, steps: readonly Node[]) {
  const carries = (m: SpanMeaning) => m.total_tokens !== null
  let carriers: Node[]
  if (root && carries(root.meaning)) carriers = [root]
  else {
    const byId = new Map(steps.map((n) => [n.span.span_id, n]))
    const hasCarrierAbove = (node: Node): boolean => {
      const seen = new Set<string>()
      let parentId = node.span.parent_span_id
      while (parentId !== null && !seen.has(parentId)) {
        seen.add(parentId)
        const parent = byId.get(parentId)
        if (!parent) return false
        if (carries(parent.meaning)) return true
        parentId = parent.span.parent_span_id
      }
      return false
    }
    carriers = steps.filter((n) => carries(n.meaning) && !hasCarrierAbove(n))
  }
  if (carriers.length === 0) return { prompt_tokens: null, completion_tokens: null, token_count: null }
  const sum = (pick: (m: SpanMeaning) => number | null) => {
    const values = carriers.map((n) => pick(n.meaning)).filter((v): v is number => v !== null)
    return values.length > 0 ? values.reduce((s, v) => s + v, 0) : null
  }
  return {
    prompt_tokens: sum((m) => m.prompt_tokens),
    completion_tokens: sum((m) => m.completion_tokens),
    token_count: sum((m) => m.total_tokens),
  }
}

/**
 * The trace's prompt: the root's when it is a message someone wrote. When the root only carries a raw input (a chain's
 * template variable `"France"`, a state object), the question the first model was asked — its first user message —
 * says more, and is the prompt when the root's text is part of it or the root's input is not text at all.
 */
function tracePrompt(root: SpanMeaning, firstModel: SpanMeaning | undefined): string | null {
  const asked = firstModel?.first_user_message ?? null
  if (root.prompt === null) return firstModel?.prompt ?? null
  if (root.prompt_is_message || asked === null || asked === root.prompt) return root.prompt
  const rootText = root.prompt.trim()
  const structured = rootText.startsWith('{') || rootText.startsWith('[')
  return structured || asked.includes(rootText) ? asked : root.prompt
}

/** What identifies a span in Loupe's metadata (and lets a re-sent span be recognised after its trace is stored). */
function spanIdentity(span: OtlpSpan): Record<string, unknown> {
  return {
    span_id: span.span_id,
    parent_span_id: span.parent_span_id,
    kind: span.kind,
    ...(span.scope.name
      ? { scope: span.scope.version ? `${span.scope.name}@${span.scope.version}` : span.scope.name }
      : {}),
  }
}

/**
 * What a step is called: an agent step's agent, the entity the library names (an OpenLLMetry task or tool), the tool a Vercel AI SDK tool
 * call ran, else the span's name; a span without one is called by its tool or type.
 */
function stepName({ span, meaning: m }: Node): string {
  if (m.agent_name !== null) return m.agent_name
  const vercelTool = m.function_id !== null && m.type === 'tool' ? m.tool : null
  return m.entity ?? vercelTool ?? (span.name.trim() !== '' ? span.name : (m.tool ?? m.type))
}

function toStep(node: Node, parent_index: number | null): StepInput {
  const { span, meaning: m } = node
  const fixed: Record<string, unknown> = { otel: spanIdentity(span) }
  if (m.model !== null) fixed.model = m.model
  if (m.response_model !== null) fixed.response_model = m.response_model
  if (m.prompt_tokens !== null) fixed.prompt_tokens = m.prompt_tokens
  if (m.completion_tokens !== null) fixed.completion_tokens = m.completion_tokens
  if (m.exception) fixed.exception = boundJson(m.exception, ATTRIBUTE_VALUE_CHARS)
  if (m.error_type !== null) fixed.error_type = cut(m.error_type, NAME_CHARS)
  if (m.provider !== null) fixed.provider = cut(m.provider, NAME_CHARS)
  if (m.evaluations.length > 0) fixed.evaluations = boundJson(m.evaluations, ATTRIBUTE_VALUE_CHARS)
  return {
    name: cut(stepName(node), NAME_CHARS),
    type: m.type,
    tool: cutOrNull(m.tool, NAME_CHARS),
    status: m.failed ? 'failed' : 'success',
    error: m.failed ? cutOrNull(m.error, LIMITS.textBytes) : null,
    latency: span.start_ms > 0 ? roundToMicros(span.end_ms - span.start_ms) : null,
    token_count: m.total_tokens,
    cost: m.cost,
    input: boundJson(m.input, LIMITS.textBytes),
    output: boundJson(m.output, LIMITS.textBytes),
    started_at: isoOrNull(span.start_ms),
    metadata: boundedMetadata(fixed, m.rest, STEP_METADATA_BUDGET),
    parent_index,
  }
}

/**
 * LangGraph names no kind for its nodes: a node that calls a model (a model call anywhere below it) is an agent, named
 * after the node; a node that only runs tools (LangGraph's `tools`) or code stays what its convention said.
 */
function promoteAgentNodes(nodes: Node[]) {
  const byId = new Map(nodes.map((n) => [n.span.span_id, n]))
  const callsModel = new Set<string>()
  for (const n of nodes) {
    if (n.meaning.type !== 'llm') continue
    // Up the ancestry, stopping where an earlier walk passed (and at a cycle a broken exporter made).
    let parent = n.span.parent_span_id
    while (parent !== null && !callsModel.has(parent)) {
      callsModel.add(parent)
      parent = byId.get(parent)?.span.parent_span_id ?? null
    }
  }
  for (const n of nodes) {
    const node = n.meaning.graph_node
    if (node === null || !callsModel.has(n.span.span_id)) continue
    if (n.meaning.type === 'function' || n.meaning.type === 'other') {
      n.meaning = { ...n.meaning, type: 'agent', agent_name: node }
    }
  }
}

/**
 * One trace from all the spans that arrived for it (at least one, in arrival order). The trace id is the OTLP trace id; the caller
 * normalizes and validates the result through the ingest service like any other trace.
 */
export function assembleTrace(arrived: readonly OtlpSpan[], records: readonly OtlpLogRecord[] = []): AssembledTrace {
  const { spans, unmatched } = foldRecords(arrived, records)
  const tree = treeOrder(spans)
  const nodes: Node[] = spans.map((span, arrival) => ({
    span,
    meaning: readSpanMeaning(span),
    arrival,
    ...tree.get(span.span_id)!,
  }))
  promoteAgentNodes(nodes)
  const top = pickRoot(nodes)
  // When the root never came, no span speaks for the whole trace: the top-most one only names it, and every span
  // that did come is a step (so a failed first attempt is a step that can be retried, not the trace's failure).
  const rootMissing = top.span.parent_span_id !== null && !top.span.parent_is_remote
  const root = rootMissing ? null : top
  // A root that is itself a call (a model call, an embedding, a tool) is also the first step, so that its input and
  // output show like any call's; its tokens are still counted once.
  const rootStep = root && CALL_TYPES.has(root.meaning.type) ? [root] : []
  const others = [...rootStep, ...nodes.filter((n) => n !== root).sort(byStart(ancestry(nodes)))]
  const steps = others.slice(0, LIMITS.steps)
  const dropped = others.length - steps.length
  const stepAt = new Map(steps.map((n, i) => [n.span.span_id, i]))

  const r = root?.meaning ?? NO_MEANING
  const firstLlm = steps.find((n) => n.meaning.type === 'llm')
  const lastLlm = steps.findLast((n) => n.meaning.type === 'llm')
  const firstWith = <T>(pick: (m: SpanMeaning) => T | null): T | null =>
    pick(r) ?? steps.map((n) => pick(n.meaning)).find((v) => v !== null) ?? null

  // Timing comes from the root; when the root never came, from the whole of what did.
  const starts = nodes.map((n) => n.span.start_ms).filter((ms) => ms > 0)
  const start = root ? root.span.start_ms : Math.min(...starts)
  const end = root ? root.span.end_ms : Math.max(...nodes.map((n) => n.span.end_ms))
  const created_at = isoOrNull(start)

  const otel: Record<string, unknown> = root
    ? spanIdentity(root.span)
    : { root_span_missing: true, missing_parent_span_id: top.span.parent_span_id }
  if (dropped > 0) otel.dropped_spans = dropped
  // Without a root, the trace spans what its spans span: exporters' clocks may put that beyond any real duration.
  const spread = start > 0 && end > start ? end - start : 0
  if (spread > BOUNDS.latencyMs) otel.latency_capped_from_ms = roundToMicros(spread)
  const service = top.span.resource['service.name']
  if (typeof service === 'string') otel.service_name = service
  // OpenInference's `metadata` attribute is the user's own metadata (JSON text): its fields go to the top level.
  const { metadata: userMetadata, ...rootRest } = r.rest
  const parsedUserMetadata = parseJsonText(userMetadata)
  const userFields: Record<string, unknown> =
    typeof parsedUserMetadata === 'object' && parsedUserMetadata !== null && !Array.isArray(parsedUserMetadata)
      ? (parsedUserMetadata as Record<string, unknown>)
      : userMetadata === undefined
        ? {}
        : { metadata: userMetadata }
  const resource = Object.fromEntries(Object.entries(top.span.resource).filter(([key]) => key !== 'service.name'))
  // The model of the trace is the root's, else the first model call's; the model that answered that call stays beside it.
  const candidates = [r, firstLlm?.meaning, ...steps.map((n) => n.meaning)]
  const model = candidates.find((m) => m?.model != null)?.model ?? null
  const responseModel = candidates.find((m) => m?.model === model && m.response_model !== null)?.response_model ?? null
  const fixed: Record<string, unknown> = { otel }
  if (model !== null && responseModel !== null) fixed.response_model = responseModel
  if (r.exception) fixed.exception = boundJson(r.exception, ATTRIBUTE_VALUE_CHARS)
  if (r.error_type !== null) fixed.error_type = cut(r.error_type, NAME_CHARS)
  const provider = r.provider ?? firstLlm?.meaning.provider ?? null
  if (provider !== null) fixed.provider = cut(provider, NAME_CHARS)
  // Every evaluation of the trace, each with the span it judged: what scores will be made of.
  const evaluations = nodes.flatMap((n) => n.meaning.evaluations.map((e) => ({ ...e, span_id: n.span.span_id })))
  if (evaluations.length > 0) fixed.evaluations = boundJson(evaluations, ATTRIBUTE_VALUE_CHARS * 4)
  const metadata = boundedMetadata(
    fixed,
    { ...userFields, ...rootRest, ...(Object.keys(resource).length > 0 ? { 'otel.resource': resource } : {}) },
    TRACE_METADATA_BUDGET,
  )

  const tokens = traceTokens(root, steps)
  const prompt = tracePrompt(r, firstLlm?.meaning) ?? ''
  const response = r.response ?? lastLlm?.meaning.response ?? null
  const tags = firstWith((m) => m.tags) ?? []
  const session = firstWith((m) => m.session_id)
  const user = firstWith((m) => m.user_id)
  // The name the library gives the whole call (an OpenLLMetry workflow, a Vercel AI SDK function id), else the span's.
  const name =
    firstWith((m) => m.trace_name) ??
    top.meaning.entity ??
    top.meaning.function_id ??
    (top.span.name.trim() !== '' ? top.span.name : null)

  const traceId = top.span.trace_id
  const scores = nodes.flatMap((n) =>
    evaluationScores(n, traceId, n === root ? null : (stepAt.get(n.span.span_id) ?? null)),
  )

  return {
    dropped,
    unmatched,
    scores,
    input: {
      trace_id: traceId,
      name: cutOrNull(name, NAME_CHARS),
      model: cutOrNull(model, NAME_CHARS),
      prompt: cutBytes(prompt, LIMITS.textBytes),
      response: response === null ? null : cutBytes(response, LIMITS.textBytes),
      latency: roundToMicros(Math.min(spread, BOUNDS.latencyMs)),
      prompt_tokens: tokens.prompt_tokens,
      completion_tokens: tokens.completion_tokens,
      token_count: tokens.token_count,
      cost: r.cost,
      // The root's failure fails the trace; its message (if any) is the reason. Steps are judged by normalization.
      status: r.failed ? 'failed' : null,
      failure_reason: r.failed ? cutOrNull(r.error, 8192) : null,
      session_id: cutOrNull(session, NAME_CHARS),
      user_id: cutOrNull(user, NAME_CHARS),
      tags: tags.slice(0, LIMITS.tags).map((tag) => cut(tag, LIMITS.tagLength)),
      metadata,
      created_at,
      // A step nests under its parent span when that span is a step too; under the root (or a parent that never
      // came, or was dropped) it is at the top level.
      steps: steps.map((n) =>
        toStep(n, n.span.parent_span_id === null ? null : (stepAt.get(n.span.parent_span_id) ?? null)),
      ),
    },
  }
}

/** Every span id a stored trace was built from (its root and its steps), read back from its metadata. */
export function spanIdsOf(trace: {
  metadata: Record<string, unknown>
  steps: readonly { metadata: Record<string, unknown> }[]
}): Set<string> {
  const ids = new Set<string>()
  const add = (metadata: Record<string, unknown>) => {
    const otel = metadata.otel as { span_id?: unknown } | undefined
    if (typeof otel?.span_id === 'string') ids.add(otel.span_id)
  }
  add(trace.metadata)
  for (const step of trace.steps) add(step.metadata)
  return ids
}
