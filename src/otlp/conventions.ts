// What one span means for Loupe, read from its attributes by the semantic conventions LLM instrumentations use, in
// this order of precedence: OpenTelemetry GenAI (`gen_ai.*`), OpenInference (`llm.*`, `input.value`,
// `openinference.span.kind`, …), OpenLLMetry's older names (`gen_ai.prompt.N.content`, `traceloop.*`, …), and last
// the Vercel AI SDK's own `ai.*` names. Attributes no rule reads are kept, untouched, for the metadata.

import { BOUNDS } from '../../schemas/common.js'
import type { OtlpSpan } from '../../schemas/otlp.js'
import type { StepType } from '../../schemas/step.js'
import { own, setOwn } from '../lib/own.js'

/** A tool call a model chose: the tool, its arguments (parsed when JSON) and the call's id. */
export interface ToolCall {
  id: string | null
  name: string
  arguments: unknown
}

/** A chat message reduced to what a reader needs: who said it, its text, and the tools it called. */
export interface Message {
  role: string
  content: string
  tool_calls?: ToolCall[]
}

export interface SpanMeaning {
  type: StepType
  tool: string | null
  /** The name the library gives what the span runs (an OpenLLMetry entity), else null. */
  entity: string | null
  /** The Vercel AI SDK's `ai.telemetry.functionId`: the application's name for the whole call. */
  function_id: string | null
  /** The model asked for; without one, the model that answered. */
  model: string | null
  /** The model that answered (a dated snapshot, often), when it is not `model`. */
  response_model: string | null
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

/**
 * A list flattened into indexed keys (`prefix0.a`, `prefix0.b`, `prefix1.a`, …): one object per index, keyed by the
 * rest of the name, in index order; and the keys it was made of.
 */
function byIndex(
  values: Record<string, unknown>,
  prefix: string,
): { items: Record<string, unknown>[]; keys: string[] } {
  const items = new Map<number, Record<string, unknown>>()
  const keys: string[] = []
  for (const [key, value] of Object.entries(values)) {
    const match = key.startsWith(prefix) ? /^(\d+)\.(.+)$/.exec(key.slice(prefix.length)) : null
    if (!match) continue
    const index = Number(match[1])
    const item = items.get(index) ?? {}
    setOwn(item, match[2]!, value)
    items.set(index, item)
    keys.push(key)
  }
  return { items: [...items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item), keys }
}

/** Reads attributes and remembers which ones it used, so that the rest can go to the metadata. */
class AttributeReader {
  private readonly used = new Set<string>()

  constructor(private readonly values: Record<string, unknown>) {}

  /**
   * The first of `keys` whose value `as` accepts. The keys of one call name the same thing in different conventions,
   * so another that says the same counts as used too (it would only repeat it in the metadata); one that says
   * something else is kept.
   */
  first<T>(keys: readonly string[], as: (value: unknown) => T | null): T | null {
    let found: T | null = null
    for (const key of keys) {
      if (!Object.hasOwn(this.values, key)) continue
      const value = as(this.values[key])
      if (value === null) continue
      if (found === null) found = value
      else if (JSON.stringify(value) !== JSON.stringify(found)) continue
      this.used.add(key)
    }
    return found
  }

  /** The key of the first of `keys` whose value `as` accepts (for a reader that must know which convention spoke). */
  firstKey(keys: readonly string[], as: (value: unknown) => unknown): string | null {
    return keys.find((key) => Object.hasOwn(this.values, key) && as(this.values[key]) !== null) ?? null
  }

  /** Marks keys as used without reading them (twins of attributes read under another name). */
  use(...keys: string[]): void {
    for (const key of keys) if (Object.hasOwn(this.values, key)) this.used.add(key)
  }

  /** A value as sent, without counting it as used (a rule that reads one part of it). */
  peek(key: string): unknown {
    return Object.hasOwn(this.values, key) ? this.values[key] : undefined
  }

