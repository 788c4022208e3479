// Upgrading a database written by an earlier release: opened by this one, it is migrated, values stored before
// numbers were bounded are brought within the bounds, token counts stored before `tokens_reported` existed are
// judged, and every rollup is recounted from the traces, exactly.
import { rmSync } from 'node:fs'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'
import t, { type Test } from 'tap'
import { TraceSchema } from '../../schemas/index.js'
import { createPostgresStore } from '../../src/store/postgres/store.js'
import { createSqliteStore } from '../../src/store/sqlite/store.js'
import { toJson } from '../../src/store/to-json.js'
import type { Store } from '../../src/store/types.js'
import { dropSchema, schemaErrors, TEST_DATABASE, testSchemaName, withSchema } from '../helper.js'
import { earlierMigrations, earlierSqliteDatabase } from './earlier-migrations.js'

const HOUR = 3_600_000
const T0 = Date.parse('2026-11-21T10:00:00Z')
/** Rows as release 0.1.0 stored them: float latency sums, and the values it let through. */
const OLD_TRACES: [string, number, number, number][] = [
  // trace_id, latency, token_count, created_at
  ['a', 1e308, 5, T0],
  ['b', 0.8016660000000044, 1e11 + 7, T0 + 10],
  ['c', 1200.5, 40, T0 + HOUR],
  ['d', 250, 0, T0 + HOUR + 1],
]

/** A step as releases before `parent_index` stored it (trace 'd' has two). */
const OLD_STEP = {
  index: 0,
  name: 'search',
  type: 'tool',
  tool: 'search',
  status: 'success',
  latency: 12,
  token_count: null,
  input: { q: 'x' },
  output: null,
  error: null,
  started_at: null,
  metadata: { a: [1] },
}
const OLD_STEPS = JSON.stringify([OLD_STEP, { ...OLD_STEP, index: 1 }])

/** Steps stored before `parent_index` read back with it, null (top level), in StepSchema's order. */
async function checkSteps(t: Test, store: Store) {
  const d = await store.traces.get('d')
  t.same(d?.steps, [
    { ...OLD_STEP, parent_index: null, cost: null },
    { ...OLD_STEP, index: 1, parent_index: null, cost: null },
  ])
  t.same(schemaErrors(TraceSchema, d), [], 'the migrated trace conforms to TraceSchema')
  t.equal(
    JSON.stringify(JSON.parse(toJson(d)).steps[0]),
    JSON.stringify({ ...OLD_STEP, parent_index: null, cost: null }),
    'parent_index then cost are serialized last, as normalization writes them',
  )
  t.same((await store.traces.get('c'))?.steps, [], 'a trace without steps keeps none')
}

const traceColumns =
  'trace_id, project_id, environment, name, model, prompt, response, latency, token_count, prompt_tokens, ' +
  'completion_tokens, status, failure_reason, retry_count, session_id, user_id, tags, metadata, created_at, steps'
const oldRow = ([id, latency, tokens, at]: (typeof OLD_TRACES)[number]) => [
  id,
  'p',
  'production',
  null,
  'm',
  'prompt',
  null,
  latency,
  tokens,
  null,
  null,
  'success',
  null,
  0,
  null,
  null,
  '[]',
  '{}',
  at,
  id === 'd' ? OLD_STEPS : '[]',
]

/** What analytics must say about OLD_TRACES once they are within bounds. */
function check(t: Test, summary: Record<string, number>, charts: { tokens: number; traces: number }[]) {
  const latencies = [604_800_000, 0.802, 1200.5, 250]
  const micros = latencies.reduce((s, l) => s + BigInt(Math.round(l * 1000)), 0n)
  t.equal(summary.total_traces, 4)
  t.equal(summary.total_token_usage, 5 + 1e11 + 40, 'the token count past the bound is cut to the bound')
  t.equal(summary.average_latency, Number((2n * micros + 40n) / 80n) / 100, 'exact mean of the bounded latencies')
  t.equal(summary.p95_latency, 604_800_000)
  t.equal(summary.slow_requests, 1)
  t.equal(summary.traces_without_tokens, 1, 'd: a 0 with no parts beside it is taken as not reported')
  t.equal(
    charts.reduce((s, c) => s + c.traces, 0),
    4,
  )
}

