// OTLP/HTTP trace ingest (POST /v1/traces): the documented request and response (JSON encoding), and the decoded
// span Loupe keeps until its trace is stored.
import { type Static, type TSchema, Type } from '@sinclair/typebox'
import { Nullable } from './common.js'
import { otlpLogsRequestExample, otlpLogsResponseExample, otlpRequestExample, otlpResponseExample } from './examples.js'

const hexId = (bytes: number, description: string) =>
  Type.String({
    pattern: `^[0-9a-f]{${bytes * 2}}$`,
    description: `${description}: ${bytes * 2} lower-case hex digits.`,
  })

/** Attributes with their OTLP `AnyValue` wrappers removed. */
const Attributes = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'Attributes as plain JSON: strings, booleans, numbers (64-bit integers beyond 2^53 as decimal strings), arrays, ' +
    'objects for key-value lists, base64 strings for bytes.',
})

/**
 * One span as Loupe reads it from an export (protobuf or JSON alike), kept in the pending-span table until its trace
 * is materialized. Times are epoch milliseconds with a microsecond fraction; 0 when the exporter sent none.
 */
export const OtlpSpanSchema = Type.Object(
  {
    trace_id: hexId(16, 'Trace id'),
    span_id: hexId(8, 'Span id'),
    parent_span_id: Nullable(hexId(8, 'Parent span id')),
    parent_is_remote: Type.Boolean({ description: 'The parent lives in another process (OTLP span flags).' }),
    name: Type.String(),
    kind: Type.Integer({ minimum: 0, maximum: 5, description: 'OTLP SpanKind: 0 unspecified … 5 consumer.' }),
    start_ms: Type.Number({ minimum: 0 }),
    end_ms: Type.Number({ minimum: 0 }),
    attributes: Attributes,
    events: Type.Array(
      Type.Object({
        name: Type.String(),
        time_ms: Type.Number({ minimum: 0 }),
        attributes: Attributes,
        body: Type.Optional(
          Type.Unknown({ description: 'Only on an event that came as a log record (POST /v1/logs): its body.' }),
        ),
      }),
    ),
    status_code: Type.Integer({ minimum: 0, maximum: 2, description: '0 unset, 1 ok, 2 error.' }),
    status_message: Type.String(),
    resource: Attributes,
    scope: Type.Object({ name: Type.String(), version: Type.String() }),
  },
  { additionalProperties: false },
)
export type OtlpSpan = Static<typeof OtlpSpanSchema>

/**
 * One GenAI log record (POST /v1/logs) as Loupe reads it, kept beside the pending spans of its trace until the trace
 * is materialized; then it is folded into the span it names. `event_name` is the LogRecord's `event_name`, else its
 * `event.name` attribute; `body` is the record's body as plain JSON.
 */
export const OtlpLogRecordSchema = Type.Object(
  {
    record: Type.Literal('log'),
    trace_id: hexId(16, 'Trace id'),
    span_id: hexId(8, 'Span id of the span the record belongs to'),
    event_name: Type.String(),
    time_ms: Type.Number({ minimum: 0 }),
    attributes: Attributes,
    body: Type.Unknown(),
  },
  { additionalProperties: false },
)
export type OtlpLogRecord = Static<typeof OtlpLogRecordSchema>

// POST /v1/traces — the JSON form of the request, for the documentation; the protobuf form has the same fields.
const Int64 = Type.Union([Type.String({ pattern: '^[0-9]+$' }), Type.Integer({ minimum: 0 })], {
  description: '64-bit integer: a decimal string or a number.',
})
const KeyValue = Type.Object({
  key: Type.String(),
  value: Type.Unknown({
    description:
      'AnyValue: one of `stringValue`, `boolValue`, `intValue`, `doubleValue`, `arrayValue: { values }`, ' +
      '`kvlistValue: { values }`, `bytesValue` (base64).',
  }),
})
const KeyValues = Type.Array(KeyValue)

const OtlpJsonSpan = Type.Object({
  traceId: Type.String({ description: '32 hex digits (not base64).' }),
  spanId: Type.String({ description: '16 hex digits.' }),
  parentSpanId: Type.Optional(Type.String({ description: '16 hex digits; empty or absent for a root span.' })),
  name: Type.String(),
  kind: Type.Optional(Type.Integer({ minimum: 0, maximum: 5 })),
  startTimeUnixNano: Int64,
  endTimeUnixNano: Int64,
  attributes: Type.Optional(KeyValues),
  events: Type.Optional(
    Type.Array(Type.Object({ timeUnixNano: Int64, name: Type.String(), attributes: Type.Optional(KeyValues) })),
  ),
  status: Type.Optional(
    Type.Object({
      code: Type.Optional(Type.Integer({ minimum: 0, maximum: 2, description: '0 unset, 1 ok, 2 error.' })),
      message: Type.Optional(Type.String()),
    }),
  ),
  flags: Type.Optional(Type.Integer({ description: 'Bits 8 and 9 say whether the parent is remote.' })),
})

