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
      status: Type.Union([Type.Literal('up'), Type.Literal('down'), Type.Literal('full'), Type.Literal('read_only')], {
        description:
          '`up`; `down` while it does not answer; `full` (out of disk space) or `read_only` from a write that failed ' +
          'so until a write succeeds again (while so, the health check itself tries a small write every 5 s).',
      }),
      dialect: Type.String(),
      writes_failing_since: Type.Optional(
        Type.String({ format: 'date-time', description: 'With `full` or `read_only`: when writes began failing.' }),
      ),
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
