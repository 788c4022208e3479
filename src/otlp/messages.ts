// The messages a span sent and received, read in each convention's shape: GenAI parts and events (span events or
// log records), chat messages, LangChain's serialized messages and LangGraph states, OpenInference's and OpenLLMetry's
// flattened lists, Langfuse's inputs and outputs, the Vercel AI SDK's prompt; and the prompt and answer they make.

import type { OtlpSpan } from '../../schemas/otlp.js'
import { own } from '../lib/own.js'
import { asText, byIndex, hasText, isRecord, parseJsonText } from './values.js'

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

export const toolCallsOf = (values: unknown[]): ToolCall[] =>
  values.map(toolCallOf).filter((call): call is ToolCall => call !== null)

/** A message, with its tool calls when it made any. */
export function message(role: string, content: string, calls: ToolCall[]): Message {
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
export function structuredMessages(value: unknown): { messages: Message[]; raw: unknown[] } | null {
  const parsed = parseJsonText(value)
  if (!Array.isArray(parsed)) return null
  const messages = parsed.map(structuredMessage).filter((m): m is Message => m !== null)
  return messages.length > 0 ? { messages, raw: parsed } : null
}

/**
 * What a framework passes around, opened into messages: a LangChain message, a list of messages, a LangGraph state
 * `{"messages":[…]}`, a tool's `{"output": <ToolMessage>}`. Null when the value holds none.
 */
export function frameworkMessages(value: unknown, depth = 0): Message[] | null {
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
export function openInferenceMessages(items: Record<string, unknown>[]): Message[] {
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
export function openLlmetryMessages(items: Record<string, unknown>[]): Message[] {
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
export const firstUserOf = (messages: readonly Message[]): string | null =>
  messages.find((m) => m.role === 'user')?.content ?? null

/** A message as a reader sees it: its text, else the tools it called (`get_weather({"city":"Paris"})`). */
const textOf = (m: Message): string =>
  m.content.trim() !== '' || !m.tool_calls
    ? m.content
    : m.tool_calls.map((c) => `${c.name}(${asText(c.arguments) ?? ''})`).join('\n')

/** The answer: every output message's text (usually one). */
export const responseOf = (messages: readonly Message[]): string | null =>
  messages.length > 0 ? messages.map(textOf).join('\n') : null

/** The attribute of the latest event with this name (the older GenAI conventions put content in span events). */
export function eventAttribute(span: OtlpSpan, event: string, key: string): unknown {
  return span.events.filter((e) => e.name === event && Object.hasOwn(e.attributes, key)).at(-1)?.attributes[key]
}

/** The GenAI event that carries a whole call's content (span event or log record), and its attributes. */
export const DETAILS_EVENT = 'gen_ai.client.inference.operation.details'

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
export function eventMessages(span: OtlpSpan): { input: Message[]; output: Message[] } {
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
export function systemInstructions(value: unknown): { message: Message; raw: unknown } | null {
  const parsed = parseJsonText(value)
  if (typeof parsed === 'string')
    return hasText(parsed) ? { message: message('system', parsed, []), raw: parsed } : null
  const parts = Array.isArray(parsed) ? parsed : isRecord(parsed) ? [parsed] : []
  const texts = parts.map(partText).filter((t): t is string => t !== null)
  return texts.length > 0 ? { message: message('system', texts.join('\n'), []), raw: parsed } : null
}

/** Langfuse's input or output (JSON text: a message list, one message, or anything else) as messages, or null. */
export function langfuseMessages(value: unknown): Message[] | null {
  const parsed = parseJsonText(value)
  const list = structuredMessages(
    Array.isArray(parsed) ? parsed : isRecord(parsed) && hasText(parsed.role) ? [parsed] : null,
  )
  return list?.messages ?? frameworkMessages(parsed)
}

/** The user's text in the Vercel AI SDK's `ai.prompt` (`{"system":…,"prompt":"…"}` or `{"messages":[…]}`). */
export function vercelPrompt(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return null
  const { prompt, messages } = value as Record<string, unknown>
  if (typeof prompt === 'string') return prompt
  const list = structuredMessages(prompt ?? messages)
  return list ? promptOf(list.messages) : null
}
