// OTLP/HTTP trace ingest (POST /v1/traces): the documented request and response (JSON encoding), and the decoded
// span Loupe keeps until its trace is stored.
import { type Static, Type } from '@sinclair/typebox'
import { Nullable } from './common.js'
import { otlpRequestExample, otlpResponseExample } from './examples.js'

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
      Type.Object({ name: Type.String(), time_ms: Type.Number({ minimum: 0 }), attributes: Attributes }),
    ),
    status_code: Type.Integer({ minimum: 0, maximum: 2, description: '0 unset, 1 ok, 2 error.' }),
    status_message: Type.String(),
    resource: Attributes,
    scope: Type.Object({ name: Type.String(), version: Type.String() }),
  },
  { additionalProperties: false },
)
export type OtlpSpan = Static<typeof OtlpSpanSchema>

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

export const OtlpExportRequest = Type.Object(
  {
    resourceSpans: Type.Optional(
      Type.Array(
        Type.Object({
          resource: Type.Optional(Type.Object({ attributes: Type.Optional(KeyValues) })),
          scopeSpans: Type.Optional(
            Type.Array(
              Type.Object({
                scope: Type.Optional(
                  Type.Object({ name: Type.Optional(Type.String()), version: Type.Optional(Type.String()) }),
                ),
                spans: Type.Optional(Type.Array(OtlpJsonSpan)),
              }),
            ),
          ),
        }),
      ),
    ),
  },
  {
    examples: [otlpRequestExample],
    description:
      'ExportTraceServiceRequest (OTLP/HTTP), as protobuf (`application/x-protobuf`) or JSON (`application/json`), ' +
      'optionally with `Content-Encoding: gzip`. Spans are checked one by one: a bad span is rejected in ' +
      '`partialSuccess`, the others are kept.',
  },
)

export const OtlpExportResponse = Type.Object(
  {
    partialSuccess: Type.Optional(
      Type.Object({
        rejectedSpans: Type.String({
          description: 'Spans not kept (int64, as OTLP/JSON writes it: a decimal string).',
        }),
        errorMessage: Type.String({ description: 'Why they were rejected.' }),
      }),
    ),
  },
  {
    examples: [otlpResponseExample],
    description:
      'ExportTraceServiceResponse in the encoding of the request. Without `partialSuccess` every span was kept ' +
      '(re-sent spans count as kept).',
  },
)
export type OtlpExportResponse = Static<typeof OtlpExportResponse>
