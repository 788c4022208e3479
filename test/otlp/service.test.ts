// The OTLP service's lifecycle: pending spans survive a restart and are stored when due; a store failure while
// materializing leaves them pending for a retry; closing the app stops the timer.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { buildApp } from '../../src/app.js'
import { defaultConfig } from '../../src/config.js'
import { InvalidInput } from '../../src/errors.js'
import { buildTestApp, createProject } from '../helper.js'
import { exportOf, jsonSpan, postOtlp, recordAnnouncements, TRACE } from './http.js'

const ROOT = 'aaaaaaaaaaaaaaa1'
const CHILD = 'aaaaaaaaaaaaaaa2'

t.test('spans pending when the app stops are stored by the next start, once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-otlp-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  // No overload check: a busy test machine must not turn this test's requests into 503s.
  const config = {
    ...defaultConfig(),
    databaseUrl: join(dir, 'loupe.db'),
    logLevel: 'silent' as const,
    maxEventLoopDelayMs: 0,
  }

  const first = await buildApp({ ...config, otlpRootGraceMs: 60_000 }, { logger: false })
  await first.ready()
  const { key } = await createProject(first)
  const firstEvents = recordAnnouncements(first)
  await postOtlp(first, key, exportOf(jsonSpan(CHILD, { parent: ROOT }), jsonSpan(ROOT)))
  await first.close()
  t.equal(firstEvents.size, 0, 'not due before the app stopped')

  const second = await buildApp({ ...config, otlpRootGraceMs: 0 }, { logger: false })
  const secondEvents = recordAnnouncements(second)
  await second.ready()
  t.teardown(() => second.close())
  const trace = (await second.inject(`/traces/${TRACE}`)).json()
  t.equal(trace.name, `span ${ROOT}`)
  t.equal(trace.steps.length, 1)
  t.equal(secondEvents.get(TRACE), 1)
  t.same(await second.store.pending.listTraces(), [])
})

t.test('a store failure while materializing keeps the spans pending; the export still succeeds', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
  const { key } = await createProject(app)
  const getPendingSpans = app.store.pending.get
  app.store.pending.get = async () => {
    throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' })
  }
  const res = await postOtlp(app, key, exportOf(jsonSpan(ROOT)))
  t.equal(res.statusCode, 200)
  t.same(res.json(), {})
  t.equal((await app.inject(`/traces/${TRACE}`)).statusCode, 404)
  t.equal((await app.store.pending.listTraces()).length, 1, 'the span is still pending')

  app.store.pending.get = getPendingSpans
  t.equal(await app.otlp.materializeDue(), 1)
  t.equal((await app.inject(`/traces/${TRACE}`)).statusCode, 200)
})

t.test('closing the app while a trace waits stops the timer: nothing runs against the closed store', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 100 } })
  const { key } = await createProject(app)
  await postOtlp(app, key, exportOf(jsonSpan(ROOT)))
  // A sweep may run while the app closes (a slow close outlasts the grace); none may start once it has closed.
  let closed = false
  let sweptAfterClose = false
  const materializeDue = app.otlp.materializeDue
  app.otlp.materializeDue = async () => {
    if (closed) sweptAfterClose = true
    return materializeDue()
  }
  await app.close()
  closed = true
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.notOk(sweptAfterClose)
})