/**
 * An OTLP/JSON export: resources, each with scopes, each with its items (spans or log records). The same nesting
 * serves both signals, under their own names.
 */
function exportRequest<T extends TSchema>(
  names: { resource: string; scope: string; items: string },
  item: T,
  options: { examples: unknown[]; description: string },
) {
  const scope = Type.Object({
    scope: Type.Optional(Type.Object({ name: Type.Optional(Type.String()), version: Type.Optional(Type.String()) })),
    [names.items]: Type.Optional(Type.Array(item)),
  })
  const resource = Type.Object({
    resource: Type.Optional(Type.Object({ attributes: Type.Optional(KeyValues) })),
    [names.scope]: Type.Optional(Type.Array(scope)),
  })
  return Type.Object({ [names.resource]: Type.Optional(Type.Array(resource)) }, options)
}

export const OtlpExportRequest = exportRequest(
  { resource: 'resourceSpans', scope: 'scopeSpans', items: 'spans' },
  OtlpJsonSpan,
  {
    examples: [otlpRequestExample],
    description:
      'ExportTraceServiceRequest (OTLP/HTTP), as protobuf (`application/x-protobuf`) or JSON (`application/json`), ' +
      'optionally with `Content-Encoding: gzip`. Spans are checked one by one: a bad span is rejected in ' +
      '`partialSuccess`, the others are kept.',
  },
)

/** An export answer: `partialSuccess` with how many `what` were not kept (`count`) and why, per OTLP's signal. */
function exportResponse(count: string, what: string, options: { examples: unknown[]; description: string }) {
  return Type.Object(
    {
      partialSuccess: Type.Optional(
        Type.Object({
          [count]: Type.String({
            description: `${what} not kept (int64, as OTLP/JSON writes it: a decimal string).`,
          }),
          errorMessage: Type.String({ description: 'Why they were rejected.' }),
        }),
      ),
    },
    options,
  )
}

export const OtlpExportResponse = exportResponse('rejectedSpans', 'Spans', {
  examples: [otlpResponseExample],
  description:
    'ExportTraceServiceResponse in the encoding of the request. Without `partialSuccess` every span was kept ' +
    '(re-sent spans count as kept).',
})
export type OtlpExportResponse = Static<typeof OtlpExportResponse>

// POST /v1/logs — the JSON form of the request, for the documentation; the protobuf form has the same fields.
const OtlpJsonLogRecord = Type.Object({
  timeUnixNano: Type.Optional(Int64),
  observedTimeUnixNano: Type.Optional(Int64),
  severityNumber: Type.Optional(Type.Integer()),
  severityText: Type.Optional(Type.String()),
  eventName: Type.Optional(Type.String({ description: 'The event (LogRecord field 12); else `event.name`.' })),
  body: Type.Optional(Type.Unknown({ description: 'AnyValue.' })),
  attributes: Type.Optional(KeyValues),
  traceId: Type.Optional(Type.String({ description: '32 hex digits: the trace of the span the record belongs to.' })),
  spanId: Type.Optional(Type.String({ description: '16 hex digits: the span the record belongs to.' })),
})

export const OtlpLogsExportRequest = exportRequest(
  { resource: 'resourceLogs', scope: 'scopeLogs', items: 'logRecords' },
  OtlpJsonLogRecord,
  {
    examples: [otlpLogsRequestExample],
    description:
      'ExportLogsServiceRequest (OTLP/HTTP), as protobuf (`application/x-protobuf`) or JSON (`application/json`), ' +
      'optionally with `Content-Encoding: gzip`. GenAI event records (`gen_ai.*`, named by `eventName` or the ' +
      '`event.name` attribute) that name a span are kept beside the spans of their trace; other records are ' +
      'accepted and ignored.',
  },
)

export const OtlpLogsExportResponse = exportResponse('rejectedLogRecords', 'Log records', {
  examples: [otlpLogsResponseExample],
  description:
    'ExportLogsServiceResponse in the encoding of the request. Without `partialSuccess` every record was accepted ' +
    '(re-sent records and records that are not GenAI events count as accepted).',
})
