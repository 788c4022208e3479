// The OTLP service's lifecycle: pending spans survive a restart and are stored when due; a store failure while
// materializing leaves them pending for a retry; closing the app stops the timer.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { buildApp } from '../../src/app.js'
import { defaultConfig } from '../../src/config.js'
import { buildTestApp, createProject } from '../helper.js'
import { exportOf, jsonSpan, postOtlp, recordAnnouncements, TRACE } from './http.js'

const ROOT = 'aaaaaaaaaaaaaaa1'
const CHILD = 'aaaaaaaaaaaaaaa2'

t.test('spans pending when the app stops are stored by the next start, once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-otlp-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const config = { ...defaultConfig(), databaseUrl: join(dir, 'loupe.db'), logLevel: 'silent' as const }

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
  t.same(await second.store.listPendingTraces(), [])
})

t.test('a store failure while materializing keeps the spans pending; the export still succeeds', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
  const { key } = await createProject(app)
  const getPendingSpans = app.store.getPendingSpans
  app.store.getPendingSpans = async () => {
    throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' })
  }
  const res = await postOtlp(app, key, exportOf(jsonSpan(ROOT)))
  t.equal(res.statusCode, 200)
  t.same(res.json(), {})
  t.equal((await app.inject(`/traces/${TRACE}`)).statusCode, 404)
  t.equal((await app.store.listPendingTraces()).length, 1, 'the span is still pending')

  app.store.getPendingSpans = getPendingSpans
  t.equal(await app.otlp.materializeDue(), 1)
  t.equal((await app.inject(`/traces/${TRACE}`)).statusCode, 200)
})

t.test('closing the app while a trace waits stops the timer: nothing runs against the closed store', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 100 } })
  const { key } = await createProject(app)
  await postOtlp(app, key, exportOf(jsonSpan(ROOT)))
  let swept = false
  const materializeDue = app.otlp.materializeDue
  app.otlp.materializeDue = async () => {
    swept = true
    return materializeDue()
  }
  await app.close()
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.notOk(swept)
})
