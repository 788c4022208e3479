// OTLP evaluation events (`gen_ai.evaluation.result`, on a span or as a GenAI log record) become scores with source
// `evaluator` once their trace is stored: of the trace (the root span's) or of the step a span became; recorded once,
// however often the export is sent.
import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api'
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import t from 'tap'
import { type Score, ScoreSchema, type Trace } from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { buildTestApp, createProject, schemaErrors } from '../helper.js'
import { exportOf, jsonSpan, postOtlp, TRACE, waitFor } from '../otlp/http.js'
import { libraryFixtures, replay } from '../otlp/libraries.js'
import { spanId } from '../otlp/spans.js'

const BASE = Date.UTC(2026, 10, 21, 13, 45)
const nanos = (ms: number) => String(BigInt(ms) * 1_000_000n)

async function scoresOf(app: LoupeApp, traceId: string): Promise<Score[]> {
  const res = await app.inject(`/scores?trace_id=${traceId}&limit=200`)
  return (res.json() as { items: Score[] }).items.sort((a, b) => a.name.localeCompare(b.name))
}

/** Every score.created the app announces, by score id. */
function announced(app: LoupeApp): Map<string, number> {
  const seen = new Map<string, number>()
  app.hub.subscribeScores((type, scores) => {
    if (type === 'score.created') for (const s of scores) seen.set(s.score_id, (seen.get(s.score_id) ?? 0) + 1)
  })
  return seen
}

const exporters = [
  { name: 'protobuf', Exporter: ProtobufExporter },
  { name: 'JSON', Exporter: JsonExporter },
] as const

for (const { name, Exporter } of exporters) {
  t.test(`${name} from the real SDK: evaluation events on the root and on steps become evaluator scores`, async (t) => {
    const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
    const { key, project_id } = await createProject(app)
    const created = announced(app)
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as { port: number }
    const exporter = new Exporter({
      url: `http://127.0.0.1:${port}/v1/traces`,
      headers: { Authorization: `Bearer ${key}` },
    })
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
    t.teardown(() => provider.shutdown())
    const tracer = provider.getTracer('judge')
    const root = tracer.startSpan('invoke_agent support', {
      kind: SpanKind.SERVER,
      startTime: BASE,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': 'conv-9' },
    })
    const child = (spanName: string, start: number, attributes: Record<string, string>) =>
      tracer.startSpan(spanName, { startTime: BASE + start, attributes }, trace.setSpan(ROOT_CONTEXT, root))
    const lookup = child('execute_tool lookup', 5, {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
    })
    lookup.addEvent(
      'gen_ai.evaluation.result',
      { 'gen_ai.evaluation.name': 'tool_ok', 'gen_ai.evaluation.score.label': 'correct' },
      BASE + 9,
    )
    lookup.end(BASE + 10)
    const chat = child('chat gpt-4o', 20, { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' })
    chat.addEvent(
      'gen_ai.evaluation.result',
      {
        'gen_ai.evaluation.name': 'json_valid',
        'gen_ai.evaluation.score.value': 1,
        'gen_ai.evaluation.score.label': 'true',
      },
      BASE + 41,
    )
    chat.addEvent('gen_ai.evaluation.result', { 'gen_ai.evaluation.score.value': 1 }, BASE + 42) // names nothing
    chat.end(BASE + 40)
    // The steps are exported (and stored pending) before the root: its arrival makes the trace due.
    await provider.forceFlush()
    root.addEvent(
      'gen_ai.evaluation.result',
      {
        'gen_ai.evaluation.name': 'relevance',
        'gen_ai.evaluation.score.value': 0.75,
        'gen_ai.evaluation.score.label': 'relevant',
        'gen_ai.evaluation.explanation': 'Answers the question asked.',
        'gen_ai.response.id': 'chatcmpl-1',
      },
      BASE + 50,
    )
    root.end(BASE + 60)
    await provider.forceFlush()
    const traceId = root.spanContext().traceId

    const scores = await waitFor(async () => {
      const found = await scoresOf(app, traceId)
      return found.length === 3 ? found : undefined
    }, 20_000)
    for (const s of scores) t.same(schemaErrors(ScoreSchema, s), [])
    const stored = (await app.inject(`/traces/${traceId}`)).json() as Trace
    const stepOf = (stepName: string) => stored.steps.findIndex((s) => s.name === stepName)
    t.not(stepOf('chat gpt-4o'), -1)
    t.match(scores, [
      {
        name: 'json_valid',
        data_type: 'boolean',
        value: 1,
        label: 'true',
        step_index: stepOf('chat gpt-4o'),
        created_at: new Date(BASE + 41).toISOString(),
      },
      {
        name: 'relevance',
        data_type: 'numeric',
        value: 0.75,
        label: null,
        step_index: null,
        comment: 'Answers the question asked.',
        metadata: { label: 'relevant', otel: { span_id: root.spanContext().spanId, response_id: 'chatcmpl-1' } },
        created_at: new Date(BASE + 50).toISOString(),
      },
      { name: 'tool_ok', data_type: 'categorical', label: 'correct', step_index: stepOf('execute_tool lookup') },
    ])
    for (const s of scores) t.match(s, { project_id, trace_id: traceId, source: 'evaluator', session_id: 'conv-9' })
    t.equal(
      (stored.metadata.evaluations as unknown[]).length,
      4,
      'the trace keeps every evaluation event in its metadata, as before',
    )
    t.same([...created.values()], [1, 1, 1], 'one score.created per score')
  })
}

t.test(
  'JSON export and a log record: a re-sent export records no score twice; ids are the same anywhere',
  async (t) => {
    const evaluation = (evalName: string, value: number, at: number) => ({
      name: 'gen_ai.evaluation.result',
      timeUnixNano: nanos(BASE + at),
      attributes: [
        { key: 'gen_ai.evaluation.name', value: { stringValue: evalName } },
        { key: 'gen_ai.evaluation.score.value', value: { doubleValue: value } },
      ],
    })
    const spans = exportOf(
      jsonSpan(spanId('root'), { events: [evaluation('groundedness', 0.5, 3), evaluation('groundedness', 0.5, 3)] }),
      jsonSpan(spanId('chat'), {
        parent: spanId('root'),
        startMs: 1,
        attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }],
      }),
    )
    const logs = {
      resourceLogs: [
        {
          scopeLogs: [
            {
              logRecords: [
                {
                  timeUnixNano: nanos(BASE + 4),
                  eventName: 'gen_ai.evaluation.result',
                  attributes: [
                    { key: 'gen_ai.evaluation.name', value: { stringValue: 'tone' } },
                    { key: 'gen_ai.evaluation.score.value', value: { intValue: '4' } },
                  ],
                  traceId: TRACE,
                  spanId: spanId('chat'),
                },
              ],
            },
          ],
        },
      ],
    }
    const ids: string[][] = []
    for (const run of [1, 2]) {
      await t.test(`app ${run}`, async (t) => {
        let clock = Date.now()
        const app = await buildTestApp(t, { config: { otlpRootGraceMs: 60_000 }, now: () => clock })
        const { key } = await createProject(app)
        const created = announced(app)
        for (let send = 0; send < 2; send++) {
          t.equal((await postOtlp(app, key, logs, {}, '/v1/logs')).statusCode, 200)
          t.equal((await postOtlp(app, key, spans)).statusCode, 200)
        }
        t.equal((await app.inject(`/traces/${TRACE}`)).statusCode, 404, 'pending until due')
        clock += 120_000
        await app.otlp.materializeDue()
        const scores = await scoresOf(app, TRACE)
        t.match(scores, [
          { name: 'groundedness', value: 0.5, step_index: null },
          { name: 'groundedness', value: 0.5, step_index: null },
          { name: 'tone', value: 4, data_type: 'numeric', step_index: 0, source: 'evaluator' },
        ])
        t.not(scores[0]!.score_id, scores[1]!.score_id, 'two events alike on one span are two scores')
        // The whole export again, after the trace is stored: accepted, nothing recorded twice.
        t.equal((await postOtlp(app, key, spans)).statusCode, 200)
        await app.otlp.materializeDue()
        t.equal((await scoresOf(app, TRACE)).length, 3)
        t.same([...created.values()], [1, 1, 1], 'one score.created per score')
        ids.push(scores.map((s) => s.score_id).sort())
      })
    }
    t.same(ids[0], ids[1], 'score ids are made of where each event was said: the same in any Loupe')
  },
)