/** A step as the previous release stored it: no cost. */
const SEARCHABLE_STEPS = JSON.stringify([
  {
    index: 0,
    name: 'search',
    type: 'tool',
    tool: 'search',
    status: 'success',
    latency: null,
    token_count: null,
    input: 'needle in an old step',
    output: null,
    error: null,
    started_at: null,
    metadata: {},
  },
  {
    index: 1,
    name: 'planner',
    type: 'agent',
    tool: null,
    status: 'failed',
    latency: 3.5,
    token_count: null,
    input: null,
    output: null,
    error: 'gave up',
    started_at: null,
    metadata: {},
  },
])

/** What later releases added, on an upgraded database: costs (unpriced), search, sessions, scores, datasets. */
async function checkAdditions(t: Test, store: Store) {
  const a = await analyticsOf(store)
  t.equal(a.summary.unpriced_traces, 4, 'older traces are unpriced')
  t.equal(a.summary.total_cost, 0)
  const b = await store.traces.get('b')
  t.strictSame(
    b?.steps.map((s) => s.cost),
    [null, null],
    'their steps gain a null cost',
  )
  t.same(
    { agents: a.agent_breakdown, tools: a.tool_breakdown },
    {
      agents: [{ key: 'planner', traces: 1, calls: 1, failures: 1, mean_latency: 3.5 }],
      tools: [{ key: 'search', traces: 2, calls: 3, failures: 0, mean_latency: 12 }],
    },
    'the agents and tools of older traces are counted',
  )
  t.strictSame(
    (await store.traces.list({ agent: 'planner' }, { limit: 10, offset: 0 })).items.map((tr) => tr.trace_id),
    ['b'],
    'older traces are found by their agents',
  )
  const found = await store.traces.list({ q: ['needle in an old'] }, { limit: 10, offset: 0 })
  t.strictSame(
    found.items.map((tr) => tr.trace_id),
    ['b'],
    'older traces are searchable',
  )
  t.equal((await store.traces.list({ q: ['prompt'] }, { limit: 10, offset: 0 })).total, 4)
  t.match(b, { experiment_id: null, dataset_item_id: null }, 'older traces are runs of no experiment')
  t.equal((await store.traces.list({ experiment_id: 'e' }, { limit: 10, offset: 0 })).total, 0)
  await store.datasets.create({
    dataset_id: 'ds',
    project_id: 'p',
    name: 'upgraded',
    description: '',
    metadata: {},
    created_at: T0,
    updated_at: T0,
  })
  const item = {
    item_id: 'it',
    version: 1,
    dataset_id: 'ds',
    status: 'active' as const,
    input: { q: 'b' },
    expected_output: 'x',
    metadata: {},
    source_trace_id: 'b',
    created_at: T0,
    valid_from: T0,
    valid_to: null,
  }
  await store.datasets.addItems([item])
  t.same(
    (await store.datasets.listItems({ dataset_id: 'ds', include_archived: false, limit: 10 })).items,
    [item],
    'a dataset and its items are kept on an upgraded database',
  )
  const score = {
    score_id: 'upgraded-1',
    project_id: 'p',
    trace_id: 'b',
    step_index: null,
    session_id: null,
    name: 'helpfulness',
    data_type: 'numeric' as const,
    value: 0.5,
    label: null,
    comment: null,
    source: 'api' as const,
    author: null,
    created_at: new Date(T0).toISOString(),
    metadata: {},
  }
  t.match(await store.scores.insert([{ score, user_id: null }]), [{ kind: 'created' }], 'an older trace can be scored')
  t.match(await store.scores.analytics(undefined, T0), [{ name: 'helpfulness', count: 1, mean: 0.5 }])
  await store.traces.delete({ filter: {}, trace_ids: ['b'], limit: 10 })
  t.same(await store.scores.analytics(undefined, T0), [], 'and its score goes with it')
  const after = await analyticsOf(store)
  t.same(
    { agents: after.agent_breakdown, tools: after.tool_breakdown },
    { agents: [], tools: [{ key: 'search', traces: 1, calls: 2, failures: 0, mean_latency: 12 }] },
    'an older trace deleted takes its calls away',
  )
  t.equal((await store.traces.list({ agent: 'planner' }, { limit: 10, offset: 0 })).total, 0)
  t.equal(await store.scores.get('upgraded-1'), null)
}

