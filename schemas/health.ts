// Health check shapes.
import { type Static, Type } from '@sinclair/typebox'
import { healthExample, rootExample } from './examples.js'

// GET /
export const RootResponse = Type.Object({ message: Type.String() }, { examples: [rootExample] })

// GET /health
export const HealthResponse = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    version: Type.String({ description: 'API version (package semver).' }),
    uptime_seconds: Type.Number(),
    database: Type.Object({
      status: Type.Union([Type.Literal('up'), Type.Literal('down')]),
      dialect: Type.String(),
    }),
    otlp: Type.Optional(
      Type.Object({
        failed_traces: Type.Integer({
          description:
            'OTLP traces whose spans could not be stored as a trace: their spans are kept and tried again (see the log).',
        }),
        unmatched_log_records: Type.Integer({
          description:
            'OTLP GenAI log records since the server started that were not folded into any span: their span never ' +
            'arrived within the pending window, they named no span, or they came after their trace was stored (each ' +
            'is logged; `loupe_otlp_log_records_unmatched_total` counts them by reason).',
        }),
      }),
    ),
    statusCode: Type.Optional(Type.Integer({ description: 'On 503: the error fields every error carries.' })),
    error: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
    code: Type.Optional(Type.String()),
  },
  { examples: [healthExample] },
)
export type HealthResponse = Static<typeof HealthResponse>
