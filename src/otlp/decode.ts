// Reads an ExportTraceServiceRequest — decoded from protobuf or parsed from OTLP/JSON — into the spans Loupe keeps, and
// an ExportLogsServiceRequest into the GenAI log records Loupe keeps beside them.
// OTLP/JSON differs from protobuf's own JSON mapping: ids are hex (not base64), enums may be integers or names, and
// 64-bit integers may be strings or numbers. A span that cannot be read is rejected on its own; the others are kept.
import type { OtlpLogRecord, OtlpSpan } from '../../schemas/otlp.js'
import { setOwn } from '../lib/own.js'
import { isLong, type Long } from './proto.js'

/** Why spans were rejected, with how many each. */
export type Rejections = Map<string, number>

export interface ReadExport {
  spans: OtlpSpan[]
  rejected: Rejections
}

type Obj = Record<string, unknown>

const SPAN_KINDS = [
  'SPAN_KIND_UNSPECIFIED',
  'SPAN_KIND_INTERNAL',
  'SPAN_KIND_SERVER',
  'SPAN_KIND_CLIENT',
  'SPAN_KIND_PRODUCER',
  'SPAN_KIND_CONSUMER',
]
const STATUS_CODES = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR']
/** Span flags bits 8 and 9: "whether the parent is remote is known" and "the parent is remote". */
const PARENT_REMOTE_KNOWN = 0x100
const PARENT_REMOTE = 0x200
/** Nesting deeper than this in an attribute value is cut (a hostile body must not exhaust the stack). */
const MAX_VALUE_DEPTH = 32

const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The field under its OTLP/JSON name, or its proto name (which protobuf's JSON mapping also accepts). Only a field
 * the sender set: a decoded protobuf message keeps its defaults on its prototype (every AnyValue has a "" stringValue
 * there), and a parsed JSON object has only own properties.
 */
function field(obj: Obj, camel: string, snake: string): unknown {
  return (Object.hasOwn(obj, camel) ? obj[camel] : undefined) ?? (Object.hasOwn(obj, snake) ? obj[snake] : undefined)
}

/** Bytes as lowercase hex or base64, read in place (no copy). */
const bytesText = (bytes: Uint8Array, encoding: 'hex' | 'base64') =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(encoding)

/** A decoded 64-bit integer, exactly. */
const longToBigInt = (value: Long): bigint => {
  const n = (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0)
  return value.unsigned ? n : BigInt.asIntN(64, n)
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])

/** A trace or span id: bytes from protobuf, hex from JSON. Null when malformed or all zeros (invalid in OTLP). */
function readId(value: unknown, bytes: number): string | null {
  let hex: string | null = null
  if (value instanceof Uint8Array) hex = value.length === bytes ? bytesText(value, 'hex') : null
  else if (typeof value === 'string' && new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(value)) hex = value.toLowerCase()
  return hex === null || /^0+$/.test(hex) ? null : hex
}

/** A missing parent is null; an empty one (proto3 default, or "" in JSON) too. */
function readParentId(value: unknown): string | null | undefined {
  if (value === undefined || value === null || value === '') return null
  if (value instanceof Uint8Array && value.length === 0) return null
  return readId(value, 8) ?? undefined
}

/** An enum sent as its number or its name. */
function readEnum(value: unknown, names: readonly string[]): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < names.length) return value
  if (typeof value === 'string') {
    const index = names.indexOf(value.toUpperCase())
    if (index >= 0) return index
    if (/^\d+$/.test(value) && Number(value) < names.length) return Number(value)
  }
  return 0
}

/** Nanoseconds since the epoch (decimal string or number) → milliseconds with a microsecond fraction; 0 if unreadable. */
export function nanosToMs(value: unknown): number {
  let nanos: bigint
  try {
    if (isLong(value)) nanos = longToBigInt(value)
    else if (typeof value === 'string' && /^\d+$/.test(value)) nanos = BigInt(value)
    else if (typeof value === 'number' && Number.isFinite(value) && value >= 0) nanos = BigInt(Math.trunc(value))
    else return 0
  } catch {
    return 0
  }
  if (nanos < 0n) return 0
  return Number(nanos / 1000n) / 1000
}

/** A 64-bit integer as a number when it is exactly representable, else its decimal string. */
function readInt(value: unknown): number | string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (isLong(value)) {
    const n = longToBigInt(value)
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString()
  }
  if (typeof value !== 'string' || !/^-?\d+$/.test(value)) return null
  const n = Number(value)
  return Number.isSafeInteger(n) ? n : value
}

