// Property-based fuzzing of POST /v1/traces and POST /v1/logs (fast-check): generated exports whose spans and GenAI
// log records carry every convention's attributes with odd values, odd ids and times, and raw bytes as protobuf, gzip
// or not. Whatever is sent: no 5xx, an answer OTLP clients understand, and every trace the spans make passes the
// ingest road (none is dropped).
import { Writable } from 'node:stream'
import { gzipSync } from 'node:zlib'
import fc from 'fast-check'
import t from 'tap'
import { TraceSchema } from '../../schemas/index.js'
import { buildTestApp, createProject, schemaErrors } from '../helper.js'
import { readProtobufReply } from '../otlp/http.js'

const SEED = Number(process.env.FUZZ_SEED ?? 20261121)

/** Attribute names the conventions read, so that odd values reach every rule. */
const KEYS = [
  'gen_ai.operation.name',
  'gen_ai.request.model',
  'gen_ai.response.model',
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens',
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.tool.name',
  'gen_ai.tool.call.arguments',
  'gen_ai.conversation.id',
  'openinference.span.kind',
  'llm.model_name',
  'llm.token_count.prompt',
  'llm.token_count.total',
  'llm.input_messages.0.message.role',
  'llm.input_messages.0.message.content',
  'llm.output_messages.1.message.contents.0.message_content.text',
  'input.value',
  'output.value',
  'tool.name',
  'session.id',
  'user.id',
  'tag.tags',
  'metadata',
  'retrieval.documents.0.document.content',
  'gen_ai.prompt.0.content',
  'gen_ai.completion.0.content',
  'gen_ai.usage.prompt_tokens',
  'llm.usage.total_tokens',
  'traceloop.span.kind',
  'traceloop.entity.input',
  'traceloop.entity.output',
  'ai.operationId',
  'ai.prompt.messages',
  'error.type',
  'gen_ai.system_instructions',
  'gen_ai.provider.name',
  'langfuse.observation.type',
  'langfuse.observation.input',
  'langfuse.observation.output',
  'langfuse.observation.usage_details',
  'langfuse.observation.cost_details',
  'langfuse.observation.level',
  'langfuse.trace.name',
  'langfuse.trace.tags',
  // Names every JavaScript object inherits: a lookup keyed by data must never reach them.
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'llm.input_messages.0.__proto__',
  'gen_ai.prompt.0.constructor',
]
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']
/** Text that is not valid Unicode: stored with U+FFFD in its place, never refused. */
const LONE_SURROGATES = ['\ud800', 'a\udc00b', '\udfff\ud800']
const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom(...LONE_SURROGATES),
  fc.constantFrom('', ' ', 'LLM', 'TOOL', 'chat', 'execute_tool', 'workflow', 'tool', '[1,2]', '{"a":', '"q"', '💥'),
  fc.constantFrom(...PROTOTYPE_NAMES, '{"__proto__":{"x":1}}', '[{"role":"__proto__","content":"x"}]'),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
)
const anyValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text.map((stringValue) => ({ stringValue })),
    fc
      .oneof(
        fc.integer(),
        fc.constantFrom('-5', '9007199254740993', 'x', '100000000000000000000', '100000001', '-0', 1e8, 1e8 + 1),
      )
      .map((intValue) => ({ intValue })),
    fc
      .oneof(fc.double(), fc.constantFrom('NaN', 'Infinity', '-Infinity', 1e308, -1e308, -0, '1e308'))
      .map((doubleValue) => ({ doubleValue })),
    fc.boolean().map((boolValue) => ({ boolValue })),
    fc.array(tie('value'), { maxLength: 3 }).map((values) => ({ arrayValue: { values } })),
    fc
      .array(
        fc.record({
          key: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...PROTOTYPE_NAMES, ...LONE_SURROGATES)),
          value: tie('value'),
        }),
        { maxLength: 3 },
      )
      .map((values) => ({ kvlistValue: { values } })),
    fc.jsonValue({ maxDepth: 1 }),
  ),
})).value
/** Span events, and the GenAI events log records carry. */
const EVENTS = [
  'exception',
  'gen_ai.content.prompt',
  'other',
  'gen_ai.client.inference.operation.details',
  'gen_ai.user.message',
  'gen_ai.choice',
  'gen_ai.evaluation.result',
]
const EVENT_KEYS = [
  'exception.message',
  'exception.type',
  'gen_ai.prompt',
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.system_instructions',
  'gen_ai.evaluation.score.value',
  'event.name',
]
const hex = (bytes: number) =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'))
const TRACE_IDS = ['4bf92f3577b34da6a3ce929d0e0e4736', '0af7651916cd43dd8448eb211c80319c']
const nanos = fc.oneof(
  fc.bigInt({ min: 0n, max: 4_102_444_800_000_000_000n }).map(String),
  fc.integer({ min: 0 }),
  fc.constantFrom('', 'soon', '-1', '18446744073709551615', '1e308'),
)
const span = fc.record(
  {
    traceId: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...TRACE_IDS) }, hex(16), fc.string({ maxLength: 40 })),
    spanId: fc.oneof({ weight: 5, arbitrary: hex(8) }, fc.constantFrom('', '0000000000000000', 'zz')),
    parentSpanId: fc.oneof(hex(8), fc.constantFrom('', 'abc')),
    name: fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.constant('n'.repeat(400)),
      fc.constantFrom(...PROTOTYPE_NAMES, ...LONE_SURROGATES),
    ),
    kind: fc.oneof(fc.integer({ min: -1, max: 7 }), fc.constantFrom('SPAN_KIND_CLIENT', 'nope')),
    startTimeUnixNano: nanos,
    endTimeUnixNano: nanos,
    attributes: fc.array(fc.record({ key: fc.oneof(fc.constantFrom(...KEYS), fc.string()), value: anyValue }), {
      maxLength: 8,
    }),
    events: fc.array(
      fc.record({
        name: fc.constantFrom(...EVENTS),
        timeUnixNano: nanos,
        attributes: fc.array(
          fc.record({
            key: fc.constantFrom(...EVENT_KEYS),
            value: anyValue,
          }),
          { maxLength: 3 },
        ),
      }),
      { maxLength: 2 },
    ),
    status: fc.record({
      code: fc.oneof(fc.integer({ min: -1, max: 3 }), fc.constant('STATUS_CODE_ERROR')),
      message: text,
    }),
    flags: fc.integer({ min: 0, max: 0x3ff }),
  },
  { requiredKeys: ['traceId', 'spanId'] },
)
const logRecord = fc.record(
  {
    traceId: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...TRACE_IDS) }, fc.string({ maxLength: 40 })),
    spanId: fc.oneof({ weight: 5, arbitrary: hex(8) }, fc.constantFrom('', 'zz')),
    eventName: fc.constantFrom(...EVENTS, ''),
    timeUnixNano: nanos,
    attributes: fc.array(fc.record({ key: fc.constantFrom(...EVENT_KEYS), value: anyValue }), { maxLength: 4 }),
    body: anyValue,
  },
  { requiredKeys: [] },
)
const logsBody = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .array(logRecord, { maxLength: 6 })
      .map((logRecords) => ({ resourceLogs: [{ scopeLogs: [{ logRecords }] }] })),
  },
  fc.record({ resourceLogs: fc.jsonValue({ maxDepth: 3 }) }),
)
const exportBody = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.array(span, { maxLength: 6 }).map((spans) => ({ resourceSpans: [{ scopeSpans: [{ spans }] }] })),
  },
  fc.jsonValue({ maxDepth: 3 }),
  fc.record({ resourceSpans: fc.jsonValue({ maxDepth: 3 }) }),
)

