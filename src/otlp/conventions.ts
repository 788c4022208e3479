// What one span means for Loupe, read from its attributes by the semantic conventions LLM instrumentations use, in
// this order of precedence: OpenTelemetry GenAI (`gen_ai.*`), OpenInference (`llm.*`, `input.value`,
// `openinference.span.kind`, …), OpenLLMetry's older names (`gen_ai.prompt.N.content`, `traceloop.*`, …), and last
// the Vercel AI SDK's own `ai.*` names. Attributes no rule reads are kept, untouched, for the metadata.

import { BOUNDS } from '../../schemas/common.js'
import type { OtlpSpan } from '../../schemas/otlp.js'
import type { StepType } from '../../schemas/step.js'
import { own, setOwn } from '../lib/own.js'

/** A chat message reduced to what a reader needs: who said it and its text. */
export interface Message {
  role: string
  content: string
}

export interface SpanMeaning {
  type: StepType
  tool: string | null
  model: string | null
  prompt_tokens: number | null
  completion_tokens: number | null
  /** The span's own total: the explicit total, else prompt + completion, else null. */
  total_tokens: number | null
  /** What the call cost in USD, when the instrumentation reports it. */
  cost: number | null
  /** Text of the prompt: the last user message, else all input messages, else the raw input as text. */
  prompt: string | null
  /** Text of the answer: the output messages, else the raw output as text. */
  response: string | null
  /** Structured input for a step: the input messages as sent, else the raw input. */
  input: unknown
  output: unknown
  session_id: string | null
  user_id: string | null
  tags: string[] | null
  failed: boolean
  error: string | null
  /** The attributes no rule used, as sent. */
  rest: Record<string, unknown>
  /** Details worth keeping that are not attributes: the exception of a failed span. */
  exception: { type: string | null; message: string | null; stacktrace: string | null } | null
}

/** `gen_ai.operation.name` → step type. */
const GENAI_OPERATIONS: Record<string, StepType> = {
  chat: 'llm',
  text_completion: 'llm',
  generate_content: 'llm',
  execute_tool: 'tool',
  embeddings: 'retrieval',
  retrieval: 'retrieval',
  invoke_agent: 'function',
  create_agent: 'function',
}
/** `openinference.span.kind` → step type. */
const OPENINFERENCE_KINDS: Record<string, StepType> = {
  llm: 'llm',
  tool: 'tool',
  retriever: 'retrieval',
  embedding: 'retrieval',
  reranker: 'retrieval',
  chain: 'function',
  agent: 'function',
  guardrail: 'other',
  evaluator: 'other',
  prompt: 'other',
  decision: 'other',
  unknown: 'other',
}
/** `traceloop.span.kind` and OpenLLMetry's `llm.request.type` → step type. */
const TRACELOOP_KINDS: Record<string, StepType> = {
  workflow: 'function',
  task: 'function',
  agent: 'function',
  tool: 'tool',
}
const LLM_REQUEST_TYPES: Record<string, StepType> = {
  chat: 'llm',
  completion: 'llm',
  embedding: 'retrieval',
  rerank: 'retrieval',
}
/** Vercel AI SDK `ai.operationId` → step type (the inner `do*` calls are the model calls). */
const VERCEL_OPERATIONS: Record<string, StepType> = {
  'ai.generateText.doGenerate': 'llm',
  'ai.streamText.doStream': 'llm',
  'ai.generateObject.doGenerate': 'llm',
  'ai.streamObject.doStream': 'llm',
  'ai.toolCall': 'tool',
  'ai.embed.doEmbed': 'retrieval',
  'ai.embedMany.doEmbed': 'retrieval',
  'ai.generateText': 'function',
  'ai.streamText': 'function',
  'ai.generateObject': 'function',
  'ai.streamObject': 'function',
  'ai.embed': 'function',
  'ai.embedMany': 'function',
}

const hasText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== ''

/**
 * A string that holds JSON — an object, an array, or a quoted string (OpenLLMetry JSON-encodes every entity input and
 * output) — is parsed; anything else is returned as it is.
 */
export function parseJsonText(value: unknown): unknown {
  if (typeof value !== 'string') return value
  const text = value.trim()
  const quoted = text.length >= 2 && text.startsWith('"') && text.endsWith('"')
  if (!(text.startsWith('{') || text.startsWith('[') || quoted)) return value
  try {
    return JSON.parse(text)
  } catch {
    return value
  }
}