/** An OTLP AnyValue as plain JSON. */
export function readAnyValue(value: unknown, depth = 0): unknown {
  if (!isObj(value)) return null
  if (depth > MAX_VALUE_DEPTH) return '[nested too deep]'
  const string = field(value, 'stringValue', 'string_value')
  if (typeof string === 'string') return string
  const bool = field(value, 'boolValue', 'bool_value')
  if (typeof bool === 'boolean') return bool
  const int = field(value, 'intValue', 'int_value')
  if (int !== undefined) return readInt(int)
  const double = field(value, 'doubleValue', 'double_value')
  // JSON may carry "NaN"/"Infinity" as strings, which JSON cannot hold as numbers: those stay strings.
  if (typeof double === 'number') return double
  if (typeof double === 'string') return Number.isFinite(Number(double)) ? Number(double) : double
  const array = field(value, 'arrayValue', 'array_value')
  if (isObj(array)) return list(array.values).map((item) => readAnyValue(item, depth + 1))
  const kvlist = field(value, 'kvlistValue', 'kvlist_value')
  if (isObj(kvlist)) return readAttributes(kvlist.values, depth + 1)
  const bytes = field(value, 'bytesValue', 'bytes_value')
  if (bytes instanceof Uint8Array) return bytesText(bytes, 'base64')
  if (typeof bytes === 'string') return bytes
  return null
}

/** A list of KeyValue as an object; a repeated key keeps its last value. */
export function readAttributes(keyValues: unknown, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const kv of list(keyValues)) {
    if (isObj(kv) && typeof kv.key === 'string') setOwn(out, kv.key, readAnyValue(kv.value, depth))
  }
  return out
}

type SpanRead = { ok: true; span: OtlpSpan } | { ok: false; reason: string }

function readSpan(span: unknown, resource: Record<string, unknown>, scope: OtlpSpan['scope']): SpanRead {
  if (!isObj(span)) return { ok: false, reason: 'a span is not an object' }
  const trace_id = readId(field(span, 'traceId', 'trace_id'), 16)
  if (trace_id === null) return { ok: false, reason: 'traceId must be 16 bytes (32 hex digits in JSON), not all zero' }
  const span_id = readId(field(span, 'spanId', 'span_id'), 8)
  if (span_id === null) return { ok: false, reason: 'spanId must be 8 bytes (16 hex digits in JSON), not all zero' }
  const parent_span_id = readParentId(field(span, 'parentSpanId', 'parent_span_id'))
  if (parent_span_id === undefined)
    return { ok: false, reason: 'parentSpanId must be empty or 8 bytes (16 hex digits)' }
  const flags = Number(field(span, 'flags', 'flags') ?? 0)
  const status = isObj(span.status) ? span.status : {}
  const start_ms = nanosToMs(field(span, 'startTimeUnixNano', 'start_time_unix_nano'))
  return {
    ok: true,
    span: {
      trace_id,
      span_id,
      parent_span_id,
      parent_is_remote:
        parent_span_id !== null &&
        (flags & (PARENT_REMOTE_KNOWN | PARENT_REMOTE)) === (PARENT_REMOTE_KNOWN | PARENT_REMOTE),
      name: typeof span.name === 'string' ? span.name : '',
      kind: readEnum(span.kind, SPAN_KINDS),
      start_ms,
      // An end before the start is an exporter's clock problem: read it as a zero-length span.
      end_ms: Math.max(start_ms, nanosToMs(field(span, 'endTimeUnixNano', 'end_time_unix_nano'))),
      attributes: readAttributes(span.attributes),
      events: list(span.events)
        .filter(isObj)
        .map((event) => ({
          name: typeof event.name === 'string' ? event.name : '',
          time_ms: nanosToMs(field(event, 'timeUnixNano', 'time_unix_nano')),
          attributes: readAttributes(event.attributes),
        })),
      status_code: readEnum(status.code, STATUS_CODES),
      status_message: typeof status.message === 'string' ? status.message : '',
      resource,
      scope,
    },
  }
}

/**
 * Every span of an export, flattened out of its resource and scope groups. `body` is what the protobuf decoder or
 * JSON.parse produced; the caller has checked that it is an object.
 */
