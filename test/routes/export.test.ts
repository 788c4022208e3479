// GET /traces/export: NDJSON lines are the traces exactly as GET /traces/{trace_id} answers them, CSV rows hold the
// flat fields (parsed back by an independent RFC 4180 reader), every GET /traces filter applies, the walk crosses
// chunk boundaries without losing or repeating a trace (ties on created_at included), and a project key exports
// only its own project; an export that takes longer than REQUEST_TIMEOUT_MS is not cut short, and one that could run
// at once still lets the event loop turn between its chunks.
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { exportCsvExample, traceExample } from '../../schemas/examples.js'
import { CSV_COLUMNS, type Trace } from '../../schemas/index.js'
import { csvRow, EXPORT_CHUNK, traceCsvRow } from '../../src/services/export.js'
import type { TraceFilter } from '../../src/store/types.js'
import { buildTestApp, createProject, createTestStore, postBatch } from '../helper.js'

/** RFC 4180 records of a CSV text (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"'
        i++
      } else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') quoted = true
    else if (c === ',') {
      row.push(field)
      field = ''
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field)
      rows.push(row)
      row = []
      field = ''
      i++
    } else field += c
  }
  if (field !== '' || row.length > 0) rows.push([...row, field])
  return rows
}

const AT = '2026-11-20T08:00:00.000Z'

t.test('NDJSON: every trace, newest first, each line exactly the API answer; filters apply', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app)
  const traces = Array.from({ length: 1200 }, (_, i) => ({
    trace_id: `ex-${String(i).padStart(4, '0')}`,
    prompt: `p${i}`,
    status: i % 3 === 0 ? 'failed' : 'success',
    // Keys out of order (jsonb keeps its own) and numbers JSON writes its own way: the line must still be the API's.
    tags: ['zeta', 'alpha'],
    metadata: { zulu: i, alpha: { two: 2, one: 1.5 }, big: 1e21, tiny: 1e-7 },
    steps: [{ name: 'retrieve', tool: 'search', latency: 12.5, metadata: { zulu: 'z', alpha: 'a' } }],
    // Many traces share each instant: the walk must order ties by trace_id across chunk boundaries.
    created_at: new Date(Date.parse(AT) + Math.floor(i / 7) * 1000).toISOString(),
  }))
  for (let i = 0; i < traces.length; i += 1000) {
    t.equal((await postBatch(app, key, traces.slice(i, i + 1000))).json().accepted, Math.min(1000, traces.length - i))
  }
  const res = await app.inject('/traces/export')
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/x-ndjson')
  t.match(res.headers['content-disposition'], /filename="loupe-traces\.ndjson"/)
  const lines = res.body.split('\n')
  t.equal(lines.pop(), '', 'ends with a newline')
  t.equal(lines.length, 1200, 'every trace once')
  t.equal(new Set(lines.map((l) => JSON.parse(l).trace_id)).size, 1200, 'none repeated')
  const listed = (await app.inject('/traces?limit=1000')).json().items as Trace[]
  t.same(
    lines.slice(0, 1000).map((l) => JSON.parse(l).trace_id),
    listed.map((x) => x.trace_id),
    'the order of GET /traces',
  )
  for (const line of [lines[0]!, lines[599]!, lines[1199]!]) {
    const id = JSON.parse(line).trace_id
    t.equal(line, (await app.inject(`/traces/${id}`)).body, `${id}: the line is the API's answer, byte for byte`)
  }
  const failed = await app.inject('/traces/export?status=failed&format=ndjson')
  t.equal(failed.body.split('\n').filter(Boolean).length, 400)
  const ranged = await app.inject(`/traces/export?since=${AT}&until=${new Date(Date.parse(AT) + 10_000).toISOString()}`)
  t.equal(ranged.body.split('\n').filter(Boolean).length, 70, 'ten seconds of seven traces each')
})

t.test('CSV: a header and one row per trace; quoting survives commas, quotes and line breaks', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app)
  const tricky = 'one, "two"\nthree\r\nfour'
  await postBatch(app, key, [
    { trace_id: 'c-1', prompt: tricky, tags: ['a,b'], metadata: { k: 'v"' }, created_at: AT, steps: [{ name: 's' }] },
    { trace_id: 'c-2', prompt: 'plain', model: null, created_at: '2026-11-20T07:00:00Z' },
  ])
  const res = await app.inject('/traces/export?format=csv')
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'text/csv; charset=utf-8')
  const rows = parseCsv(res.body)
  t.same(rows[0], CSV_COLUMNS)
  t.equal(rows.length, 3)
  const first = Object.fromEntries(CSV_COLUMNS.map((c, i) => [c, rows[1]![i]]))
  const trace = (await app.inject('/traces/c-1')).json() as Trace
  t.equal(first.trace_id, 'c-1')
  t.equal(first.prompt, tricky)
  t.equal(first.tags, '["a,b"]')
  t.same(JSON.parse(first.metadata!), { k: 'v"' })
  t.equal(first.latency, String(trace.latency))
  t.equal(first.created_at, AT)
  t.equal(first.step_count, '1')
  const second = Object.fromEntries(CSV_COLUMNS.map((c, i) => [c, rows[2]![i]]))
  t.equal(second.model, '', 'null is an empty field')
  t.equal(second.step_count, '0')
})

t.test('bad input is a 400 naming the field; a project key exports only its project', async (t) => {
  const adminToken = 'export-admin-token-0123456789'
  const app = await buildTestApp(t, { config: { adminToken } })
  const a = await createProject(app, 'A', 'production', adminToken)
  const b = await createProject(app, 'B', 'production', adminToken)
  await postBatch(app, a.key, [{ prompt: 'a1' }, { prompt: 'a2' }])
  await postBatch(app, b.key, [{ prompt: 'b1' }])
  const as = (token: string, url: string) => app.inject({ url, headers: { authorization: `Bearer ${token}` } })
  const bad = await as(adminToken, '/traces/export?format=xml')
  t.equal(bad.statusCode, 400)
  t.match(bad.json().message, /format/)
  t.equal((await as(adminToken, '/traces/export?min_latency=-1')).statusCode, 400)
  t.equal((await app.inject('/traces/export')).statusCode, 401)
  const mine = await as(a.key, '/traces/export')
  t.same(
    mine.body
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).project_id),
    [a.project_id, a.project_id],
  )
  t.equal((await as(a.key, `/traces/export?project_id=${b.project_id}`)).statusCode, 403)
  t.equal((await as(adminToken, '/traces/export')).body.split('\n').filter(Boolean).length, 3)
})

t.test('the documented CSV example is what the export writes for the example trace', async (t) => {
  t.equal(
    csvRow(CSV_COLUMNS) + traceCsvRow(traceExample as Trace, { helpfulness: { count: 1, mean: 0.8 } }),
    exportCsvExample,
  )
})

t.test('an export longer than REQUEST_TIMEOUT_MS runs to its end', async (t) => {
  // The store hands out its chunks slowly, so that the answer lasts well past the timeout of every other request.
  const store = await createTestStore(t)
  const slow = {
    ...store,
    async *walkTraces<T>(filter: TraceFilter, chunk: number, each: (trace: Trace) => T) {
      for await (const items of store.traces.walk(filter, chunk, each)) {
        await sleep(200)
        yield items
      }
    },
  }
  const app = await buildTestApp(t, { store: slow, config: { requestTimeoutMs: 100 } })
  const { key } = await createProject(app)
  // Two batches (1000 is a batch's most): 1600 traces.
  for (const [length, prefix] of [
    [1000, 'p'],
    [600, 'q'],
  ] as const) {
    const batch = Array.from({ length }, (_, i) => ({ prompt: `${prefix}${i}` }))
    t.equal((await postBatch(app, key, batch)).json().accepted, length)
  }
  // Chunks of EXPORT_CHUNK traces, 200 ms each: past the handler's 1.1 s.
  const res = await app.inject('/traces/export?format=ndjson')
  t.equal(res.statusCode, 200)
  t.equal(res.body.split('\n').filter((line) => line !== '').length, 1600, 'every trace, none cut off')
})

t.test('an export lets the event loop turn between its chunks', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app)
  const traces = Array.from({ length: 5 * EXPORT_CHUNK }, (_, i) => ({ prompt: `p${i}` }))
  for (let i = 0; i < traces.length; i += 1000) {
    t.equal((await postBatch(app, key, traces.slice(i, i + 1000))).json().accepted, Math.min(1000, traces.length - i))
  }
  // The store answers at once and inject takes every write at once: only the export's own waits let a turn happen.
  let turns = 0
  let ticking = true
  const tick = () => {
    turns++
    if (ticking) setImmediate(tick)
  }
  setImmediate(tick)
  const res = await app.inject('/traces/export?format=ndjson')
  ticking = false
  t.equal(res.body.split('\n').filter((line) => line !== '').length, traces.length, 'every trace')
  t.ok(turns >= 5, `the event loop turned ${turns} times during the 5 chunks`)
})
