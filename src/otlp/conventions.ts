// What one span means for Loupe, read from its attributes (and its events, log records folded in among them) by the
// semantic conventions LLM instrumentations use, in this order of precedence: OpenTelemetry GenAI (`gen_ai.*`, in
// attribute and event forms), Langfuse's SDK (`langfuse.*`), OpenInference (`llm.*`, `input.value`,
// `openinference.span.kind`, …), OpenLLMetry's older names (`gen_ai.prompt.N.content`, `traceloop.*`, …), and last
// the Vercel AI SDK's own `ai.*` names. LangChain's messages (serialized `lc` constructors, `{messages: […]}` states)
// are opened into roles and text wherever they appear. Attributes no rule reads are kept, untouched, for the metadata.

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

/**
 * A `gen_ai.evaluation.result` event, as kept in metadata until scores exist: the evaluation's name, its score (a
 * number) and label, the explanation, and the response it judged. Absent fields are left out.
 */
export interface Evaluation {
  name: string | null
  score?: number
  label?: string
  explanation?: string
  response_id?: string
  error_type?: string
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
  /** The class of the error (`error.type`), kept even when a message says more. */
  error_type: string | null
  /** The provider of the model (`gen_ai.provider.name`, formerly `gen_ai.system`). */
  provider: string | null
  /** The name the application gives the whole trace (Langfuse's `langfuse.trace.name`). */
  trace_name: string | null
  /** Whether `prompt` is a message someone wrote (from a message list), not a raw input read as text. */
  prompt_is_message: boolean
  /** The first user message the span sent, when it sent messages (the question a model was asked). */
  first_user_message: string | null
  /** `gen_ai.evaluation.result` events. */
  evaluations: Evaluation[]
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
/** Langfuse's `langfuse.observation.type` → step type. */
const LANGFUSE_TYPES: Record<string, StepType> = {
  generation: 'llm',
  embedding: 'retrieval',
  retriever: 'retrieval',
  tool: 'tool',
  agent: 'function',
  chain: 'function',
  span: 'function',
  evaluator: 'other',
  guardrail: 'other',
  event: 'other',
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

/** LangChain's message classes and message types → the role they speak as. */
const LANGCHAIN_ROLES: Record<string, string> = {
  HumanMessage: 'user',
  HumanMessageChunk: 'user',
  AIMessage: 'assistant',
  AIMessageChunk: 'assistant',
  SystemMessage: 'system',
  SystemMessageChunk: 'system',
  ToolMessage: 'tool',
  ToolMessageChunk: 'tool',
  FunctionMessage: 'function',
  human: 'user',
  ai: 'assistant',
  system: 'system',
  tool: 'tool',
  function: 'function',
  developer: 'system',
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * A LangChain message in the shape a chat message has (`{role, content, tool_calls}`): a serialized constructor
 * (`{"lc":1,"type":"constructor","id":[…,"AIMessage"],"kwargs":{…}}`), a message dict (`{"type":"human",…}`) or a
 * `["user", "text"]` pair. Null when the value is none of these.
 */
function langChainMessage(value: unknown): Record<string, unknown> | null {
  if (Array.isArray(value)) {
    const [role, content] = value
    return value.length === 2 && typeof role === 'string' && typeof content === 'string' && own(LANGCHAIN_ROLES, role)
      ? { role: own(LANGCHAIN_ROLES, role), content }
      : null
  }
  if (!isRecord(value)) return null
  let kwargs: Record<string, unknown>
  let kind: unknown
  if (value.lc === 1 && value.type === 'constructor' && Array.isArray(value.id) && isRecord(value.kwargs)) {
    kwargs = value.kwargs
    kind = value.id.at(-1)
  } else if (typeof value.type === 'string' && !('role' in value) && 'content' in value) {
    kwargs = value
    kind = value.type
  } else return null
  const role =
    (kind === 'ChatMessage' || kind === 'chat') && hasText(kwargs.role)
      ? kwargs.role
      : typeof kind === 'string'
        ? own(LANGCHAIN_ROLES, kind)
        : undefined
  if (role === undefined) return null
  const extra = isRecord(kwargs.additional_kwargs) ? kwargs.additional_kwargs : {}
  const calls = Array.isArray(kwargs.tool_calls) && kwargs.tool_calls.length > 0 ? kwargs.tool_calls : extra.tool_calls
  return { role, content: kwargs.content ?? '', ...(Array.isArray(calls) ? { tool_calls: calls } : {}) }
}

/** A message in any of the structured shapes: GenAI `{role, parts}`, chat `{role, content}` (string or parts), LangChain's. */
function structuredMessage(value: unknown): Message | null {
  if (typeof value !== 'object' || value === null) return null
  const m = langChainMessage(value) ?? (value as Record<string, unknown>)
  if (Array.isArray(m)) return null
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

/**
 * What a framework passes around, opened into messages: a LangChain message, a list of messages, a LangGraph state
 * `{"messages":[…]}`, a tool's `{"output": <ToolMessage>}`. Null when the value holds none.
 */
function frameworkMessages(value: unknown, depth = 0): Message[] | null {
  // Wrappers nest a level or two; a hostile value nested deeper is not opened (nor walked off the stack).
  if (depth > 4) return null
  const parsed = parseJsonText(value)
  const single = langChainMessage(parsed)
  if (single) return [structuredMessage(single)!]
  if (isRecord(parsed)) {
    const keys = Object.keys(parsed)
    // A prompt template's value (`ChatPromptValue`) holds its messages in its kwargs.
    const lcMessages = parsed.lc === 1 && isRecord(parsed.kwargs) ? parsed.kwargs.messages : undefined
    const messages = parsed.messages ?? lcMessages
    // A chat model's input is a batch of conversations: `{"messages":[[…]]}`; one conversation is read.
    if (Array.isArray(messages))
      return frameworkMessages(messages.length === 1 && Array.isArray(messages[0]) ? messages[0] : messages, depth + 1)
    if (keys.length === 1 && keys[0] === 'output') return frameworkMessages(parsed.output, depth + 1)
    return null
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return null
  // A list is messages only when every item is one (a list of documents or numbers is not).
  const messages = parsed.map((item) =>
    langChainMessage(item) || (isRecord(item) && hasText(item.role)) ? structuredMessage(item) : null,
  )
  return messages.every((m) => m !== null) ? (messages as Message[]) : null
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

/** The first user message: the question that opened the conversation. */
const firstUserOf = (messages: readonly Message[]): string | null =>
  messages.find((m) => m.role === 'user')?.content ?? null

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
  return span.events.filter((e) => e.name === event && Object.hasOwn(e.attributes, key)).at(-1)?.attributes[key]
}

/** The GenAI event that carries a whole call's content (span event or log record), and its attributes. */
const DETAILS_EVENT = 'gen_ai.client.inference.operation.details'

/** The events that each carry one input message (span events, or log records folded in), and their roles. */
const MESSAGE_EVENTS: Record<string, string> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
}

/** What an event says: its body when it came as a log record, else its attributes. */
const payloadOf = (event: OtlpSpan['events'][number]): Record<string, unknown> => {
  const body = parseJsonText(event.body)
  return isRecord(body) ? body : event.attributes
}

/**
 * The messages of the per-message GenAI events (`gen_ai.user.message`, …, and `gen_ai.choice` for the answers), in
 * the order they happened. Each body is `{content, tool_calls, id}`; a choice's is `{finish_reason, index, message}`.
 */
function eventMessages(span: OtlpSpan): { input: Message[]; output: Message[] } {
  const ordered = [...span.events].sort((a, b) => a.time_ms - b.time_ms)
  const input: Message[] = []
  for (const event of ordered) {
    const role = own(MESSAGE_EVENTS, event.name)
    if (role === undefined) continue
    const payload = payloadOf(event)
    const m = structuredMessage({
      ...payload,
      role: hasText(payload.role) ? payload.role : role,
      content: payload.content ?? '',
    })
    if (m) input.push(m)
  }
  const choices = ordered
    .filter((event) => event.name === 'gen_ai.choice')
    .map(payloadOf)
    .sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0))
  const output = choices.flatMap((choice) => {
    const sent = isRecord(choice.message) ? choice.message : choice
    const m = structuredMessage({
      ...sent,
      role: hasText(sent.role) ? sent.role : 'assistant',
      content: sent.content ?? '',
    })
    return m ? [m] : []
  })
  return { input, output }
}

/** `gen_ai.system_instructions` (parts, JSON text of them, or plain text) as one system message; null without. */
function systemInstructions(value: unknown): { message: Message; raw: unknown } | null {
  const parsed = parseJsonText(value)
  if (typeof parsed === 'string')
    return hasText(parsed) ? { message: message('system', parsed, []), raw: parsed } : null
  const parts = Array.isArray(parsed) ? parsed : isRecord(parsed) ? [parsed] : []
  const texts = parts.map(partText).filter((t): t is string => t !== null)
  return texts.length > 0 ? { message: message('system', texts.join('\n'), []), raw: parsed } : null
}

/** `gen_ai.evaluation.result` events, with what each judged. */
function evaluationsOf(span: OtlpSpan): Evaluation[] {
  return span.events
    .filter((event) => event.name === 'gen_ai.evaluation.result')
    .map((event) => {
      const a = {
        ...event.attributes,
        ...(isRecord(parseJsonText(event.body)) ? (parseJsonText(event.body) as object) : {}),
      }
      const get = (key: string) => (a as Record<string, unknown>)[key]
      const score = get('gen_ai.evaluation.score.value')
      const n = typeof score === 'string' && score.trim() !== '' ? Number(score) : score
      const out: Evaluation = { name: asText(get('gen_ai.evaluation.name')) }
      if (typeof n === 'number' && Number.isFinite(n)) out.score = n
      const optional = {
        label: 'gen_ai.evaluation.score.label',
        explanation: 'gen_ai.evaluation.explanation',
        response_id: 'gen_ai.response.id',
        error_type: 'error.type',
      } as const
      for (const [field, key] of Object.entries(optional)) {
        const text = asText(get(key))
        if (text !== null) out[field as keyof typeof optional] = text
      }
      return out
    })
}

/** Langfuse's `usage_details` (`{"input":21,"output":7,"total":28}`, or OpenAI's names) as token counts. */
function langfuseUsage(
  value: unknown,
): { prompt: number | null; completion: number | null; total: number | null } | null {
  const usage = parseJsonText(value)
  if (!isRecord(usage)) return null
  const pick = (...keys: string[]) => keys.map((k) => asCount(usage[k])).find((n) => n !== null) ?? null
  const prompt = pick('input', 'prompt_tokens', 'input_tokens', 'promptTokens', 'inputTokens')
  const completion = pick('output', 'completion_tokens', 'output_tokens', 'completionTokens', 'outputTokens')
  const total = pick('total', 'total_tokens', 'totalTokens')
  return prompt === null && completion === null && total === null ? null : { prompt, completion, total }
}

/** Langfuse's `cost_details` (`{"input":0.0001,"output":0.0002,"total":0.0003}`) as the cost in USD. */
function langfuseCost(value: unknown): number | null {
  const costs = parseJsonText(value)
  if (!isRecord(costs)) return asUsd(costs)
  if (costs.total !== undefined) return asUsd(costs.total)
  const parts = Object.values(costs).map(asUsd)
  return parts.length > 0 && parts.every((n) => n !== null) ? asUsd(parts.reduce((s, n) => s! + n!, 0)) : null
}

/** Langfuse's input or output (JSON text: a message list, one message, or anything else) as messages, or null. */
function langfuseMessages(value: unknown): Message[] | null {
  const parsed = parseJsonText(value)
  const list = structuredMessages(
    Array.isArray(parsed) ? parsed : isRecord(parsed) && hasText(parsed.role) ? [parsed] : null,
  )
  return list?.messages ?? frameworkMessages(parsed)
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
    a.first(['langfuse.observation.type'], lookup(LANGFUSE_TYPES)) ??
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
    a.text(
      'gen_ai.request.model',
      'langfuse.observation.model.name',
      'llm.request.model',
      'ai.model.id',
      'embedding.model_name',
    ) ?? invocationModel(a.peek('llm.invocation_parameters'))
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

  const langfuse = a.first(['langfuse.observation.usage_details'], langfuseUsage)
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
  const explicitTotal =
    a.count('gen_ai.usage.total_tokens', 'llm.token_count.total', 'llm.usage.total_tokens', 'ai.usage.totalTokens') ??
    langfuse?.total ??
    null
  const inputTokens = prompt_tokens ?? langfuse?.prompt ?? null
  const outputTokens = completion_tokens ?? langfuse?.completion ?? null
  const total_tokens =
    explicitTotal ?? (inputTokens === null && outputTokens === null ? null : (inputTokens ?? 0) + (outputTokens ?? 0))

  // A reported cost: GenAI, OpenInference, OpenLLMetry, Langfuse.
  const cost =
    a.usd('gen_ai.usage.cost', 'llm.cost.total', 'gen_ai.usage.total_cost', 'llm.usage.cost') ??
    a.first(['langfuse.observation.cost_details'], langfuseCost)

  // Messages, by precedence: GenAI (attributes; the inference details event, as a span event or a log record; the
  // per-message events; the older content events), Langfuse, OpenInference, OpenLLMetry, Vercel.
  const genaiIn = structuredMessages(
    a.value('gen_ai.input.messages') ??
      eventAttribute(span, DETAILS_EVENT, 'gen_ai.input.messages') ??
      eventAttribute(span, 'gen_ai.content.prompt', 'gen_ai.prompt'),
  )
  const genaiOut = structuredMessages(
    a.value('gen_ai.output.messages') ??
      eventAttribute(span, DETAILS_EVENT, 'gen_ai.output.messages') ??
      eventAttribute(span, 'gen_ai.content.completion', 'gen_ai.completion'),
  )
  const instructions = systemInstructions(
    a.value('gen_ai.system_instructions') ?? eventAttribute(span, DETAILS_EVENT, 'gen_ai.system_instructions'),
  )
  const perEvent = eventMessages(span)
  const lfIn = langfuseMessages(a.peek('langfuse.observation.input'))
  const lfOut = langfuseMessages(a.peek('langfuse.observation.output'))
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
  const sentMessages =
    genaiIn?.messages ??
    (perEvent.input.length ? perEvent.input : null) ??
    lfIn ??
    (oiIn.length ? oiIn : olMessages.length ? olMessages : (vercelIn?.messages ?? null))

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
    'langfuse.observation.input',
    'input.value',
    'traceloop.entity.input',
    'ai.toolCall.args',
    'ai.prompt',
    'langfuse.trace.input',
  ]
  const inputKey = a.firstKey(inputKeys, (v) => (v === null || v === undefined || v === '' ? null : v))
  const rawInputSent = a.value(...inputKeys)
  const rawInput = inputKey === 'traceloop.entity.input' ? openArguments(rawInputSent) : rawInputSent
  const wrapperPrompt = inputKey === 'ai.prompt' ? vercelPrompt(rawInput) : null
  const rawOutput = a.value(
    'gen_ai.tool.call.result',
    'langfuse.observation.output',
    'output.value',
    'traceloop.entity.output',
    'ai.toolCall.result',
    'ai.response.text',
    'ai.response.object',
    'langfuse.trace.output',
  )
  // What a framework passed (LangChain messages, a LangGraph state, a tool's ToolMessage), opened into messages.
  const frameworkIn = sentMessages ? null : frameworkMessages(rawInput)
  const frameworkOut = frameworkMessages(rawOutput)
  // The system instructions lead the messages sent, unless a system message already does.
  const withInstructions = (messages: Message[] | null) =>
    instructions && messages && !messages.some((m) => m.role === 'system')
      ? [instructions.message, ...messages]
      : (messages ?? (instructions ? [instructions.message] : null))
  const inputMessages = withInstructions(sentMessages ?? frameworkIn)
  const genaiInRaw =
    genaiIn && instructions && !genaiIn.messages.some((m) => m.role === 'system')
      ? [
          {
            role: 'system',
            parts: Array.isArray(instructions.raw)
              ? instructions.raw
              : [{ type: 'text', content: instructions.message.content }],
          },
          ...genaiIn.raw,
        ]
      : genaiIn?.raw
  const vercelOut = vercelCalls
    ? [message('assistant', typeof rawOutput === 'string' ? rawOutput : '', vercelCalls)]
    : null
  const outputMessages =
    genaiOut?.messages ??
    (perEvent.output.length ? perEvent.output : null) ??
    (lfOut && lfOut.length > 0 ? lfOut : null) ??
    (oiOut.length ? oiOut : olOut.length ? olOut : vercelOut)
  // A framework's output that is a whole conversation (a LangGraph state) answers with its last message.
  const frameworkAnswer = frameworkOut && frameworkOut.length > 0 ? [frameworkOut.at(-1)!] : null
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
  // Langfuse sets no OTel status: its level ERROR (with a status message) is the failure.
  const langfuseError = a.first(['langfuse.observation.level'], (v) => (v === 'ERROR' ? true : null)) !== null
  const langfuseMessage = langfuseError ? a.text('langfuse.observation.status_message') : null
  const failed = span.status_code === 2 || (span.status_code === 0 && (exception !== null || langfuseError))
  const error_type = a.text('error.type')
  const error = failed
    ? ([span.status_message, langfuseMessage, exception?.message, exception?.type, error_type].find(hasText) ?? null)
    : null

  const tagsValue = a.first(['tag.tags', 'langfuse.trace.tags'], (v) => {
    const parsed = parseJsonText(v)
    return Array.isArray(parsed) ? parsed.filter(hasText) : null
  })
  const provider = a.text('gen_ai.provider.name', 'gen_ai.system')
  const trace_name = a.text('langfuse.trace.name')
  // Langfuse's SDK marks spans for its own server's bookkeeping: nothing a reader needs.
  a.use(...Object.keys(span.attributes).filter((key) => key.startsWith('langfuse.internal.')))
  const prompt = inputMessages && promptOf(inputMessages)

  return {
    type,
    tool: toolName,
    entity,
    function_id,
    model,
    response_model,
    prompt_tokens: inputTokens,
    completion_tokens: outputTokens,
    total_tokens,
    cost,
    prompt:
      prompt ??
      (Array.isArray(embedded) ? embedded.map(asText).join('\n') : asText(embedded)) ??
      wrapperPrompt ??
      asText(rawInput),
    // An embedding answers vectors, not text.
    response:
      (outputMessages && responseOf(outputMessages)) ??
      (frameworkAnswer && responseOf(frameworkAnswer)) ??
      (vectors === null ? asText(rawOutput) : null),
    input: genaiInRaw ?? inputMessages ?? embedded ?? rawInput ?? null,
    output:
      genaiOut?.raw ??
      outputMessages ??
      vectors ??
      (frameworkOut &&
        (frameworkOut.length > 1 || frameworkOut[0]!.tool_calls
          ? frameworkOut
          : parseJsonText(frameworkOut[0]!.content))) ??
      rawOutput ??
      (documents.length > 0 ? documents : null),
    session_id: a.text(
      'gen_ai.conversation.id',
      'session.id',
      'langfuse.session.id',
      'traceloop.association.properties.session_id',
      'ai.telemetry.metadata.sessionId',
    ),
    user_id: a.text(
      'user.id',
      'langfuse.user.id',
      'enduser.id',
      'traceloop.association.properties.user_id',
      'ai.telemetry.metadata.userId',
    ),
    tags: tagsValue,
    failed,
    error,
    rest: a.rest(),
    exception,
    error_type,
    provider,
    trace_name,
    prompt_is_message: prompt !== null && inputMessages!.some((m) => m.role === 'user'),
    first_user_message: inputMessages ? firstUserOf(inputMessages) : null,
    evaluations: evaluationsOf(span),
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