export function readExportRequest(body: Obj): ReadExport {
  const spans: OtlpSpan[] = []
  const rejected: Rejections = new Map()
  for (const resourceSpans of list(field(body, 'resourceSpans', 'resource_spans'))) {
    if (!isObj(resourceSpans)) continue
    const resource = isObj(resourceSpans.resource) ? readAttributes(resourceSpans.resource.attributes) : {}
    for (const scopeSpans of list(field(resourceSpans, 'scopeSpans', 'scope_spans'))) {
      if (!isObj(scopeSpans)) continue
      const scopeObj = isObj(scopeSpans.scope) ? scopeSpans.scope : {}
      const scope = {
        name: typeof scopeObj.name === 'string' ? scopeObj.name : '',
        version: typeof scopeObj.version === 'string' ? scopeObj.version : '',
      }
      for (const span of list(scopeSpans.spans)) {
        const read = readSpan(span, resource, scope)
        if (read.ok) spans.push(read.span)
        else rejected.set(read.reason, (rejected.get(read.reason) ?? 0) + 1)
      }
    }
  }
  return { spans, rejected }
}

/** How the items of each signal's export are nested, under their OTLP/JSON and proto names. */
const NESTING = {
  traces: {
    resource: ['resourceSpans', 'resource_spans'],
    scope: ['scopeSpans', 'scope_spans'],
    items: ['spans', 'spans'],
  },
  logs: {
    resource: ['resourceLogs', 'resource_logs'],
    scope: ['scopeLogs', 'scope_logs'],
    items: ['logRecords', 'log_records'],
  },
} as const

/** How many spans (or log records) an export carries, read or not: what the per-key ingest limit counts. */
export function countItems(body: Obj, signal: keyof typeof NESTING = 'traces'): number {
  const names = NESTING[signal]
  let n = 0
  for (const resource of list(field(body, names.resource[0], names.resource[1]))) {
    if (!isObj(resource)) continue
    for (const scope of list(field(resource, names.scope[0], names.scope[1]))) {
      if (isObj(scope)) n += list(field(scope, names.items[0], names.items[1])).length
    }
  }
  return n
}

/** How many spans an export carries (read or not). */
export const countSpans = (body: Obj) => countItems(body, 'traces')

export interface ReadLogs {
  /** GenAI event records that name a span: kept beside that span until its trace is stored. */
  records: OtlpLogRecord[]
  /** GenAI event records that name no span (no valid trace and span id): nothing to fold them into. */
  unmatched: number
  /** Records that are not GenAI events: accepted and ignored. */
  ignored: number
}

/** The event a log record carries: its `event_name` (LogRecord field 12), else its `event.name` attribute. */
function eventNameOf(record: Obj, attributes: Record<string, unknown>): string {
  const named = field(record, 'eventName', 'event_name')
  if (typeof named === 'string' && named !== '') return named
  const attribute = attributes['event.name']
  return typeof attribute === 'string' ? attribute : ''
}

/**
 * The GenAI event records of an ExportLogsServiceRequest: those whose event is a `gen_ai.*` one. Each keeps its
 * attributes (without `event.name`, which names it) and its body as plain JSON. Every other record is only counted.
 */
export function readLogsRequest(body: Obj): ReadLogs {
  const out: ReadLogs = { records: [], unmatched: 0, ignored: 0 }
  for (const resourceLogs of list(field(body, 'resourceLogs', 'resource_logs'))) {
    if (!isObj(resourceLogs)) continue
    for (const scopeLogs of list(field(resourceLogs, 'scopeLogs', 'scope_logs'))) {
      if (!isObj(scopeLogs)) continue
      for (const record of list(field(scopeLogs, 'logRecords', 'log_records'))) {
        if (!isObj(record)) {
          out.ignored++
          continue
        }
        const { 'event.name': _named, ...attributes } = readAttributes(record.attributes)
        const event_name = eventNameOf(record, { 'event.name': _named })
        if (!event_name.startsWith('gen_ai.')) {
          out.ignored++
          continue
        }
        const trace_id = readId(field(record, 'traceId', 'trace_id'), 16)
        const span_id = readId(field(record, 'spanId', 'span_id'), 8)
        if (trace_id === null || span_id === null) {
          out.unmatched++
          continue
        }
        const time = nanosToMs(field(record, 'timeUnixNano', 'time_unix_nano'))
        out.records.push({
          record: 'log',
          trace_id,
          span_id,
          event_name,
          time_ms: time > 0 ? time : nanosToMs(field(record, 'observedTimeUnixNano', 'observed_time_unix_nano')),
          attributes,
          body: record.body === undefined || record.body === null ? null : readAnyValue(record.body),
        })
      }
    }
  }
  return out
}
