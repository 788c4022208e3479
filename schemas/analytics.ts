// Analytics and failures shapes.
import { type Static, Type } from '@sinclair/typebox'
import { LimitQuery, Nullable, Ref } from './common.js'
import {
  analyticsExample,
  analyticsSummaryExample,
  breakdownEntryExample,
  callBreakdownEntryExample,
  chartPointExample,
  costBreakdownEntryExample,
  failuresExample,
} from './examples.js'
import { ScoreAnalyticsSchema } from './score.js'
import { TraceSchema } from './trace.js'

export const AnalyticsSummarySchema = Type.Object(
  {
    total_traces: Type.Integer(),
    success_rate: Type.Number({ description: '100 × success / total, 2 decimals; 0 when empty.' }),
    average_latency: Type.Number({ description: 'Mean latency in ms, 2 decimals; 0 when empty.' }),
    p95_latency: Type.Number({ description: 'Exact nearest-rank 95th percentile of latency in ms.' }),
    total_token_usage: Type.Integer(),
    traces_without_tokens: Type.Integer({
      description:
        'Traces whose token count nothing reported (`tokens_reported` false); each adds 0 to total_token_usage.',
    }),
    failed_traces: Type.Integer(),
    warning_traces: Type.Integer(),
    retries: Type.Integer({ description: 'Traces with retry_count > 0.' }),
    slow_requests: Type.Integer({ description: 'Traces with latency ≥ the slow threshold (ms).' }),
    total_cost: Type.Number({ description: 'Σ cost of the priced traces, USD (exact to the nano-dollar).' }),
    unpriced_traces: Type.Integer({ description: 'Traces without a cost (no reported cost, no known price).' }),
  },
  { $id: 'AnalyticsSummarySchema', additionalProperties: false, examples: [analyticsSummaryExample] },
)
export type AnalyticsSummary = Static<typeof AnalyticsSummarySchema>

export const ChartPointSchema = Type.Object(
  {
    label: Type.String({ description: 'Bucket start, `HH:MM` in UTC.' }),
    latency: Type.Number({ description: 'Mean latency in ms, 2 decimals.' }),
    tokens: Type.Integer(),
    traces: Type.Integer(),
    cost: Type.Number({ description: 'Σ cost of the priced traces in the bucket, USD.' }),
  },
  { $id: 'ChartPointSchema', additionalProperties: false, examples: [chartPointExample] },
)
export type ChartPoint = Static<typeof ChartPointSchema>

export const BreakdownEntrySchema = Type.Object(
  { key: Type.String(), count: Type.Integer() },
  { $id: 'BreakdownEntrySchema', additionalProperties: false, examples: [breakdownEntryExample] },
)
export type BreakdownEntry = Static<typeof BreakdownEntrySchema>

export const CostBreakdownEntrySchema = Type.Object(
  {
    key: Type.String({ description: 'Model name; a trace without a model counts as `unknown`.' }),
    cost: Type.Number({ description: 'Σ cost of its priced traces, USD.' }),
    count: Type.Integer({ description: 'Its traces.' }),
    unpriced: Type.Integer({ description: 'Of them, traces without a cost.' }),
  },
  { $id: 'CostBreakdownEntrySchema', additionalProperties: false, examples: [costBreakdownEntryExample] },
)
export type CostBreakdownEntry = Static<typeof CostBreakdownEntrySchema>

export const CallBreakdownEntrySchema = Type.Object(
  {
    key: Type.String({
      description: 'The agent’s name (a step of type `agent`), or the tool’s (a `tool` step’s `tool`).',
    }),
    traces: Type.Integer({ description: 'Traces with a call of it.' }),
    calls: Type.Integer({ description: 'Its calls: the steps invoking it.' }),
    failures: Type.Integer({ description: 'Of them, steps with status `failed`.' }),
    mean_latency: Nullable(
      Type.Number({ description: 'Mean latency of its calls that report one, ms, 2 decimals; null when none does.' }),
    ),
  },
  { $id: 'CallBreakdownEntrySchema', additionalProperties: false, examples: [callBreakdownEntryExample] },
)
export type CallBreakdownEntry = Static<typeof CallBreakdownEntrySchema>

// GET /analytics
export const AnalyticsQuery = Type.Object({
  project_id: Type.Optional(Type.String({ description: 'Only this project.' })),
})
export type AnalyticsQuery = Static<typeof AnalyticsQuery>

export const AnalyticsResponse = Type.Object(
  {
    summary: Ref(AnalyticsSummarySchema),
    charts: Type.Array(Ref(ChartPointSchema), { description: 'The last 24 hours, 1-hour UTC buckets, oldest first.' }),
    status_breakdown: Type.Array(Ref(BreakdownEntrySchema)),
    model_breakdown: Type.Array(Ref(BreakdownEntrySchema), {
      description: 'A trace without a model counts as `unknown`.',
    }),
    project_breakdown: Type.Array(Ref(BreakdownEntrySchema)),
    cost_breakdown: Type.Array(Ref(CostBreakdownEntrySchema), {
      description: 'Per model with traces: cost desc, then traces desc, then model asc.',
    }),
    agent_breakdown: Type.Array(Ref(CallBreakdownEntrySchema), {
      description: 'Per agent invoked by a step (type `agent`): calls desc, then name asc.',
    }),
    tool_breakdown: Type.Array(Ref(CallBreakdownEntrySchema), {
      description: 'Per tool called by a step (type `tool`): calls desc, then name asc.',
    }),
    recent_failures: Type.Array(Ref(TraceSchema), { description: 'The 10 newest failed traces.' }),
    scores: Type.Array(Ref(ScoreAnalyticsSchema), {
      description: 'Per score name and data type, name ascending: the scores given to the project’s traces.',
    }),
  },
  { examples: [analyticsExample] },
)
export type AnalyticsResponse = Static<typeof AnalyticsResponse>
/** What the trace store answers of /analytics: everything but the scores, which the score store counts. */
export type TraceAnalytics = Omit<AnalyticsResponse, 'scores'>

// GET /failures
export const FailuresQuery = Type.Object({
  limit: Type.Optional(LimitQuery),
  project_id: Type.Optional(Type.String()),
})
export type FailuresQuery = Static<typeof FailuresQuery>

export const FailureTotalsSchema = Type.Object({
  failed_traces: Type.Integer(),
  retries: Type.Integer(),
  slow_requests: Type.Integer(),
})
export type FailureTotals = Static<typeof FailureTotalsSchema>

export const FailuresResponse = Type.Object(
  {
    failed_traces: Type.Array(Ref(TraceSchema), { description: 'status `failed`, newest first.' }),
    retries: Type.Array(Ref(TraceSchema), { description: 'retry_count > 0, newest first.' }),
    slow_requests: Type.Array(Ref(TraceSchema), { description: 'latency ≥ the slow threshold, newest first.' }),
    totals: FailureTotalsSchema,
  },
  { examples: [failuresExample] },
)
export type FailuresResponse = Static<typeof FailuresResponse>
