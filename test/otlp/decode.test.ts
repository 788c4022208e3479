// Reading OTLP exports: protobuf and JSON forms alike, the OTLP/JSON quirks, and one bad span rejecting only itself.
import { Value } from '@sinclair/typebox/value'
import protobuf from 'protobufjs'
import t from 'tap'
import { OtlpSpanSchema } from '../../schemas/otlp.js'
import { nanosToMs, readAnyValue, readExportRequest } from '../../src/otlp/decode.js'
import { decodeExportRequest } from '../../src/otlp/proto.js'

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const SPAN = '00f067aa0ba902b7'
const PARENT = '00f067aa0ba902b6'

const request = (spans: unknown[], resource: unknown[] = []) => ({
  resourceSpans: [
    { resource: { attributes: resource }, scopeSpans: [{ scope: { name: 'lib', version: '2' }, spans }] },
  ],
})
const jsonSpan = (fields: Record<string, unknown> = {}) => ({
  traceId: TRACE,
  spanId: SPAN,
  name: 'chat',
  kind: 3,
  startTimeUnixNano: '1795268700000000000',
  endTimeUnixNano: '1795268700250500000',
  ...fields,
})

t.test('nanoseconds become milliseconds with a microsecond fraction; strings and numbers alike', async (t) => {
  t.equal(nanosToMs('1795268700250500999'), 1_795_268_700_250.5)
  t.equal(nanosToMs(1_000_000), 1)
  t.equal(nanosToMs('not a number'), 0)
  t.equal(nanosToMs(undefined), 0)
})

t.test('AnyValue: every kind, 64-bit integers as numbers when exact and strings otherwise', async (t) => {
  const cases: [unknown, unknown][] = [
    [{ stringValue: 'x' }, 'x'],
    [{ boolValue: false }, false],
    [{ intValue: '42' }, 42],
    [{ intValue: 42 }, 42],
    [{ intValue: '9007199254740993' }, '9007199254740993'],
    [{ doubleValue: 0.5 }, 0.5],
    [{ doubleValue: 'NaN' }, 'NaN'],
    [{ arrayValue: { values: [{ stringValue: 'a' }, { intValue: '1' }] } }, ['a', 1]],
    [{ kvlistValue: { values: [{ key: 'k', value: { boolValue: true } }] } }, { k: true }],
    [{ bytesValue: 'AQI=' }, 'AQI='],
    [{ bytesValue: new Uint8Array([1, 2]) }, 'AQI='],
    [{ string_value: 'proto name' }, 'proto name'],
    [{}, null],
  ]
  for (const [input, expected] of cases) t.same(readAnyValue(input), expected, JSON.stringify(input))
})

t.test('a decoded protobuf message: 64-bit integers as Long, defaults on the prototype only', async (t) => {
  const Long = protobuf.util.Long as unknown as new (low: number, high: number, unsigned?: boolean) => object
  // 2^53 + 1 (not exact as a number), -2, and a nanosecond time as the fixed64 it is on the wire.
  t.equal(readAnyValue({ intValue: new Long(1, 0x200000) }), '9007199254740993')
  t.equal(readAnyValue({ intValue: new Long(-2, -1) }), -2)
  t.equal(readAnyValue({ intValue: new Long(42, 0) }), 42)
  const nanos = 1_795_268_700_250_500_999n
  t.equal(nanosToMs(new Long(Number(nanos & 0xffffffffn) | 0, Number(nanos >> 32n) | 0, true)), 1_795_268_700_250.5)
  // protobufjs puts every field's default on the message's prototype: only what was sent is read.
  const defaults = { stringValue: '', boolValue: false, intValue: 0, bytesValue: new Uint8Array(0) }
  t.equal(readAnyValue(Object.assign(Object.create(defaults), { intValue: new Long(7, 0) })), 7)
  t.equal(readAnyValue(Object.create(defaults)), null)
  // Bytes that are a view into a larger buffer (the request body) are read at their own offset.
  const body = Buffer.from([9, 9, 1, 2, 9])
  t.equal(readAnyValue({ bytesValue: body.subarray(2, 4) }), 'AQI=')
})

