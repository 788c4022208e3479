// Deletion keeps every figure exact, on the store under test: after random deletions — single traces, random filters,
// whole projects — the rollup tables, /analytics, /failures and list totals equal those of a fresh store holding
// only the surviving traces (rollups counted from scratch by ingest).
import t, { type Test } from 'tap'
import type { Trace } from '../../schemas/index.js'
import { mulberry32, seed } from '../../src/seed/seed.js'
import { ROLLUP_TABLES } from '../../src/store/rollups.js'
import type { Store, TraceFilter } from '../../src/store/types.js'
import { allRows, createTestStore, storeUnderTest } from '../helper.js'

const NOW = Date.UTC(2026, 10, 21, 13, 30)
const SLOW = 5000

async function everyTrace(store: Store): Promise<Trace[]> {
  const out: Trace[] = []
  for await (const chunk of store.walkTraces({}, 1000)) out.push(...chunk)
  return out
}

/** Every rollup row, as plain sorted JSON (numbers as numbers on both stores). */
async function rollups(store: Store) {
  const rows = await allRows(store)
  return Object.fromEntries(
    ROLLUP_TABLES.map((table) => [
      table,
      (rows[table] ?? []).map((r) => JSON.stringify(Object.entries(r).map(([k, v]) => [k, Number(v) || v]))).sort(),
    ]),
  )
}

/** What a recount from scratch gives: a fresh store that ingested the survivors. */
async function recount(t: Test, survivors: Trace[]): Promise<Store> {
  const fresh = await createTestStore(t)
  for (let i = 0; i < survivors.length; i += 500) await fresh.insertTraces(survivors.slice(i, i + 500))
  return fresh
}

async function sameFigures(t: Test, store: Store, what: string, filters: TraceFilter[]) {
  const survivors = await everyTrace(store)
  const fresh = await recount(t, survivors)
  t.same(await rollups(store), await rollups(fresh), `${what}: every rollup row equals a recount`)
  for (const project_id of [undefined, 'support-bot', 'code-assistant']) {
    t.same(
      await store.analytics({ project_id, now: NOW, slowThresholdMs: SLOW }),
      await fresh.analytics({ project_id, now: NOW, slowThresholdMs: SLOW }),
      `${what}: /analytics ${project_id ?? 'all'}`,
    )
    t.same(
      await store.failures({ project_id, limit: 10, slowThresholdMs: SLOW }),
      await fresh.failures({ project_id, limit: 10, slowThresholdMs: SLOW }),
      `${what}: /failures ${project_id ?? 'all'}`,
    )
  }
  for (const f of filters) {
    t.equal(
      (await store.listTraces(f, { limit: 1, offset: 0 })).total,
      (await fresh.listTraces(f, { limit: 1, offset: 0 })).total,
      `${what}: list total ${JSON.stringify(f)}`,
    )
  }
  return survivors
}

t.test(`random deletions keep every figure equal to a recount (${storeUnderTest})`, async (t) => {
  const store = await createTestStore(t)
  await seed({ store, traces: 2500, days: 2, now: NOW, random: mulberry32(21) })
  const rnd = mulberry32(99)
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!
  const filters: TraceFilter[] = [
    {},
    { status: 'failed' },
    { min_latency: SLOW },
    { max_tokens: 200 },
    { project_id: 'support-bot', environment: 'production' },
    { since: NOW - 86_400_000 },
  ]
  let traces = await everyTrace(store)
  const before = traces.length

  // Single traces, by id.
  for (const trace of Array.from({ length: 40 }, () => pick(traces))) {
    await store.deleteTraces({ filter: {}, trace_ids: [trace.trace_id], limit: 1 })
  }
  const gone = await store.deleteTraces({ filter: {}, trace_ids: [traces[0]!.trace_id, 'no-such-trace'], limit: 5 })
  t.ok(gone.length <= 1, 'an unknown id deletes nothing')
  traces = await sameFigures(t, store, 'after single deletions', filters)

  // Random filters, in small batches (as the service runs them).
  for (let round = 0; round < 4; round++) {
    const sample = pick(traces)
    const f: TraceFilter = pick<TraceFilter>([
      { status: pick(['failed', 'warning', 'success'] as const) },
      { project_id: sample.project_id, model: sample.model ?? undefined },
      { min_latency: sample.latency },
      { until: Date.parse(sample.created_at) },
      { environment: sample.environment, max_tokens: sample.token_count },
    ])
    const matching = (await store.listTraces(f, { limit: 1, offset: 0 })).total
    let deleted = 0
    for (let i = 0; i < 3; i++) deleted += (await store.deleteTraces({ filter: f, limit: 37 })).length
    t.equal(
      deleted,
      Math.min(matching, 111),
      `round ${round}: ${JSON.stringify(f)} deleted what matched, batch by batch`,
    )
  }
  traces = await sameFigures(t, store, 'after filtered deletions', filters)

  // A whole project: its traces, then the project with its keys.
  t.equal(await store.deleteProject('support-bot'), 'has-traces', 'a project with traces is not deleted')
  while ((await store.deleteTraces({ filter: { project_id: 'support-bot' }, limit: 500 })).length > 0) {}
  const removed = await store.deleteProject('support-bot')
  t.match(removed, { api_keys: Number, pending_spans: 0 })
  t.equal(await store.getProject('support-bot'), null)
  t.same(await store.listApiKeys('support-bot'), [])
  t.equal(await store.deleteProject('support-bot'), 'not-found')
  traces = await sameFigures(t, store, 'after a project deletion', filters)
  t.ok(traces.length < before, `${before - traces.length} traces deleted in all`)
  t.notOk(
    traces.some((x) => x.project_id === 'support-bot'),
    'no trace of the deleted project is left',
  )
  t.equal((await store.stats()).traces, traces.length, 'the store counts what is left')
})
