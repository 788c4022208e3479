// The OTLP messages Loupe reads and writes, as a protobufjs descriptor written from the OTLP specification
// (opentelemetry-proto: common/v1, resource/v1, trace/v1, logs/v1, collector/trace/v1, collector/logs/v1) plus
// google.rpc.Status for errors. Only what the trace and log signals need; fields a newer exporter adds are skipped by
// the decoder, as protobuf intends.
import protobuf from 'protobufjs'

const KeyValue = 'opentelemetry.proto.common.v1.KeyValue'
const repeated = (type: string, id: number) => ({ rule: 'repeated', type, id })
/**
 * A string field, decoded as a UTF-8 decoder does: bytes that are not UTF-8 (a JavaScript exporter writes a lone
 * surrogate as ED A0 80) become U+FFFD. protobufjs would otherwise refuse the whole export for one such attribute,
 * losing every good span in it.
 */
const text = (id: number) => ({ type: 'string', id, options: { features: { utf8_validation: 'NONE' } } })

const descriptor = {
  nested: {
    opentelemetry: {
      nested: {
        proto: {
          nested: {
            common: {
              nested: {
                v1: {
                  nested: {
                    AnyValue: {
                      oneofs: {
                        value: {
                          oneof: [
                            'stringValue',
                            'boolValue',
                            'intValue',
                            'doubleValue',
                            'arrayValue',
                            'kvlistValue',
                            'bytesValue',
                          ],
                        },
                      },
                      fields: {
                        stringValue: text(1),
                        boolValue: { type: 'bool', id: 2 },
                        intValue: { type: 'int64', id: 3 },
                        doubleValue: { type: 'double', id: 4 },
                        arrayValue: { type: 'ArrayValue', id: 5 },
                        kvlistValue: { type: 'KeyValueList', id: 6 },
                        bytesValue: { type: 'bytes', id: 7 },
                      },
                    },
                    ArrayValue: { fields: { values: repeated('AnyValue', 1) } },
                    KeyValueList: { fields: { values: repeated('KeyValue', 1) } },
                    KeyValue: { fields: { key: text(1), value: { type: 'AnyValue', id: 2 } } },
                    InstrumentationScope: {
                      fields: {
                        name: text(1),
                        version: text(2),
                        attributes: repeated('KeyValue', 3),
                        droppedAttributesCount: { type: 'uint32', id: 4 },
                      },
                    },
                  },
                },
              },
            },
            resource: {
              nested: {
                v1: {
                  nested: {
                    Resource: {
                      fields: {
                        attributes: repeated(KeyValue, 1),
                        droppedAttributesCount: { type: 'uint32', id: 2 },
                      },
                    },
                  },
                },
              },
            },
            trace: {
              nested: {
                v1: {
                  nested: {
                    ResourceSpans: {
                      fields: {
                        resource: { type: 'opentelemetry.proto.resource.v1.Resource', id: 1 },
                        scopeSpans: repeated('ScopeSpans', 2),
                        schemaUrl: text(3),
                      },
                    },
                    ScopeSpans: {
                      fields: {
                        scope: { type: 'opentelemetry.proto.common.v1.InstrumentationScope', id: 1 },
                        spans: repeated('Span', 2),
                        schemaUrl: text(3),
                      },
                    },
                    Span: {
                      fields: {
                        traceId: { type: 'bytes', id: 1 },
                        spanId: { type: 'bytes', id: 2 },
                        traceState: text(3),
                        parentSpanId: { type: 'bytes', id: 4 },
                        flags: { type: 'fixed32', id: 16 },
                        name: text(5),
                        kind: { type: 'SpanKind', id: 6 },
                        startTimeUnixNano: { type: 'fixed64', id: 7 },
                        endTimeUnixNano: { type: 'fixed64', id: 8 },
                        attributes: repeated(KeyValue, 9),
                        droppedAttributesCount: { type: 'uint32', id: 10 },
                        events: repeated('Event', 11),
                        droppedEventsCount: { type: 'uint32', id: 12 },
                        links: repeated('Link', 13),
                        droppedLinksCount: { type: 'uint32', id: 14 },
                        status: { type: 'Status', id: 15 },
                      },
                      nested: {
                        SpanKind: {
                          values: {
                            SPAN_KIND_UNSPECIFIED: 0,
                            SPAN_KIND_INTERNAL: 1,
                            SPAN_KIND_SERVER: 2,
                            SPAN_KIND_CLIENT: 3,
                            SPAN_KIND_PRODUCER: 4,
                            SPAN_KIND_CONSUMER: 5,
                          },
                        },
                        Event: {
                          fields: {
                            timeUnixNano: { type: 'fixed64', id: 1 },
                            name: text(2),
                            attributes: repeated(KeyValue, 3),
                            droppedAttributesCount: { type: 'uint32', id: 4 },
                          },
                        },
                        Link: {
                          fields: {
                            traceId: { type: 'bytes', id: 1 },
                            spanId: { type: 'bytes', id: 2 },
                            traceState: text(3),
                            attributes: repeated(KeyValue, 4),
                            droppedAttributesCount: { type: 'uint32', id: 5 },
                            flags: { type: 'fixed32', id: 6 },
                          },
                        },
                      },
                    },
                    Status: {
                      fields: { message: text(2), code: { type: 'StatusCode', id: 3 } },
                      nested: {
                        StatusCode: { values: { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 } },
                      },
                    },
                  },
                },
              },
            },
            logs: {
              nested: {
                v1: {
                  nested: {
                    ResourceLogs: {
                      fields: {
                        resource: { type: 'opentelemetry.proto.resource.v1.Resource', id: 1 },
                        scopeLogs: repeated('ScopeLogs', 2),
                        schemaUrl: { type: 'string', id: 3 },
                      },
                    },
                    ScopeLogs: {
                      fields: {
                        scope: { type: 'opentelemetry.proto.common.v1.InstrumentationScope', id: 1 },
                        logRecords: repeated('LogRecord', 2),
                        schemaUrl: { type: 'string', id: 3 },
                      },
                    },
                    LogRecord: {
                      fields: {
                        timeUnixNano: { type: 'fixed64', id: 1 },
                        observedTimeUnixNano: { type: 'fixed64', id: 11 },
                        // SeverityNumber: an enum on the wire, read as its number.
                        severityNumber: { type: 'int32', id: 2 },
                        severityText: { type: 'string', id: 3 },
                        body: { type: 'opentelemetry.proto.common.v1.AnyValue', id: 5 },
                        attributes: repeated(KeyValue, 6),
                        droppedAttributesCount: { type: 'uint32', id: 7 },
                        flags: { type: 'fixed32', id: 8 },
                        traceId: { type: 'bytes', id: 9 },
                        spanId: { type: 'bytes', id: 10 },
                        eventName: { type: 'string', id: 12 },
                      },
                    },
                  },
                },
              },
            },
            collector: {
              nested: {
                logs: {
                  nested: {
                    v1: {
                      nested: {
                        ExportLogsServiceRequest: {
                          fields: { resourceLogs: repeated('opentelemetry.proto.logs.v1.ResourceLogs', 1) },
                        },
                        ExportLogsServiceResponse: {
                          fields: { partialSuccess: { type: 'ExportLogsPartialSuccess', id: 1 } },
                        },
                        ExportLogsPartialSuccess: {
                          fields: {
                            rejectedLogRecords: { type: 'int64', id: 1 },
                            errorMessage: { type: 'string', id: 2 },
                          },
                        },
                      },
                    },
                  },
                },
                trace: {
                  nested: {
                    v1: {
                      nested: {
                        ExportTraceServiceRequest: {
                          fields: { resourceSpans: repeated('opentelemetry.proto.trace.v1.ResourceSpans', 1) },
                        },
                        ExportTraceServiceResponse: {
                          fields: { partialSuccess: { type: 'ExportTracePartialSuccess', id: 1 } },
                        },
                        ExportTracePartialSuccess: {
                          fields: { rejectedSpans: { type: 'int64', id: 1 }, errorMessage: text(2) },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    // The error body OTLP/HTTP asks for; its `details` (repeated Any, field 3) are never sent, so not declared.
    google: {
      nested: {
        rpc: { nested: { Status: { fields: { code: { type: 'int32', id: 1 }, message: text(2) } } } },
      },
    },
  },
}

const root = protobuf.Root.fromJSON(descriptor).resolveAll()
const ExportRequest = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest')
const ExportResponse = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse')
const ExportLogsRequest = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest')
const ExportLogsResponse = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse')
const RpcStatus = root.lookupType('google.rpc.Status')

/** The two signals Loupe receives: what their export request is called, and the messages that carry it. */
export type OtlpSignal = 'traces' | 'logs'
export const SIGNAL_REQUEST_NAMES: Record<OtlpSignal, string> = {
  traces: 'ExportTraceServiceRequest',
  logs: 'ExportLogsServiceRequest',
}
const REQUESTS: Record<OtlpSignal, protobuf.Type> = { traces: ExportRequest, logs: ExportLogsRequest }

/**
 * An ExportTraceServiceRequest as protobufjs decodes it, read as is by decode.ts (no plain-object copy: under OTLP
 * ingest that copy was a third of what decoding allocated). Fields have their JSON names; a field the message carries
 * is an own property, an absent one only the prototype's default; ids are bytes, enums numbers, 64-bit integers
 * Long (isLong). Throws when the bytes are not such a message.
 */
export function decodeExportRequest(bytes: Uint8Array, signal: OtlpSignal = 'traces'): Record<string, unknown> {
  return REQUESTS[signal].decode(bytes) as unknown as Record<string, unknown>
}

/** A 64-bit integer as the protobuf decoder gives it (never a value parsed from JSON). */
export interface Long {
  low: number
  high: number
  unsigned: boolean
  toString(): string
}

const LongClass = protobuf.util.Long as unknown as (new (...args: never[]) => Long) | null

/** Whether `value` is a 64-bit integer from the protobuf decoder. */
export const isLong = (value: unknown): value is Long => LongClass !== null && value instanceof LongClass

/** The wire type each scalar is encoded with; messages, strings and bytes are length-delimited (2). */
const wireTypeOf = (field: protobuf.Field): number =>
  field.resolvedType instanceof protobuf.Type
    ? 2
    : field.resolvedType instanceof protobuf.Enum
      ? 0
      : ((protobuf.types.basic as Record<string, number | undefined>)[field.type] ?? 2)

/**
 * Where bytes that protobufjs refused stop being an ExportTraceServiceRequest, as the path of the field in the
 * OTLP/JSON names (`body/resourceSpans/0/scopeSpans/0/spans/2/startTimeUnixNano: …`), so that a 400 names the
 * field the way a JSON body's does. Walks the message with the reflection protobufjs already holds; null when the
 * walk finds nothing wrong (the decoder's own message is then the best there is).
 */
export function locateDecodeError(bytes: Uint8Array, signal: OtlpSignal = 'traces'): string | null {
  return locateIn(REQUESTS[signal], bytes, 'body')
}

function locateIn(type: protobuf.Type, bytes: Uint8Array, at: string): string | null {
  const reader = protobuf.Reader.create(bytes)
  const seen = new Map<number, number>()
  while (reader.pos < reader.len) {
    let tag: number
    try {
      tag = reader.uint32()
    } catch {
      return `${at}: truncated field tag`
    }
    const id = tag >>> 3
    const wire = tag & 7
    const field = type.fieldsById[id]
    const index = seen.get(id) ?? 0
    seen.set(id, index + 1)
    const path = field ? `${at}/${field.name}${field.repeated ? `/${index}` : ''}` : `${at}/<field ${id}>`
    if (id === 0) return `${at}: field number 0 is not allowed`
    const packed = field?.repeated === true && wire === 2 && wireTypeOf(field) !== 2
    if (field && wire !== wireTypeOf(field) && !packed) {
      return `${path}: wire type ${wire}, expected ${wireTypeOf(field)} (${field.type})`
    }
    try {
      if (wire === 2) {
        const length = reader.uint32()
        if (reader.pos + length > reader.len) return `${path}: length ${length} runs past the end of its message`
        const inner = reader.buf.subarray(reader.pos, reader.pos + length)
        reader.pos += length
        if (field?.resolvedType instanceof protobuf.Type) {
          const found = locateIn(field.resolvedType, inner, path)
          if (found) return found
        }
      } else {
        reader.skipType(wire)
      }
    } catch (err) {
      const message = (err as Error).message
      return `${path}: ${message.startsWith('index out of range') ? 'the message ends inside this field' : message}`
    }
  }
  return null
}

/** An ExportTraceServiceResponse; no partial success is an empty message (all spans accepted). */
export function encodeExportResponse(partialSuccess?: { rejectedSpans: number; errorMessage: string }): Uint8Array {
  return ExportResponse.encode(ExportResponse.fromObject(partialSuccess ? { partialSuccess } : {})).finish()
}

/** An ExportLogsServiceResponse; no partial success is an empty message (all records accepted). */
export function encodeLogsExportResponse(partialSuccess?: {
  rejectedLogRecords: number
  errorMessage: string
}): Uint8Array {
  return ExportLogsResponse.encode(ExportLogsResponse.fromObject(partialSuccess ? { partialSuccess } : {})).finish()
}

/** A google.rpc.Status, the body OTLP/HTTP clients read from a protobuf error response. */
export function encodeRpcStatus(code: number, message: string): Uint8Array {
  return RpcStatus.encode(RpcStatus.fromObject({ code, message })).finish()
}

/** google.rpc.Code for an HTTP error status (the mapping gRPC itself documents). */
export function rpcCodeOf(httpStatus: number): number {
  const codes: Record<number, number> = { 400: 3, 401: 16, 403: 7, 404: 5, 409: 6, 413: 8, 415: 3, 429: 8, 503: 14 }
  return codes[httpStatus] ?? (httpStatus >= 500 ? 13 : 2)
}
