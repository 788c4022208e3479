// The store's pending OTLP spans: idempotent on (trace_id, span_id), guarded by project, listed per trace, durable.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import t from 'tap'
import { OtlpSpanSchema } from '../../schemas/otlp.js'
import type { Trace } from '../../schemas/trace.js'
import { normalizeTrace } from '../../src/ingest/normalize.js'
import { unreported } from '../../src/store/reported-cost.js'
import { createSqliteStore } from '../../src/store/sqlite/store.js'
import type { PendingSpan } from '../../src/store/types.js'
import { createTestStore } from '../helper.js'
import { span, spanId, TRACE_ID } from '../otlp/spans.js'

const pending = (id: string, fields: Partial<PendingSpan> & { parent?: string } = {}): PendingSpan => {
  const { parent, ...rest } = fields
  return {
    trace_id: TRACE_ID,
    span_id: spanId(id),
    project_id: 'p',
    environment: 'production',
    is_root: parent === undefined,
    received_at: 1000,
    span: span(id, parent === undefined ? {} : { parent }),
    ...rest,
  }
}

/** The smallest trace normalization makes, stored under `project_id`. */
const storedTrace = (project_id: string): Trace =>
  normalizeTrace(
    { trace_id: TRACE_ID, prompt: '' },
    { project_id, environment: 'production' },
    { now: 0, newId: () => '' },
  )

t.test('a span is added once; the same trace_id + span_id again is a duplicate, even within one call', async (t) => {
  const store = await createTestStore(t)
  t.same(await store.pending.add([pending('a', { parent: 'r' }), pending('a', { parent: 'r' })]), [
    'added',
    'duplicate',
  ])
  t.same(await store.pending.add([pending('a', { parent: 'r', received_at: 2000 })]), ['duplicate'])
  t.equal((await store.pending.get(TRACE_ID)).length, 1)
})

t.test('a trace id pending or stored for another project is a conflict; stored for this one is `stored`', async (t) => {
  const store = await createTestStore(t)
  t.same(await store.pending.add([pending('a', { parent: 'r' })]), ['added'])
  t.same(await store.pending.add([pending('b', { project_id: 'other' })]), ['conflict'])

  const other = await createTestStore(t)
  await other.traces.insert([unreported(storedTrace('p'))])
  t.same(await other.pending.add([pending('a'), pending('b', { project_id: 'q' })]), ['stored', 'conflict'])
  t.same(await other.pending.listTraces(), [], 'nothing is kept for a stored trace')
})

t.test('within one call, each span is judged after the ones before it', async (t) => {
  const store = await createTestStore(t)
  t.same(
    await store.pending.add([
      pending('a', { parent: 'r' }),
      pending('b', { project_id: 'other' }),
      pending('c', { parent: 'r' }),
      pending('a', { parent: 'r' }),
      pending('d', { trace_id: 'f'.repeat(32), project_id: 'other' }),
      pending('e', { trace_id: 'f'.repeat(32) }),
    ]),
    ['added', 'conflict', 'added', 'duplicate', 'added', 'conflict'],
  )
  t.same(
    (await store.pending.get(TRACE_ID)).map((r) => r.span_id),
    [spanId('a'), spanId('c')],
    'only what was added is kept, in arrival order',
  )
  t.same(await store.pending.add([pending('c', { parent: 'r' }), pending('f', { parent: 'r' })]), [
    'duplicate',
    'added',
  ])
})

t.test('pending traces: when the first root arrived, when the latest span did, how many spans', async (t) => {
  const store = await createTestStore(t)
  await store.pending.add([pending('c1', { parent: 'r', received_at: 1000 })])
  t.same(await store.pending.listTraces(), [
    {
      trace_id: TRACE_ID,
      project_id: 'p',
      environment: 'production',
      root_received_at: null,
      last_received_at: 1000,
      spans: 1,
    },
  ])
  await store.pending.add([pending('r', { received_at: 3000 }), pending('c2', { parent: 'r', received_at: 3000 })])
  const [trace] = await store.pending.listTraces()
  t.match(trace, { root_received_at: 3000, last_received_at: 3000, spans: 3 })
})

t.test(
  'spans come back in arrival order, conform to OtlpSpanSchema, and only the named ones are deleted',
  async (t) => {
    const store = await createTestStore(t)
    await store.pending.add([pending('z', { parent: 'r' }), pending('a', { parent: 'r' })])
    await store.pending.add([pending('r', { received_at: 500 })])
    const rows = await store.pending.get(TRACE_ID)
    t.same(
      rows.map((r) => r.span_id),
      ['z', 'a', 'r'].map(spanId),
    )
    for (const row of rows) t.ok(Value.Check(OtlpSpanSchema, row.span), `span ${row.span_id} conforms`)
    t.equal(rows[2]?.is_root, true)
    await store.pending.delete([{ trace_id: TRACE_ID, span_ids: [rows[0]!.span_id, rows[2]!.span_id] }])
    t.same(
      (await store.pending.get(TRACE_ID)).map((r) => r.span_id),
      [spanId('a')],
    )
  },
)

t.test('pending spans survive closing and reopening a file database', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-pending-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const url = join(dir, 'loupe.db')
  const first = createSqliteStore(url)
  await first.pending.add([pending('a', { parent: 'r' })])
  await first.close()
  const second = createSqliteStore(url)
  t.teardown(() => second.close())
  t.same(await second.pending.get(TRACE_ID), [pending('a', { parent: 'r' })])
})