async function analyticsOf(store: Store) {
  return store.traces.analytics({ now: T0 + 2 * HOUR, slowThresholdMs: 5000 })
}

t.test('SQLite: a database of the previous release is migrated and its rollups recounted exactly', async (t) => {
  const { file, db: old } = earlierSqliteDatabase(t, 2)
  const insert = old.prepare(`insert into traces (${traceColumns}) values (${traceColumns.replace(/\w+/g, '?')})`)
  for (const row of OLD_TRACES) insert.run(...oldRow(row))
  old.prepare(`update traces set steps = ? where trace_id = 'b'`).run(SEARCHABLE_STEPS)
  // The old rollups as the bug left them: a latency sum of Infinity.
  old
    .prepare(
      `insert into rollup_totals (project_id, environment, model, status, traces, retries, latency_sum, tokens)
       values ('p', 'production', 'm', 'success', 4, 0, 9e999, 100000000045)`,
    )
    .run()
  old.close()

  const store = createSqliteStore(file)
  t.teardown(() => store.close())
  const a = await analyticsOf(store)
  check(t, a.summary as unknown as Record<string, number>, a.charts)
  const b = await store.traces.get('b')
  t.equal(b?.latency, 0.802, 'float noise rounded to microseconds')
  await checkSteps(t, store)
  t.same([b?.tokens_reported, (await store.traces.get('d'))?.tokens_reported], [true, false])
  t.equal(
    (store.raw.prepare(`select count(*) as n from loupe_meta where key like '%_stale'`).get() as { n: number }).n,
    0,
    'rebuilt once',
  )
  await checkAdditions(t, store)
})

t.test(
  'PostgreSQL: a database of the previous release is migrated and its rollups recounted exactly',
  { skip: TEST_DATABASE ? false : 'the PostgreSQL run covers this' },
  async (t) => {
    const url = TEST_DATABASE as string
    const schema = testSchemaName()
    const migrations = earlierMigrations('postgres', 2)
    t.teardown(async () => {
      rmSync(migrations, { recursive: true, force: true })
      await dropSchema(url, schema)
    })
    const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` })
    await client.connect()
    await client.query(`create schema ${schema}`)
    await migratePg(drizzlePg(client), { migrationsFolder: migrations, migrationsSchema: schema })
    for (const row of OLD_TRACES) {
      // int4 could not hold the oversized count: the old release refused it, so it is not there.
      const values = oldRow(row[2] > 2 ** 31 ? [row[0], row[1], 7, row[3]] : row)
      await client.query(
        `insert into traces (${traceColumns}) values (${values.map((_, i) => `$${i + 1}`).join(', ')})`,
        values,
      )
      await client.query(`insert into trace_ids (trace_id, project_id) values ($1, 'p')`, [row[0]])
    }
    await client.query(`update traces set steps = $1::jsonb where trace_id = 'b'`, [SEARCHABLE_STEPS])
    await client.query(
      `insert into rollup_totals (project_id, environment, model, status, traces, retries, latency_sum, tokens)
       values ('p', 'production', 'm', 'success', 4, 0, 'Infinity', 52)`,
    )
    await client.end()

    const store = await createPostgresStore(withSchema(url, schema), { poolSize: 2 })
    t.teardown(() => store.close())
    const a = await analyticsOf(store)
    const summary = a.summary as unknown as Record<string, number>
    t.equal(summary.total_token_usage, 5 + 7 + 40)
    t.equal(summary.total_traces, 4)
    const latencies = [604_800_000, 0.802, 1200.5, 250]
    const micros = latencies.reduce((s, l) => s + BigInt(Math.round(l * 1000)), 0n)
    t.equal(summary.average_latency, Number((2n * micros + 40n) / 80n) / 100)
    t.equal(summary.p95_latency, 604_800_000)
    t.equal((await store.traces.get('b'))?.latency, 0.802)
    await checkSteps(t, store)
    t.equal(summary.traces_without_tokens, 1, 'd: a 0 with no parts beside it is taken as not reported')
    t.same(
      [(await store.traces.get('b'))?.tokens_reported, (await store.traces.get('d'))?.tokens_reported],
      [true, false],
    )
    t.equal(
      (await store.pool.query("select count(*)::int as n from loupe_meta where key like '%_stale'")).rows[0].n,
      0,
      'rebuilt once',
    )
    await checkAdditions(t, store)
  },
)
