// The inputs of the MCP tools (docs/api.md, MCP): each composed from the REST query or body it asks the same question
// with, so that a filter, a bound or an enum is written once for both doors. What changes is only what a model's
// context needs: smaller default pages, and the switches between a summary and a whole body.
import { type Static, Type } from '@sinclair/typebox'
import { AnalyticsQuery, FailuresQuery } from './analytics.js'
import { LimitQuery, Literals, TraceIdSchema } from './common.js'
import { ScoreInputSchema } from './score.js'
import { ListSessionsQuery, SessionParams, SessionQuery } from './session.js'
import { MAX_STEPS } from './step.js'
import { ListTracesQuery } from './trace.js'

/**
 * How much of one text a tool shows unless asked for it whole: a trace's prompt, response, failure reason, and each
 * step's input, output and error (a structured input or output is cut as its JSON text).
 */
export const MCP_TEXT_LIMIT = 2000
/** How much of a text a list shows (a failure reason in a list, a prompt or response of a session's traces). */
export const MCP_PREVIEW_LIMIT = 300
/** Steps one `get_trace` answer lists unless told otherwise. */
export const MCP_STEP_PAGE = 100

/** A page size of a tool: the REST bounds, a default sized for a model's context. */
const ToolLimit = (fallback: number, noun: string) =>
  Type.Integer({
    minimum: LimitQuery.minimum,
    maximum: LimitQuery.maximum,
    default: fallback,
    description: `At most this many ${noun} (${LimitQuery.minimum}–${LimitQuery.maximum}, default ${fallback}).`,
  })

const FullText = Type.Boolean({
  default: false,
  description:
    `true: every text whole. false (default): each text longer than ${MCP_TEXT_LIMIT} characters is cut there, ` +
    'with a note saying how much was left out.',
})

const closed = { additionalProperties: false } as const

/** search_traces: every filter, `q`, the order and the cursor of GET /traces; always trace summaries. */
export const SearchTracesInput = Type.Composite(
  [Type.Omit(ListTracesQuery, ['fields', 'limit']), Type.Object({ limit: Type.Optional(ToolLimit(20, 'traces')) })],
  closed,
)
export type SearchTracesInput = Static<typeof SearchTracesInput>

export const TRACE_STEP_DETAILS = ['none', 'summary', 'full'] as const
export type TraceStepDetail = (typeof TRACE_STEP_DETAILS)[number]

/** get_trace: one trace, its steps in as much detail as asked. */
export const GetTraceInput = Type.Object(
  {
    trace_id: TraceIdSchema,
    steps: Type.Optional(
      Literals(TRACE_STEP_DETAILS, {
        default: 'summary',
        description:
          '`none`: no steps (their count only). `summary` (default): each step’s index, parent, name, type, tool, ' +
          'status, latency, tokens, cost and error. `full`: each step whole, with its input, output and metadata.',
      }),
    ),
    step_offset: Type.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_STEPS - 1, default: 0, description: 'Steps to skip (by position).' }),
    ),
    step_limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_STEPS,
        default: MCP_STEP_PAGE,
        description: `At most this many steps (1–${MAX_STEPS}, default ${MCP_STEP_PAGE}).`,
      }),
    ),
    full_text: Type.Optional(FullText),
  },
  closed,
)
export type GetTraceInput = Static<typeof GetTraceInput>

/** get_failures: the query of GET /failures; the lists as trace summaries. */
export const GetFailuresInput = Type.Composite(
  [Type.Omit(FailuresQuery, ['limit']), Type.Object({ limit: Type.Optional(ToolLimit(10, 'traces in each list')) })],
  closed,
)
export type GetFailuresInput = Static<typeof GetFailuresInput>

/** get_analytics: the query of GET /analytics. */
export const GetAnalyticsInput = Type.Composite([AnalyticsQuery], closed)
export type GetAnalyticsInput = Static<typeof GetAnalyticsInput>

/** list_sessions: the query of GET /sessions. */
export const ListSessionsInput = Type.Composite(
  [Type.Omit(ListSessionsQuery, ['limit']), Type.Object({ limit: Type.Optional(ToolLimit(20, 'sessions')) })],
  closed,
)
export type ListSessionsInput = Static<typeof ListSessionsInput>

/** get_session: the path and query of GET /sessions/{session_id}; its traces as summaries with their texts cut. */
export const GetSessionInput = Type.Composite(
  [
    SessionParams,
    Type.Omit(SessionQuery, ['limit']),
    Type.Object({ limit: Type.Optional(ToolLimit(20, 'traces, oldest first')), full_text: Type.Optional(FullText) }),
  ],
  closed,
)
export type GetSessionInput = Static<typeof GetSessionInput>

/** Step pairs one `compare_traces` answer lists at most (the alignment of two long traces is cut with a note). */
export const MCP_COMPARE_ROWS = 200

/** A trace id of one side of a comparison: the REST path parameter's bounds, its own description. */
const SideTraceId = (side: string) =>
  Type.String({
    pattern: TraceIdSchema.pattern,
    minLength: TraceIdSchema.minLength,
    maxLength: TraceIdSchema.maxLength,
    description: `The trace_id of ${side}.`,
  })

/** compare_traces: two traces (each as GET /traces/{trace_id} reads it), side by side. */
export const CompareTracesInput = Type.Object(
  {
    trace_a: SideTraceId('the first trace (A: the reference)'),
    trace_b: SideTraceId('the second trace (B: compared with A)'),
    full_text: Type.Optional(FullText),
  },
  closed,
)
export type CompareTracesInput = Static<typeof CompareTracesInput>

/** add_score: the body of POST /scores. */
export const AddScoreInput = Type.Composite([ScoreInputSchema], {
  ...closed,
  description: ScoreInputSchema.description,
})
export type AddScoreInput = Static<typeof AddScoreInput>