t.test('attribute values and keys named like object members make a trace like any other', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
  const { key } = await createProject(app)
  const attr = (k: string, v: string) => ({ key: k, value: { stringValue: v } })
  const res = await postOtlp(
    app,
    key,
    exportOf(
      jsonSpan(ROOT, { attributes: [attr('gen_ai.operation.name', 'constructor'), attr('__proto__', 'x')] }),
      jsonSpan(CHILD, {
        parent: ROOT,
        startMs: 1,
        attributes: [
          attr('openinference.span.kind', '__proto__'),
          attr('traceloop.span.kind', 'toString'),
          attr('llm.input_messages.0.__proto__', 'polluted?'),
          attr('constructor', 'hasOwnProperty'),
        ],
      }),
      jsonSpan('aaaaaaaaaaaaaaa3', {
        parent: ROOT,
        startMs: 2,
        attributes: [attr('gen_ai.operation.name', 'toString')],
      }),
    ),
  )
  t.equal(res.statusCode, 200)
  t.same(res.json(), {}, 'every span accepted')
  const trace = (await app.inject(`/traces/${TRACE}`)).json()
  t.equal(trace.name, `span ${ROOT}`, 'the root makes the trace')
  t.same(
    trace.steps.map((s: { type: string }) => s.type),
    ['other', 'other'],
    'an unknown kind is `other`, never a member of a lookup table',
  )
  t.equal(
    Object.getOwnPropertyDescriptor(trace.metadata, '__proto__')?.value,
    'x',
    'a `__proto__` attribute is a field',
  )
  t.equal(Object.getPrototypeOf(trace.metadata), Object.prototype)
  t.equal(trace.steps[0].metadata.constructor, 'hasOwnProperty')
  t.same(await app.store.pending.listTraces(), [])
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was touched')
})

t.test('spans with numbers no real call has are refused in partialSuccess; the others are kept', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
  const { key } = await createProject(app)
  const tokens = (value: unknown) => ({ key: 'gen_ai.usage.input_tokens', value })
  const res = await postOtlp(
    app,
    key,
    exportOf(
      jsonSpan(ROOT),
      jsonSpan(CHILD, { parent: ROOT, attributes: [tokens({ intValue: '100000000000000000000' })] }),
      jsonSpan('aaaaaaaaaaaaaaa3', { parent: ROOT, attributes: [tokens({ intValue: '100000001' })] }),
      jsonSpan('aaaaaaaaaaaaaaa4', {
        parent: ROOT,
        startTimeUnixNano: '1000000000000000000',
        endTimeUnixNano: '1000604800001000000',
      }),
      jsonSpan('aaaaaaaaaaaaaaa5', { parent: ROOT, attributes: [tokens({ intValue: '100000000' })] }),
    ),
  )
  t.equal(res.statusCode, 200)
  const { partialSuccess } = res.json()
  t.equal(partialSuccess.rejectedSpans, '3')
  t.match(partialSuccess.errorMessage, /2 spans: report more than 100000000 tokens for one call/)
  t.match(partialSuccess.errorMessage, /1 span: last more than a week/)
  const trace = (await app.inject(`/traces/${TRACE}`)).json()
  t.equal(trace.steps.length, 1, 'the span within bounds is a step')
  t.equal(trace.steps[0].token_count, 100_000_000)
})

t.test(
  'a trace that fails validation keeps every span pending, is counted in /health, and is tried again',
  async (t) => {
    let clock = Date.parse('2026-11-21T13:45:00Z')
    const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 }, now: () => clock })
    const { key } = await createProject(app)
    const ingestOne = app.ingest.ingestOne
    app.ingest.ingestOne = async () => {
      throw new InvalidInput('body/steps/0/name must NOT have fewer than 1 characters')
    }
    const res = await postOtlp(app, key, exportOf(jsonSpan(ROOT), jsonSpan(CHILD, { parent: ROOT })))
    t.equal(res.statusCode, 200)
    t.equal((await app.store.pending.listTraces())[0]?.spans, 2, 'both spans are still pending')
    t.same((await app.inject('/health')).json().otlp, { failed_traces: 1, unmatched_log_records: 0 })
    t.equal(await app.otlp.materializeDue(), 0, 'not tried again at once')

    app.ingest.ingestOne = ingestOne
    const pending = await app.store.pending.listTraces()
    t.equal(pending.length, 1)
    clock += 30_000
    t.equal(await app.otlp.materializeDue(), 0, 'held for a minute')
    clock += 31_000
    t.equal(await app.otlp.materializeDue(), 1, 'stored once it can be')
    t.equal((await app.inject(`/traces/${TRACE}`)).json().steps.length, 1)
    t.same((await app.inject('/health')).json().otlp, { failed_traces: 0, unmatched_log_records: 0 })
  },
)
