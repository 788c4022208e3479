// Sending OTLP exports to a test app, and waiting (bounded) for what the OTLP timer does.
import protobuf from 'protobufjs'
import type { LoupeApp } from '../../src/app.js'

export const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const T0_NS = 1_795_268_700_000n * 1_000_000n

/** An OTLP/JSON export of these spans (one resource, one scope). */
export const exportOf = (...spans: unknown[]) => ({
  resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'test' }, spans }] }],
})

/** An OTLP/JSON span of TRACE starting `startMs` after 2026-11-21T13:45Z and lasting 10 ms; ids are 16 hex digits. */
export function jsonSpan(id: string, fields: Record<string, unknown> & { startMs?: number; parent?: string } = {}) {
  const { startMs = 0, parent, ...rest } = fields
  return {
    traceId: TRACE,
    spanId: id,
    ...(parent ? { parentSpanId: parent } : {}),
    name: `span ${id}`,
    kind: 1,
    startTimeUnixNano: String(T0_NS + BigInt(startMs) * 1_000_000n),
    endTimeUnixNano: String(T0_NS + BigInt(startMs + 10) * 1_000_000n),
    ...rest,
  }
}

/** POST /v1/traces (or `url`) with a key; `body` is sent as JSON unless it is a Buffer. */
export function postOtlp(
  app: LoupeApp,
  key: string | null,
  body: unknown,
  headers: Record<string, string> = {},
  url = '/v1/traces',
) {
  const isBytes = Buffer.isBuffer(body)
  return app.inject({
    method: 'POST',
    url,
    headers: {
      'content-type': isBytes ? 'application/x-protobuf' : 'application/json',
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
      ...headers,
    },
    payload: isBytes ? body : JSON.stringify(body),
  })
}

/** Resolves once `check` returns a value other than undefined; rejects after `timeoutMs`. */
export async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Every trace.created the app announces, by trace id. */
export function recordAnnouncements(app: LoupeApp): Map<string, number> {
  const seen = new Map<string, number>()
  app.hub.subscribe((traces) => {
    for (const trace of traces) seen.set(trace.trace_id, (seen.get(trace.trace_id) ?? 0) + 1)
  })
  return seen
}

/**
 * A protobuf ExportTraceServiceRequest written field by field (independently of src/otlp/proto.ts): one resource,
 * one scope, these spans. Ids are given as bytes so that a test can send malformed ones.
 */
export function protobufRequest(
  spans: { traceId: Uint8Array; spanId: Uint8Array; parentSpanId?: Uint8Array; name: string; startMs: number }[],
): Buffer {
  const LEN = 2
  const FIXED64 = 1
  const w = protobuf.Writer.create()
  w.uint32((1 << 3) | LEN).fork() // resource_spans
  w.uint32((2 << 3) | LEN).fork() // scope_spans
  for (const span of spans) {
    w.uint32((2 << 3) | LEN).fork() // spans
    w.uint32((1 << 3) | LEN).bytes(span.traceId)
    w.uint32((2 << 3) | LEN).bytes(span.spanId)
    if (span.parentSpanId) w.uint32((4 << 3) | LEN).bytes(span.parentSpanId)
    w.uint32((5 << 3) | LEN).string(span.name)
    const nanos = BigInt(span.startMs) * 1_000_000n
    w.uint32((7 << 3) | FIXED64).fixed64(nanos.toString())
    w.uint32((8 << 3) | FIXED64).fixed64((nanos + 5_000_000n).toString())
    w.ldelim()
  }
  w.ldelim().ldelim()
  return Buffer.from(w.finish())
}

/** Decodes what /v1/traces answered to a protobuf request: an ExportTraceServiceResponse or a google.rpc.Status. */
export function readProtobufReply(bytes: Buffer): Record<number, unknown> {
  const reader = protobuf.Reader.create(bytes)
  const fields: Record<number, unknown> = {}
  while (reader.pos < reader.len) {
    const tag = reader.uint32()
    const field = tag >>> 3
    if ((tag & 7) === 0) fields[field] = Number(reader.int64())
    else if ((tag & 7) === 2) fields[field] = reader.bytes()
    else reader.skipType(tag & 7)
  }
  return fields
}