t.test('an evaluation its score config refuses is logged; the trace and its other scores are stored', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
  const { key } = await createProject(app)
  const warnings: unknown[] = []
  const warn = app.log.warn.bind(app.log)
  app.log.warn = ((obj: unknown, ...rest: unknown[]) => {
    warnings.push(obj)
    return (warn as (...a: unknown[]) => void)(obj, ...rest)
  }) as typeof app.log.warn
  const put = await app.inject({
    method: 'PUT',
    url: '/score-configs/rating',
    payload: { data_type: 'numeric', max: 5 },
  })
  t.equal(put.statusCode, 201)
  const evaluation = (evalName: string, value: number) => ({
    name: 'gen_ai.evaluation.result',
    timeUnixNano: nanos(BASE + 1),
    attributes: [
      { key: 'gen_ai.evaluation.name', value: { stringValue: evalName } },
      { key: 'gen_ai.evaluation.score.value', value: { doubleValue: value } },
    ],
  })
  const res = await postOtlp(
    app,
    key,
    exportOf(jsonSpan(spanId('r'), { events: [evaluation('rating', 9), evaluation('other', 9)] })),
  )
  t.equal(res.statusCode, 200)
  const scores = await waitFor(async () => {
    const found = await scoresOf(app, TRACE)
    return found.length > 0 ? found : undefined
  })
  t.match(scores, [{ name: 'other', value: 9 }])
  t.equal(scores.length, 1)
  t.match(warnings, [{ trace_id: TRACE, reasons: [/evaluations\/0\/value must be <= 5/] }])
})

t.test('a captured GenAI export replayed twice: its evaluation is a score of the step it judged, once', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
  const { key } = await createProject(app)
  const created = announced(app)
  const fixture = libraryFixtures('genai-latest').get('details-json')!
  const first = await replay(app, key, fixture)
  const again = await replay(app, key, fixture)
  const stored = first.traces[0]!
  t.same(again.traces[0], stored, 'the trace did not change')
  const scores = await scoresOf(app, stored.trace_id)
  t.match(scores, [
    {
      name: 'relevance',
      data_type: 'numeric',
      value: 0.9,
      step_index: stored.steps.findIndex((s) => s.name === 'chat gpt-4o'),
      comment: 'Answers the question.',
      source: 'evaluator',
      metadata: { label: 'relevant', otel: { span_id: 'a000000000000002', response_id: 'chatcmpl-it1' } },
    },
  ])
  t.equal(scores.length, 1)
  t.not(scores[0]!.step_index, -1)
  t.same([...created.values()], [1])
})
