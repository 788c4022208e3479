// A support agent's run as GenAI spans of the real OpenTelemetry SDK: the root `invoke_agent support` span, and the
// steps below it, each at an explicit time from the run's start. The bench's OTLP client and the exporter tests both
// build their runs with it.
import { ROOT_CONTEXT, type Span, SpanKind, type Tracer, trace } from '@opentelemetry/api'

/** Messages as the GenAI convention writes them: one message with one text part, as JSON. */
export const genaiMessages = (role: string, text: string) =>
  JSON.stringify([{ role, parts: [{ type: 'text', content: text }] }])

/** Who asks what: the run's conversation, its user, and the question that starts it. */
export interface AgentRunOf {
  conversation: string
  user: string
  question: string
}

/**
 * Starts the root span at `base` (epoch ms). `step` starts a client span `start` ms after it, below the root or below
 * `parent`; `end` ends a span `at` ms after it.
 */
export function startAgentRun(tracer: Tracer, base: number, { conversation, user, question }: AgentRunOf) {
  const root = tracer.startSpan('invoke_agent support', {
    kind: SpanKind.SERVER,
    startTime: base,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'support',
      'gen_ai.conversation.id': conversation,
      'user.id': user,
      'gen_ai.input.messages': genaiMessages('user', question),
    },
  })
  const step = (name: string, start: number, attributes: Record<string, string | number>, parent: Span = root) =>
    tracer.startSpan(
      name,
      { kind: SpanKind.CLIENT, startTime: base + start, attributes },
      trace.setSpan(ROOT_CONTEXT, parent),
    )
  const end = (span: Span, at: number) => span.end(base + at)
  return { root, step, end }
}
