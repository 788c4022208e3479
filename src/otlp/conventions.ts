// What one span means for Loupe, read from its attributes (and its events, log records folded in among them) by the
// semantic conventions LLM instrumentations use, in this order of precedence: OpenTelemetry GenAI (`gen_ai.*`, in
// attribute and event forms), Langfuse's SDK (`langfuse.*`), OpenInference (`llm.*`, `input.value`,
// `openinference.span.kind`, …), OpenLLMetry's older names (`gen_ai.prompt.N.content`, `traceloop.*`, …), and last
// the Vercel AI SDK's own `ai.*` names. LangChain's messages (serialized `lc` constructors, `{messages: […]}` states)
// are opened into roles and text wherever they appear. Attributes no rule reads are kept, untouched, for the metadata.
// The messages are read in messages.ts, the values in values.ts, the declared step types in step-types.ts.

import { BOUNDS } from '../../schemas/common.js'
import type { OtlpSpan } from '../../schemas/otlp.js'
import type { StepType } from '../../schemas/step.js'
import {
  DETAILS_EVENT,
  eventAttribute,
  eventMessages,
  firstUserOf,
  frameworkMessages,
  langfuseMessages,
  type Message,
  message,
  openInferenceMessages,
  openLlmetryMessages,
  promptOf,
  responseOf,
  structuredMessages,
  systemInstructions,
  toolCallsOf,
  vercelPrompt,
} from './messages.js'
import { agentName, graphNode, stepType } from './step-types.js'
import { AttributeReader, asCount, asText, asUsd, hasText, isRecord, oneOrList, parseJsonText } from './values.js'

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
  /** An agent step's agent (`gen_ai.agent.name`, the entity, else the span's name); null for any other type. */
  agent_name: string | null
  /** The LangGraph node the span runs (its own span, not a call inside it), else null. */
  graph_node: string | null
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

/** The OpenTelemetry GenAI event that carries an evaluation (on a span, or as a log record folded into its span). */
export const EVALUATION_EVENT = 'gen_ai.evaluation.result'

/** `gen_ai.evaluation.result` events, with what each judged, in the span's event order. */
function evaluationsOf(span: OtlpSpan): Evaluation[] {
  return span.events
    .filter((event) => event.name === EVALUATION_EVENT)
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
    agent_name: type === 'agent' ? agentName(a, span.name) : null,
    graph_node: graphNode(a, span.name),
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
