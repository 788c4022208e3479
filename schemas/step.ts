// StepSchema: one ordered step of a trace (a model call, a tool call, a retrieval, …), and the looser form clients send.
import { type Static, Type } from '@sinclair/typebox'
import { BOUNDS, CostUsd, LatencyMs, Nullable, TimestampInput, TokenCount, UtcTimestamp } from './common.js'
import { stepExamples, stepInputExamples } from './examples.js'

export const STEP_TYPES = ['llm', 'tool', 'retrieval', 'function', 'agent', 'other'] as const
export const StepTypeSchema = Type.Union(
  STEP_TYPES.map((t) => Type.Literal(t)),
  {
    description:
      'Kind of step (`agent`: an agent invocation, whose `name` is the agent); unknown values sent by a client become `other`.',
  },
)
export type StepType = Static<typeof StepTypeSchema>

export const StepStatusSchema = Type.Union([Type.Literal('success'), Type.Literal('failed')])
export type StepStatus = Static<typeof StepStatusSchema>

const MAX_NAME = 256
/** Steps a trace may hold. */
export const MAX_STEPS = 1000

const ParentIndex = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_STEPS - 1, description })

export const StepSchema = Type.Object(
  {
    index: Type.Integer({ minimum: 0, description: '0-based position of the step in the trace.' }),
    name: Type.String({ minLength: 1, maxLength: MAX_NAME, description: 'Name of the step.' }),
    type: StepTypeSchema,
    tool: Nullable(Type.String({ maxLength: MAX_NAME, description: 'Tool called by the step, if any.' })),
    status: StepStatusSchema,
    latency: Nullable(LatencyMs('Duration of the step in milliseconds.')),
    token_count: Nullable(TokenCount(BOUNDS.stepTokens, 'Tokens used by the step.')),
    input: Type.Unknown({ description: 'Input of the step (any JSON value).' }),
    output: Type.Unknown({ description: 'Output of the step (any JSON value).' }),
    error: Nullable(Type.String({ description: 'Error message when the step failed.' })),
    started_at: Nullable(UtcTimestamp),
    metadata: Type.Record(Type.String(), Type.Unknown(), { description: 'Free JSON object.' }),
    parent_index: Nullable(
      ParentIndex(
        '`index` of the step this one ran inside (OTLP: the parent span), null at the top level; steps form a tree.',
      ),
    ),
    cost: Nullable(
      CostUsd(
        'What the step cost: the cost the client reported, else the price of its model (`metadata.model`) times its ' +
          '`metadata.prompt_tokens` and `metadata.completion_tokens`; null when unpriced.',
      ),
    ),
  },
  {
    $id: 'StepSchema',
    additionalProperties: false,
    description: 'One ordered step of a trace.',
    examples: [stepExamples[0]],
  },
)
export type Step = Static<typeof StepSchema>

const NonNegative = (description: string) => Type.Optional(Nullable(LatencyMs(description)))
const NonNegativeInt = (description: string) => Type.Optional(Nullable(TokenCount(BOUNDS.stepTokens, description)))

/**
 * A step as a client sends it. Aliases are accepted and folded by normalization
 * (`tool_name`→`tool`, `duration`/`duration_ms`/`latency_ms`→`latency`, `tokens`/`total_tokens`→`token_count`),
 * status words are mapped, `index` is always reassigned from the order.
 */
export const StepInputSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: MAX_NAME, description: 'Defaults to the tool name, else the type.' })),
    type: Type.Optional(Type.String({ maxLength: 64 })),
    tool: Type.Optional(Nullable(Type.String({ maxLength: MAX_NAME }))),
    tool_name: Type.Optional(Nullable(Type.String({ maxLength: MAX_NAME, description: 'Alias of `tool`.' }))),
    status: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 64,
          description:
            '`success`/`ok`/`completed`/`done` or `failed`/`error`/`failure`/`fail`/`errored`; missing = `success` unless `error` is set.',
        }),
      ),
    ),
    latency: NonNegative('Milliseconds.'),
    duration: NonNegative('Alias of `latency`.'),
    duration_ms: NonNegative('Alias of `latency`.'),
    latency_ms: NonNegative('Alias of `latency`.'),
    token_count: NonNegativeInt('Tokens used by the step.'),
    tokens: NonNegativeInt('Alias of `token_count`.'),
    total_tokens: NonNegativeInt('Alias of `token_count`.'),
    cost: Type.Optional(Nullable(CostUsd('What the step cost, when the client knows it.'))),
    input: Type.Optional(Type.Unknown()),
    output: Type.Optional(Type.Unknown()),
    error: Type.Optional(Nullable(Type.String())),
    started_at: Type.Optional(Nullable(TimestampInput)),
    metadata: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
    parent_index: Type.Optional(
      Nullable(
        ParentIndex(
          'Position (0-based) of the step this one ran inside; missing or null = top level. Must name another step ' +
            'of the trace, without cycles.',
        ),
      ),
    ),
  },
  {
    $id: 'StepInputSchema',
    description: 'A step as sent by a client (aliases accepted).',
    examples: [stepInputExamples[0]],
  },
)
export type StepInput = Static<typeof StepInputSchema>