  has(key: string): boolean {
    return Object.hasOwn(this.values, key)
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
  /** Any present value, JSON text parsed; `null` sent as JSON text is absent too (OpenLLMetry writes outputs so). */
  value(...keys: string[]): unknown {
    return this.first(keys, (v) =>
      v === null || v === undefined || v === '' || v === 'null' ? null : parseJsonText(v),
    )
  }

  /**
   * A list flattened into indexed keys (`prefix.0.message.role`, `prefix.1.message.role`, …), as OpenInference and
   * OpenLLMetry write them: one object per index, keyed by the rest of the name, in index order. All are used.
   */
  indexed(prefix: string): Record<string, unknown>[] {
    const { items, keys } = byIndex(this.values, prefix)
    for (const key of keys) this.used.add(key)
    return items
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

/** A tool call in any convention's shape: GenAI `{type:'tool_call', id, name, arguments}`, Vercel
 * `{toolCallId, toolName, input|args}`, OpenAI `{id, function: {name, arguments}}`, flattened `{id, name, arguments}`. */
function toolCallOf(value: unknown): ToolCall | null {
  if (typeof value !== 'object' || value === null) return null
  const c = value as Record<string, unknown>
  const fn = typeof c.function === 'object' && c.function !== null ? (c.function as Record<string, unknown>) : {}
  const name = [c.name, c.toolName, fn.name, c['function.name'], c['tool_call.function.name']].find(hasText)
  if (name === undefined) return null
  const id = [c.id, c.toolCallId, c['tool_call.id']].find(hasText) ?? null
  const args =
    c.arguments ?? c.input ?? c.args ?? fn.arguments ?? c['function.arguments'] ?? c['tool_call.function.arguments']
  return { id, name, arguments: args === undefined ? null : parseJsonText(args) }
}

const toolCallsOf = (values: unknown[]): ToolCall[] =>
  values.map(toolCallOf).filter((call): call is ToolCall => call !== null)

/** A message, with its tool calls when it made any. */
function message(role: string, content: string, calls: ToolCall[]): Message {
  return calls.length > 0 ? { role, content, tool_calls: calls } : { role, content }
}

/** A message in any of the structured shapes: GenAI `{role, parts}`, chat `{role, content}` (string or parts). */
function structuredMessage(value: unknown): Message | null {
  if (typeof value !== 'object' || value === null) return null
  const m = value as Record<string, unknown>
  const role = hasText(m.role) ? m.role : 'unknown'
  const parts = Array.isArray(m.parts) ? m.parts : Array.isArray(m.content) ? m.content : null
  const calls = toolCallsOf([
    ...(parts ?? []).filter((p) => ['tool_call', 'tool-call'].includes((p as { type?: unknown })?.type as string)),
    ...(Array.isArray(m.tool_calls) ? m.tool_calls : []),
  ])
  if (parts) {
    const texts = parts.map(partText).filter((t): t is string => t !== null)
    // A message with no text and no tool call (a tool result, say) still shows what it carried.
    const content = texts.length > 0 ? texts.join('\n') : calls.length > 0 ? '' : JSON.stringify(parts)
    return message(role, content, calls)
  }
  const content = [m.content, m.text].find((c) => typeof c === 'string')
  if (content === undefined && calls.length === 0) return null
  return message(role, (content as string | undefined) ?? '', calls)
}

/** A structured message list (array, or JSON text of one) → messages; null when it is not one. */
function structuredMessages(value: unknown): { messages: Message[]; raw: unknown[] } | null {
  const parsed = parseJsonText(value)
  if (!Array.isArray(parsed)) return null
  const messages = parsed.map(structuredMessage).filter((m): m is Message => m !== null)
  return messages.length > 0 ? { messages, raw: parsed } : null
}

/** The items of a flattened list inside one item (`tool_calls.0.tool_call.id`, …), in index order. */
const nested = (item: Record<string, unknown>, prefix: string) => byIndex(item, prefix).items

/** OpenInference `llm.*_messages.N.message.*` items → messages. */
function openInferenceMessages(items: Record<string, unknown>[]): Message[] {
  return items.flatMap((item) => {
    const role = hasText(item['message.role']) ? item['message.role'] : 'unknown'
    const calls = toolCallsOf(nested(item, 'message.tool_calls.'))
    if (typeof item['message.content'] === 'string') return [message(role, item['message.content'], calls)]
    const texts = nested(item, 'message.contents.')
      .map((part) => part['message_content.text'])
      .filter(hasText)
    return texts.length > 0 || calls.length > 0 ? [message(role, texts.join('\n'), calls)] : []
  })
}

/** OpenLLMetry `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` items → messages. */
function openLlmetryMessages(items: Record<string, unknown>[]): Message[] {
  return items.flatMap((item) => {
    const calls = toolCallsOf(nested(item, 'tool_calls.'))
    if (typeof item.content !== 'string' && calls.length === 0) return []
    const role = hasText(item.role) ? item.role : 'unknown'
    return [message(role, typeof item.content === 'string' ? item.content : '', calls)]
  })
}

/** The prompt a person would name: the last user message; without one, every message. */
export function promptOf(messages: readonly Message[]): string | null {
  const user = messages.filter((m) => m.role === 'user').at(-1)
  if (user) return user.content
  return messages.length > 0 ? messages.map((m) => m.content).join('\n') : null
}

/** A message as a reader sees it: its text, else the tools it called (`get_weather({"city":"Paris"})`). */
const textOf = (m: Message): string =>
  m.content.trim() !== '' || !m.tool_calls
    ? m.content
    : m.tool_calls.map((c) => `${c.name}(${asText(c.arguments) ?? ''})`).join('\n')

/** The answer: every output message's text (usually one). */
const responseOf = (messages: readonly Message[]): string | null =>
  messages.length > 0 ? messages.map(textOf).join('\n') : null

/** The attribute of the latest event with this name (the older GenAI conventions put content in span events). */
function eventAttribute(span: OtlpSpan, event: string, key: string): unknown {
  return span.events.filter((e) => e.name === event).at(-1)?.attributes[key]
}

/** Vercel AI SDK attributes that repeat a `gen_ai.*` one the same span carries: [the repeat, the original]. */
const VERCEL_TWINS: [string, string][] = [
  ['ai.response.id', 'gen_ai.response.id'],
  ['ai.response.finishReason', 'gen_ai.response.finish_reasons'],
  ['ai.model.provider', 'gen_ai.system'],
]

/** The model in OpenInference's `llm.invocation_parameters` (JSON text of the request's parameters). */
function invocationModel(value: unknown): string | null {
  const parameters = parseJsonText(value)
  if (typeof parameters !== 'object' || parameters === null) return null
  const model = (parameters as Record<string, unknown>).model
  return hasText(model) ? model : null
}

/** One item as itself, several as a list, none as null. */
const oneOrList = (items: unknown[]): unknown => (items.length === 0 ? null : items.length === 1 ? items[0] : items)

/**
 * OpenLLMetry's entity input `{"args":[…],"kwargs":{…}}` opened: nothing passed is null, a single argument is
 * itself, named arguments alone are their object; anything else stays as sent.
 */
function openArguments(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  const { args = [], kwargs = {}, ...others } = value as Record<string, unknown>
  if (Object.keys(others).length > 0 || !Array.isArray(args) || typeof kwargs !== 'object' || kwargs === null)
    return value
  const named = Object.keys(kwargs).length
  if (args.length === 0) return named === 0 ? null : kwargs
  return named === 0 && args.length === 1 ? args[0] : value
}

/** The user's text in the Vercel AI SDK's `ai.prompt` (`{"system":…,"prompt":"…"}` or `{"messages":[…]}`). */
function vercelPrompt(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return null
  const { prompt, messages } = value as Record<string, unknown>
  if (typeof prompt === 'string') return prompt
  const list = structuredMessages(prompt ?? messages)
  return list ? promptOf(list.messages) : null
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
  // One rule for every library: the model asked for, else the one that answered; that one (often a dated snapshot of
  // the one asked for) is kept beside it. OpenInference names the model that answered, and the one asked for only
  // in the invocation parameters.
  const requested =
    a.text('gen_ai.request.model', 'llm.request.model', 'ai.model.id', 'embedding.model_name') ??
    invocationModel(a.peek('llm.invocation_parameters'))
  const served = a.text('gen_ai.response.model', 'llm.response.model', 'ai.response.model', 'llm.model_name')
  const model = requested ?? served
  const response_model = served !== null && served !== model ? served : null

  const type: StepType = declaredType ?? (tool !== null ? 'tool' : model !== null ? 'llm' : 'other')
  const entity = a.text('traceloop.entity.name')
  const function_id = a.text('ai.telemetry.functionId')
  // The Vercel AI SDK repeats its operation and function id under generic names, and some gen_ai.* values as ai.*.
  if (function_id !== null) a.use('resource.name', 'operation.name')
  for (const [twin, key] of VERCEL_TWINS) if (a.has(key)) a.use(twin)
  const toolName = tool ?? (type === 'tool' ? (entity ?? (hasText(span.name) ? span.name : null)) : null)

  const prompt_tokens = a.count(
    'gen_ai.usage.input_tokens',
    'llm.token_count.prompt',
    'gen_ai.usage.prompt_tokens',
    'llm.usage.prompt_tokens',
    'ai.usage.inputTokens',
    'ai.usage.promptTokens',
    // An embedding's tokens are all input.
    'ai.usage.tokens',
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
  const vercelCalls = a.first(['ai.response.toolCalls'], (v) => {
    const calls = parseJsonText(v)
    return Array.isArray(calls) && calls.length > 0 ? toolCallsOf(calls) : null
  })
  // OpenLLMetry writes an embedding's inputs as role-less prompts: those are texts, not messages.
  const olTexts = type === 'retrieval' && olIn.length > 0 && olIn.every((m) => m.role === 'unknown')
  const olMessages = olTexts ? [] : olIn
  const inputMessages =
    genaiIn?.messages ?? (oiIn.length ? oiIn : olMessages.length ? olMessages : (vercelIn?.messages ?? null))

  // Embeddings: the texts embedded and the vectors (OpenInference's flattened list, the Vercel AI SDK's ai.value(s)).
  const oiEmbeddings = a.indexed('embedding.embeddings.')
  const embedded =
    (olTexts ? oneOrList(olIn.map((m) => m.content)) : null) ??
    oneOrList(oiEmbeddings.map((e) => e['embedding.text']).filter(hasText)) ??
    a.value('ai.value') ??
    a.first(['ai.values'], (v) => (Array.isArray(v) ? oneOrList(v.map(parseJsonText)) : null))
  const vectors =
    oneOrList(oiEmbeddings.map((e) => parseJsonText(e['embedding.vector'])).filter((v) => v !== undefined)) ??
    a.value('ai.embedding') ??
    a.first(['ai.embeddings'], (v) => (Array.isArray(v) ? oneOrList(v.map(parseJsonText)) : null))

  // Raw inputs and outputs, for tools, chains and anything without messages. Framework argument wrappers are opened:
  // OpenLLMetry's `{"args":[…],"kwargs":{…}}`, the Vercel AI SDK's `{"system":…,"prompt":…}`.
  const inputKeys = [
    'gen_ai.tool.call.arguments',
    'input.value',
    'traceloop.entity.input',
    'ai.toolCall.args',
    'ai.prompt',
  ]
  const inputKey = a.firstKey(inputKeys, (v) => (v === null || v === undefined || v === '' ? null : v))
  const rawInputSent = a.value(...inputKeys)
  const rawInput = inputKey === 'traceloop.entity.input' ? openArguments(rawInputSent) : rawInputSent
  const wrapperPrompt = inputKey === 'ai.prompt' ? vercelPrompt(rawInput) : null
  const rawOutput = a.value(
    'gen_ai.tool.call.result',
    'output.value',
    'traceloop.entity.output',
    'ai.toolCall.result',
    'ai.response.text',
    'ai.response.object',
  )
  const vercelOut = vercelCalls
    ? [message('assistant', typeof rawOutput === 'string' ? rawOutput : '', vercelCalls)]
    : null
  const outputMessages = genaiOut?.messages ?? (oiOut.length ? oiOut : olOut.length ? olOut : vercelOut)
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
    entity,
    function_id,
    model,
    response_model,
    prompt_tokens,
    completion_tokens,
    total_tokens,
    cost,
    prompt:
      (inputMessages && promptOf(inputMessages)) ??
      (Array.isArray(embedded) ? embedded.map(asText).join('\n') : asText(embedded)) ??
      wrapperPrompt ??
      asText(rawInput),
    // An embedding answers vectors, not text.
    response: (outputMessages && responseOf(outputMessages)) ?? (vectors === null ? asText(rawOutput) : null),
    input: genaiIn?.raw ?? inputMessages ?? embedded ?? rawInput ?? null,
    output: genaiOut?.raw ?? outputMessages ?? vectors ?? rawOutput ?? (documents.length > 0 ? documents : null),
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