/** A value as text: strings as they are, anything else as JSON; null and undefined stay null. */
export function asText(value: unknown): string | null {
  if (value === null || value === undefined) return null
  return typeof value === 'string' ? value : JSON.stringify(value)
}

function asCount(value: unknown): number | null {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : null
}

/** A cost in USD within the bounds of a trace's cost, from a number or its text. */
function asUsd(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= BOUNDS.costUsd ? n : null
}

/** Reads attributes and remembers which ones it used, so that the rest can go to the metadata. */
class AttributeReader {
  private readonly used = new Set<string>()

  constructor(private readonly values: Record<string, unknown>) {}

  /** The first of `keys` whose value `as` accepts; only that key counts as used. */
  first<T>(keys: readonly string[], as: (value: unknown) => T | null): T | null {
    for (const key of keys) {
      if (!Object.hasOwn(this.values, key)) continue
      const value = as(this.values[key])
      if (value !== null) {
        this.used.add(key)
        return value
      }
    }
    return null
  }

  text(...keys: string[]): string | null {
    return this.first(keys, (v) => (hasText(v) ? v : null))
  }

  count(...keys: string[]): number | null {
    return this.first(keys, asCount)
  }

  usd(...keys: string[]): number | null {
    return this.first(keys, asUsd)
  }

  /** Any present value, JSON text parsed. */
  value(...keys: string[]): unknown {
    return this.first(keys, (v) => (v === null || v === undefined || v === '' ? null : parseJsonText(v)))
  }

  /**
   * A list flattened into indexed keys (`prefix.0.message.role`, `prefix.1.message.role`, …), as OpenInference and
   * OpenLLMetry write them: one object per index, keyed by the rest of the name, in index order. All are used.
   */
  indexed(prefix: string): Record<string, unknown>[] {
    const items = new Map<number, Record<string, unknown>>()
    for (const [key, value] of Object.entries(this.values)) {
      if (!key.startsWith(prefix)) continue
      const match = /^(\d+)\.(.+)$/.exec(key.slice(prefix.length))
      if (!match) continue
      const index = Number(match[1])
      const item = items.get(index) ?? {}
      setOwn(item, match[2]!, value)
      items.set(index, item)
      this.used.add(key)
    }
    return [...items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item)
  }

  rest(): Record<string, unknown> {
    return Object.fromEntries(Object.entries(this.values).filter(([key]) => !this.used.has(key)))
  }
}

/** The text of one message part, whatever the convention's shape (`{type:'text', content}`, `{text}`, a string). */
function partText(part: unknown): string | null {
  if (typeof part === 'string') return part
  if (typeof part !== 'object' || part === null) return null
  const p = part as Record<string, unknown>
  if (p.type === undefined || p.type === 'text') return [p.content, p.text].find(hasText) ?? null
  return null
}

/** A message in any of the structured shapes: GenAI `{role, parts}`, chat `{role, content}` (string or parts). */
function structuredMessage(message: unknown): Message | null {
  if (typeof message !== 'object' || message === null) return null
  const m = message as Record<string, unknown>
  const role = hasText(m.role) ? m.role : 'unknown'
  const parts = Array.isArray(m.parts) ? m.parts : Array.isArray(m.content) ? m.content : null
  if (parts) {
    const texts = parts.map(partText).filter((t): t is string => t !== null)
    // A message with no text (only tool calls, say) still shows what it carried.
    return { role, content: texts.length > 0 ? texts.join('\n') : JSON.stringify(parts) }
  }
  const content = [m.content, m.text].find((c) => typeof c === 'string')
  return content === undefined ? null : { role, content: content as string }
}

/** A structured message list (array, or JSON text of one) → messages; null when it is not one. */
function structuredMessages(value: unknown): { messages: Message[]; raw: unknown[] } | null {
  const parsed = parseJsonText(value)
  if (!Array.isArray(parsed)) return null
  const messages = parsed.map(structuredMessage).filter((m): m is Message => m !== null)
  return messages.length > 0 ? { messages, raw: parsed } : null
}

