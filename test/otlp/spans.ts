// Decoded spans for tests, written out with defaults so that each test states only what it is about.
import type { OtlpSpan } from '../../schemas/otlp.js'

/** 2026-11-21T13:45:00.000Z in epoch milliseconds. */
export const T0 = 1_795_268_700_000
export const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'

/** A readable name (at most 8 characters) as a span id: its bytes in hex, zero-padded to 16 digits. */
export const spanId = (name: string) => Buffer.from(name).toString('hex').padStart(16, '0')

/** A span of TRACE_ID starting `start` ms after T0 and lasting `duration` ms; a root unless `parent` is given. */
export function span(
  id: string,
  fields: Partial<OtlpSpan> & { start?: number; duration?: number; parent?: string } = {},
): OtlpSpan {
  const { start = 0, duration = 10, parent, ...rest } = fields
  return {
    trace_id: TRACE_ID,
    span_id: spanId(id),
    parent_span_id: parent === undefined ? null : spanId(parent),
    parent_is_remote: false,
    name: `span ${id}`,
    kind: 1,
    start_ms: T0 + start,
    end_ms: T0 + start + duration,
    attributes: {},
    events: [],
    status_code: 0,
    status_message: '',
    resource: { 'service.name': 'test-service' },
    scope: { name: 'test', version: '1.0.0' },
    ...rest,
  }
}