t.test('a JSON span: hex ids, integer or named enums, remote parent from the flags, resource and scope', async (t) => {
  const { spans, rejected } = readExportRequest(
    request(
      [
        jsonSpan({
          parentSpanId: PARENT.toUpperCase(),
          kind: 'SPAN_KIND_CLIENT',
          flags: 0x301,
          attributes: [{ key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } }],
          events: [{ timeUnixNano: '1795268700100000000', name: 'exception', attributes: [] }],
          status: { code: 'STATUS_CODE_ERROR', message: 'boom' },
        }),
      ],
      [{ key: 'service.name', value: { stringValue: 'svc' } }],
    ),
  )
  t.equal(rejected.size, 0)
  t.same(spans, [
    {
      trace_id: TRACE,
      span_id: SPAN,
      parent_span_id: PARENT,
      parent_is_remote: true,
      name: 'chat',
      kind: 3,
      start_ms: 1_795_268_700_000,
      end_ms: 1_795_268_700_250.5,
      attributes: { 'gen_ai.request.model': 'gpt-4o' },
      events: [{ name: 'exception', time_ms: 1_795_268_700_100, attributes: {} }],
      status_code: 2,
      status_message: 'boom',
      resource: { 'service.name': 'svc' },
      scope: { name: 'lib', version: '2' },
    },
  ])
  t.ok(Value.Check(OtlpSpanSchema, spans[0]))
})

t.test('a root span has no parent: absent, empty string or empty bytes', async (t) => {
  for (const parentSpanId of [undefined, '', new Uint8Array(0)]) {
    const { spans } = readExportRequest(request([jsonSpan({ parentSpanId })]))
    t.equal(spans[0]?.parent_span_id, null)
    t.equal(spans[0]?.parent_is_remote, false)
  }
})

t.test('a span with a bad id is rejected on its own, with the reason counted', async (t) => {
  const { spans, rejected } = readExportRequest(
    request([
      jsonSpan(),
      jsonSpan({ traceId: 'S/ku5nBFTaajzpKdDg5HNg==' }), // base64, which OTLP/JSON does not use
      jsonSpan({ traceId: '00000000000000000000000000000000' }),
      jsonSpan({ spanId: 'abc' }),
      jsonSpan({ parentSpanId: 'xyz' }),
      'not a span',
    ]),
  )
  t.equal(spans.length, 1)
  t.same(Object.fromEntries(rejected), {
    'traceId must be 16 bytes (32 hex digits in JSON), not all zero': 2,
    'spanId must be 8 bytes (16 hex digits in JSON), not all zero': 1,
    'parentSpanId must be empty or 8 bytes (16 hex digits)': 1,
    'a span is not an object': 1,
  })
})

t.test('an end before the start reads as a zero-length span; missing parts read as empty', async (t) => {
  const { spans } = readExportRequest(
    request([{ traceId: TRACE, spanId: SPAN, startTimeUnixNano: '2000000', endTimeUnixNano: '1000000' }]),
  )
  t.match(spans[0], { name: '', kind: 0, start_ms: 2, end_ms: 2, attributes: {}, events: [], status_code: 0 })
})

t.test('protobuf bytes that are not an export request are an error; an empty message is no spans', async (t) => {
  t.throws(() => decodeExportRequest(Buffer.from('this is not protobuf')))
  t.same(readExportRequest(decodeExportRequest(new Uint8Array(0))), { spans: [], rejected: new Map() })
})

t.test('deeply nested attribute values are cut instead of exhausting the stack', async (t) => {
  let value: unknown = { stringValue: 'leaf' }
  for (let i = 0; i < 10_000; i++) value = { arrayValue: { values: [value] } }
  let read = readAnyValue(value)
  let depth = 0
  while (Array.isArray(read)) {
    read = read[0]
    depth++
  }
  t.equal(read, '[nested too deep]')
  t.ok(depth < 40)
})