/** OpenInference `llm.*_messages.N.message.*` items → messages. */
function openInferenceMessages(items: Record<string, unknown>[]): Message[] {
  return items.flatMap((item) => {
    const role = hasText(item['message.role']) ? item['message.role'] : 'unknown'
    if (typeof item['message.content'] === 'string') return [{ role, content: item['message.content'] }]
    const texts = Object.keys(item)
      .filter((key) => /^message\.contents\.\d+\.message_content\.text$/.test(key))
      .sort((a, b) => Number(a.split('.')[2]) - Number(b.split('.')[2]))
      .map((key) => item[key])
      .filter(hasText)
    return texts.length > 0 ? [{ role, content: texts.join('\n') }] : []
  })
}

/** OpenLLMetry `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` items → messages. */
function openLlmetryMessages(items: Record<string, unknown>[]): Message[] {
  return items.flatMap((item) => {
    if (typeof item.content !== 'string') return []
    return [{ role: hasText(item.role) ? item.role : 'unknown', content: item.content }]
  })
}

/** The prompt a person would name: the last user message; without one, every message. */
export function promptOf(messages: readonly Message[]): string | null {
  const user = messages.filter((m) => m.role === 'user').at(-1)
  if (user) return user.content
  return messages.length > 0 ? messages.map((m) => m.content).join('\n') : null
}

/** The answer: every output message's text (usually one). */
const responseOf = (messages: readonly Message[]): string | null =>
  messages.length > 0 ? messages.map((m) => m.content).join('\n') : null

/** The attribute of the latest event with this name (the older GenAI conventions put content in span events). */
function eventAttribute(span: OtlpSpan, event: string, key: string): unknown {
  return span.events.filter((e) => e.name === event).at(-1)?.attributes[key]
}

function stepType(a: AttributeReader): StepType | null {
  const lookup = (table: Record<string, StepType>) => (v: unknown) =>
    typeof v === 'string' ? (own(table, v.trim().toLowerCase()) ?? own(table, v.trim()) ?? null) : null
  return (
    a.first(['gen_ai.operation.name'], lookup(GENAI_OPERATIONS)) ??
    a.first(['openinference.span.kind'], lookup(OPENINFERENCE_KINDS)) ??
    a.first(['traceloop.span.kind'], lookup(TRACELOOP_KINDS)) ??
    a.first(['llm.request.type'], lookup(LLM_REQUEST_TYPES)) ??
    a.first(['ai.operationId'], lookup(VERCEL_OPERATIONS))
  )
}

