// Alert rules (a metric over a window, a threshold, a destination) and the events they give: /alerts routes' shapes.
import { type Static, Type } from '@sinclair/typebox'
import { Literals, Nullable, UtcTimestamp } from './common.js'
import { alertEventExample, alertRuleExample, alertRuleInputExample } from './examples.js'
import { ScoreNameSchema } from './score.js'

export const ALERT_METRICS = [
  'failure_rate',
  'p95_latency',
  'cost',
  'trace_count',
  'slow_requests',
  'score_mean',
] as const
export type AlertMetric = (typeof ALERT_METRICS)[number]
export const ALERT_DESTINATION_TYPES = ['webhook', 'slack'] as const
export type AlertDestinationType = (typeof ALERT_DESTINATION_TYPES)[number]
export const ALERT_STATES = ['ok', 'firing'] as const
/** Which side of the threshold fires a rule. */
export const ALERT_DIRECTIONS = ['above', 'below'] as const
export type AlertDirection = (typeof ALERT_DIRECTIONS)[number]
export const ALERT_EVENT_KINDS = ['fired', 'resolved'] as const
export type AlertEventKind = (typeof ALERT_EVENT_KINDS)[number]
export const ALERT_DELIVERIES = ['pending', 'delivered', 'failed'] as const
export type AlertDelivery = (typeof ALERT_DELIVERIES)[number]

const Metric = Literals(ALERT_METRICS, {
  description:
    'Over the window: `failure_rate` (% of traces failed), `p95_latency` (ms, nearest rank), `cost` (USD the ' +
    'traces cost, exact to the nano-dollar; unpriced traces add nothing), `trace_count`, ' +
    '`slow_requests` (traces at or over SLOW_THRESHOLD_MS), `score_mean` (the mean of the scores named `score_name` ' +
    'given in the window; a window without one changes nothing). The rule fires when the value goes above the ' +
    'threshold (`direction: below`: below it).',
})

const Direction = Literals(ALERT_DIRECTIONS, {
  default: 'above',
  description: '`above` (the default): fires when the value goes above the threshold; `below`: below it.',
})
const AlertScoreName = Type.Union([ScoreNameSchema, Type.Null()], {
  description: 'With `metric: score_mean` (and only then): the score whose mean is watched.',
})

const HttpUrl = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 })

export const AlertDestinationInput = Type.Union([
  Type.Object(
    {
      type: Type.Literal('webhook'),
      url: HttpUrl,
      secret: Type.Optional(
        Type.String({
          minLength: 16,
          maxLength: 256,
          description: 'Signs each delivery: `X-Loupe-Signature: sha256=<HMAC-SHA256 of the body, hex>`.',
        }),
      ),
    },
    { additionalProperties: false, description: 'A JSON POST of the alert event.' },
  ),
  Type.Object(
    {
      type: Type.Literal('slack'),
      url: HttpUrl,
      secret: Type.Optional(Type.String({ minLength: 16, maxLength: 256 })),
    },
    { additionalProperties: false, description: 'A Slack-compatible incoming webhook (`{ "text": … }`).' },
  ),
])

export type AlertDestinationInput = Static<typeof AlertDestinationInput>

export const AlertRuleInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    project_id: Type.Optional(Nullable(Type.String({ minLength: 1, description: 'Absent or null: every project.' }))),
    metric: Metric,
    score_name: Type.Optional(AlertScoreName),
    direction: Type.Optional(Direction),
    window_minutes: Type.Integer({ minimum: 1, maximum: 1440, description: 'The window the metric is computed over.' }),
    threshold: Type.Number({ minimum: -1e12, maximum: 1e12 }),
    destination: AlertDestinationInput,
  },
  { additionalProperties: false, examples: [alertRuleInputExample] },
)
export type AlertRuleInput = Static<typeof AlertRuleInput>

export const AlertState = Literals(ALERT_STATES)
export type AlertState = Static<typeof AlertState>

export const AlertRuleSchema = Type.Object(
  {
    rule_id: Type.String(),
    name: Type.String(),
    project_id: Nullable(Type.String()),
    metric: Metric,
    score_name: AlertScoreName,
    direction: Literals(ALERT_DIRECTIONS),
    window_minutes: Type.Integer(),
    threshold: Type.Number(),
    destination: Type.Object({
      type: Literals(ALERT_DESTINATION_TYPES),
      url: Type.String(),
      signed: Type.Boolean({ description: 'Whether deliveries are signed (the secret itself is never returned).' }),
    }),
    state: AlertState,
    last_value: Nullable(Type.Number()),
    last_evaluated_at: Nullable(UtcTimestamp),
    created_at: UtcTimestamp,
  },
  { examples: [alertRuleExample] },
)
export type AlertRule = Static<typeof AlertRuleSchema>

export const AlertRuleParams = Type.Object({ rule_id: Type.String() })

export const ListAlertRulesResponse = Type.Object(
  { items: Type.Array(AlertRuleSchema) },
  { examples: [{ items: [alertRuleExample] }] },
)
export type ListAlertRulesResponse = Static<typeof ListAlertRulesResponse>

export const AlertEventSchema = Type.Object(
  {
    event_id: Type.String(),
    rule_id: Type.String(),
    rule_name: Type.String(),
    project_id: Nullable(Type.String()),
    metric: Metric,
    kind: Literals(ALERT_EVENT_KINDS),
    value: Type.Number(),
    threshold: Type.Number(),
    at: UtcTimestamp,
    delivery: Literals(ALERT_DELIVERIES),
    attempts: Type.Integer({ minimum: 0 }),
    last_error: Nullable(Type.String()),
  },
  { examples: [alertEventExample] },
)
export type AlertEvent = Static<typeof AlertEventSchema>

export const ListAlertEventsQuery = Type.Object({
  rule_id: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
})
export type ListAlertEventsQuery = Static<typeof ListAlertEventsQuery>

export const ListAlertEventsResponse = Type.Object(
  { items: Type.Array(AlertEventSchema, { description: 'Newest first.' }) },
  { examples: [{ items: [alertEventExample] }] },
)
export type ListAlertEventsResponse = Static<typeof ListAlertEventsResponse>