t.test(
  'POST /v1/traces and /v1/logs: generated exports never make a 5xx, and every trace they make is stored',
  { timeout: 180_000 },
  async (t) => {
    const errors: string[] = []
    const logs = new Writable({
      write(chunk, _encoding, done) {
        errors.push(chunk.toString())
        done()
      },
    })
    const app = await buildTestApp(t, {
      config: { otlpRootGraceMs: 0, otlpRootlessWaitMs: 0, rateLimit: 0, ingestRateLimit: 0 },
      logger: { level: 'error', stream: logs },
    })
    const { key } = await createProject(app)
    const json = (b: unknown) => ({ type: 'application/json', bytes: Buffer.from(JSON.stringify(b)) })
    const request = fc.record({
      url: fc.constantFrom('/v1/traces', '/v1/logs'),
      body: fc.oneof(
        { weight: 5, arbitrary: exportBody.map(json) },
        { weight: 3, arbitrary: logsBody.map(json) },
        fc.uint8Array({ maxLength: 200 }).map((b) => ({ type: 'application/x-protobuf', bytes: Buffer.from(b) })),
      ),
      gzip: fc.boolean(),
    })
    await fc.assert(
      fc.asyncProperty(request, async ({ url, body, gzip }) => {
        const res = await app.inject({
          method: 'POST',
          url,
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': body.type,
            ...(gzip ? { 'content-encoding': 'gzip' } : {}),
          },
          payload: gzip ? gzipSync(body.bytes) : body.bytes,
        })
        if (![200, 400].includes(res.statusCode)) throw new Error(`${res.statusCode}: ${res.body}`)
        if (body.type === 'application/x-protobuf') {
          if (res.statusCode === 400) readProtobufReply(res.rawPayload)
          return
        }
        const reply = res.json()
        if (res.statusCode === 400) {
          if (typeof reply.message !== 'string' || reply.statusCode !== 400) throw new Error(res.body)
        } else if (
          reply.partialSuccess &&
          !/^\d+$/.test(reply.partialSuccess[url === '/v1/logs' ? 'rejectedLogRecords' : 'rejectedSpans'])
        ) {
          throw new Error(res.body)
        }
      }),
      { numRuns: 600, seed: SEED },
    )
    await app.otlp.materializeDue()
    t.same(errors, [], 'no trace failed the ingest road, nothing logged as an error')
    t.same(await app.store.pending.listTraces(), [], 'every pending span became part of a trace')
    const stored = await app.store.traces.list({}, { limit: 1000, offset: 0 })
    t.ok(stored.total > 0, `${stored.total} traces stored`)
    for (const trace of stored.items) t.same(schemaErrors(TraceSchema, trace), [], trace.trace_id)
    // JSON writes a lone surrogate, and only that, as an escape \uD800–\uDFFF.
    t.notMatch(JSON.stringify(stored.items), /\\u[dD][89a-fA-F]/, 'every stored string is valid Unicode text')
  },
)