/** Reads one span. Pure: the same span always means the same. */
export function readSpanMeaning(span: OtlpSpan): SpanMeaning {
  const a = new AttributeReader(span.attributes)
  const declaredType = stepType(a)

  const tool = a.text('gen_ai.tool.name', 'tool.name', 'ai.toolCall.name')
  const model = a.text(
    'gen_ai.request.model',
    'gen_ai.response.model',
    'llm.model_name',
    'llm.request.model',
    'ai.model.id',
  )
  const type: StepType = declaredType ?? (tool !== null ? 'tool' : model !== null ? 'llm' : 'other')
  const toolName =
    tool ?? (type === 'tool' ? (a.text('traceloop.entity.name') ?? (hasText(span.name) ? span.name : null)) : null)

  const prompt_tokens = a.count(
    'gen_ai.usage.input_tokens',
    'llm.token_count.prompt',
    'gen_ai.usage.prompt_tokens',
    'llm.usage.prompt_tokens',
    'ai.usage.inputTokens',
    'ai.usage.promptTokens',
  )
  const completion_tokens = a.count(
    'gen_ai.usage.output_tokens',
    'llm.token_count.completion',
    'gen_ai.usage.completion_tokens',
    'llm.usage.completion_tokens',
    'ai.usage.outputTokens',
    'ai.usage.completionTokens',
  )
  const explicitTotal = a.count(
    'gen_ai.usage.total_tokens',
    'llm.token_count.total',
    'llm.usage.total_tokens',
    'ai.usage.totalTokens',
  )
  const total_tokens =
    explicitTotal ??
    (prompt_tokens === null && completion_tokens === null ? null : (prompt_tokens ?? 0) + (completion_tokens ?? 0))

  // A reported cost: GenAI, OpenInference, OpenLLMetry.
  const cost = a.usd('gen_ai.usage.cost', 'llm.cost.total', 'gen_ai.usage.total_cost', 'llm.usage.cost')

  // Messages, by precedence: GenAI (attributes, then the older content events), OpenInference, OpenLLMetry, Vercel.
  const genaiIn = structuredMessages(
    a.value('gen_ai.input.messages') ?? eventAttribute(span, 'gen_ai.content.prompt', 'gen_ai.prompt'),
  )
  const genaiOut = structuredMessages(
    a.value('gen_ai.output.messages') ?? eventAttribute(span, 'gen_ai.content.completion', 'gen_ai.completion'),
  )
  const oiIn = openInferenceMessages(a.indexed('llm.input_messages.'))
  const oiOut = openInferenceMessages(a.indexed('llm.output_messages.'))
  const olIn = openLlmetryMessages(a.indexed('gen_ai.prompt.'))
  const olOut = openLlmetryMessages(a.indexed('gen_ai.completion.'))
  const vercelIn = structuredMessages(a.value('ai.prompt.messages'))
  const inputMessages = genaiIn?.messages ?? (oiIn.length ? oiIn : olIn.length ? olIn : (vercelIn?.messages ?? null))
  const outputMessages = genaiOut?.messages ?? (oiOut.length ? oiOut : olOut.length ? olOut : null)

  // Raw inputs and outputs, for tools, chains and anything without messages.
  const rawInput = a.value(
    'gen_ai.tool.call.arguments',
    'input.value',
    'traceloop.entity.input',
    'ai.toolCall.args',
    'ai.prompt',
  )
  const rawOutput = a.value(
    'gen_ai.tool.call.result',
    'output.value',
    'traceloop.entity.output',
    'ai.toolCall.result',
    'ai.response.text',
    'ai.response.object',
  )
  // Their MIME types say how to read them, which parseJsonText already does.
  a.text('input.mime_type')
  a.text('output.mime_type')
  // OpenInference documents retrieved by a retriever span.
  const documents = a
    .indexed('retrieval.documents.')
    .map((item) =>
      Object.fromEntries(Object.entries(item).map(([key, value]) => [key.replace(/^document\./, ''), value])),
    )

  const exceptionEvent = span.events.filter((e) => e.name === 'exception').at(-1)
  const exception = exceptionEvent
    ? {
        type: asText(exceptionEvent.attributes['exception.type']),
        message: asText(exceptionEvent.attributes['exception.message']),
        stacktrace: asText(exceptionEvent.attributes['exception.stacktrace']),
      }
    : null
  // ERROR fails a span; so does a recorded exception, unless the instrumentation explicitly said OK (final per OTel).
  const failed = span.status_code === 2 || (span.status_code === 0 && exception !== null)
  const errorType = a.text('error.type')
  const error = failed
    ? ([span.status_message, exception?.message, exception?.type, errorType].find(hasText) ?? null)
    : null

  const tagsValue = a.first(['tag.tags'], (v) => {
    const parsed = parseJsonText(v)
    return Array.isArray(parsed) ? parsed.filter(hasText) : null
  })

  return {
    type,
    tool: toolName,
    model,
    prompt_tokens,
    completion_tokens,
    total_tokens,
    cost,
    prompt: (inputMessages && promptOf(inputMessages)) ?? asText(rawInput),
    response: (outputMessages && responseOf(outputMessages)) ?? asText(rawOutput),
    input: genaiIn?.raw ?? inputMessages ?? rawInput ?? null,
    output: genaiOut?.raw ?? outputMessages ?? rawOutput ?? (documents.length > 0 ? documents : null),
    session_id: a.text(
      'gen_ai.conversation.id',
      'session.id',
      'traceloop.association.properties.session_id',
      'ai.telemetry.metadata.sessionId',
    ),
    user_id: a.text(
      'user.id',
      'enduser.id',
      'traceloop.association.properties.user_id',
      'ai.telemetry.metadata.userId',
    ),
    tags: tagsValue,
    failed,
    error,
    rest: a.rest(),
    exception,
  }
}

/**
 * Why a span carries a number no real call has (a duration over a week, a token count beyond any model), else null:
 * such a span is refused when it arrives — counted in the export's partialSuccess — instead of being stored.
 */
export function spanOutOfBounds(span: OtlpSpan, meaning: SpanMeaning = readSpanMeaning(span)): string | null {
  if (span.end_ms - span.start_ms > BOUNDS.latencyMs) return `last more than a week (${BOUNDS.latencyMs} ms)`
  const counts = [meaning.prompt_tokens, meaning.completion_tokens, meaning.total_tokens]
  if (counts.some((n) => n !== null && n > BOUNDS.stepTokens)) {
    return `report more than ${BOUNDS.stepTokens} tokens for one call`
  }
  return null
}
