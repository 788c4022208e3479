// The demo-data seeder (src/seed/seed.ts) and the API key helpers it shares with the HTTP routes.
import { createHash } from 'node:crypto'
import { Value } from '@sinclair/typebox/value'
import t from 'tap'
import { componentSchemas, type Trace, TraceSchema } from '../../schemas/index.js'
import { generateApiKey, hashApiKey, previewApiKey } from '../../src/lib/credentials.js'
import { mulberry32, SEED_PROJECT_IDS, seed } from '../../src/seed/seed.js'
import type { Store } from '../../src/store/types.js'
import { createTestStore } from '../helper.js'

// 2026-11-21T13:45:00.000Z
const NOW = 1_795_268_700_000
const DAY = 86_400_000
const COUNT = 3_000

/** Every stored trace, newest first. */
async function allTraces(store: Store): Promise<Trace[]> {
  const out: Trace[] = []
  for (let offset = 0; ; offset += 1000) {
    const page = await store.traces.list({}, { limit: 1000, offset })
    out.push(...page.items)
    if (out.length >= page.total || page.items.length === 0) return out
  }
}

const schemaErrors = (trace: Trace) =>
  [...Value.Errors(TraceSchema, [...componentSchemas], trace)].map((e) => `${e.path} ${e.message}`)

t.test('API key helpers', async (t) => {
  const keys = Array.from({ length: 200 }, generateApiKey)
  for (const key of keys) t.match(key, /^loupe_sk_[A-Za-z0-9]{32}$/)
  t.equal(new Set(keys).size, keys.length, 'keys do not repeat')
  // Every character class of the alphabet shows up across 6,400 random characters.
  const chars = keys.map((k) => k.slice(9)).join('')
  t.match(chars, /[A-Z]/)
  t.match(chars, /[a-z]/)
  t.match(chars, /[0-9]/)

  const key = 'loupe_sk_AbCd0123456789012345678901234WxYz'.slice(0, 9 + 32)
  t.equal(hashApiKey(key), createHash('sha256').update(key).digest('hex'))
  t.match(hashApiKey(key), /^[0-9a-f]{64}$/)
  t.equal(previewApiKey('loupe_sk_ABCDefghijklmnopqrstuvwxyz012345'), 'loupe_sk_ABCD…2345')
})

t.test('seeds projects, keys and the requested number of traces', async (t) => {
  const store = await createTestStore(t)
  const progress: number[] = []
  const result = await seed({
    store,
    traces: COUNT,
    now: NOW,
    random: mulberry32(7),
    onProgress: (done) => progress.push(done),
  })

  t.equal(result.traces, COUNT, 'reports every trace as stored')
  const traces = await allTraces(store)
  t.equal(traces.length, COUNT, 'the store holds exactly the requested number')
  t.equal(progress.at(-1), COUNT, 'progress ends at the total')
  t.same(
    progress,
    [...progress].sort((a, b) => a - b),
    'progress only grows',
  )

  t.test('every trace conforms to TraceSchema', async (t) => {
    const bad = traces.map((trace) => schemaErrors(trace)).filter((errors) => errors.length > 0)
    t.same(bad.slice(0, 3), [], 'no schema violations')
  })

  t.test('projects and keys', async (t) => {
    t.same(
      result.projects.map((p) => p.project_id),
      SEED_PROJECT_IDS,
    )
    const projects = await store.projects.list()
    t.same(projects.map((p) => p.project_id).sort(), [...SEED_PROJECT_IDS].sort())
    const listed = await store.projects.listApiKeys()
    for (const project of result.projects) {
      t.ok(project.created, `${project.project_id} is new`)
      t.equal(project.key, project.keys[0]?.key, 'the main key is the first key')
      for (const { key, environment } of project.keys) {
        t.match(key, /^loupe_sk_[A-Za-z0-9]{32}$/)
        const found = await store.projects.findApiKey(hashApiKey(key))
        t.ok(found, `the hash of ${project.project_id}'s ${environment} key finds it`)
        t.equal(found?.project_id, project.project_id)
        t.equal(found?.environment, environment)
        t.ok(found?.last_used_at, 'the key looks used')
        const row = listed.find((k) => k.key_id === found?.key_id)
        t.equal(row?.key_preview, previewApiKey(key), 'the listed preview masks this key')
        t.notOk(JSON.stringify(listed).includes(key), 'the secret is not stored in any listed form')
      }
    }
    // Each trace's environment is one of its project's keys' environments, as if that key had sent it.
    const envs = new Map(result.projects.map((p) => [p.project_id, new Set(p.keys.map((k) => k.environment))]))
    const mismatched = traces.filter((trace) => !envs.get(trace.project_id)?.has(trace.environment))
    t.equal(mismatched.length, 0, 'trace environments match the project keys')
  })

  t.test('variety', async (t) => {
    const count = (key: (trace: Trace) => string) => {
      const m = new Map<string, number>()
      for (const trace of traces) m.set(key(trace), (m.get(key(trace)) ?? 0) + 1)
      return m
    }
    const statuses = count((x) => x.status)
    t.same([...statuses.keys()].sort(), ['failed', 'success', 'warning'], 'all three statuses occur')
    t.ok((statuses.get('success') ?? 0) > COUNT * 0.7, 'most traces succeed')
    t.ok((statuses.get('failed') ?? 0) > COUNT * 0.02, 'some fail')
    t.ok((statuses.get('warning') ?? 0) > COUNT * 0.02, 'some warn')

    const models = count((x) => x.model ?? 'null')
    t.ok(models.size >= 7, `many models (${[...models.keys()].join(', ')})`)
    t.ok(models.has('null'), 'some traces have no model')
    t.equal(count((x) => x.project_id).size, SEED_PROJECT_IDS.length, 'every project has traces')
    t.equal(count((x) => x.environment).size, 3, 'every environment has traces')

    const retried = traces.filter((x) => x.retry_count > 0)
    t.ok(retried.length > COUNT * 0.02, `some traces have retries (${retried.length})`)
    t.ok(
      retried.every((x) => x.status !== 'success'),
      'a retried trace is never a plain success',
    )
    const slow = traces.filter((x) => x.latency >= 5000)
    t.ok(slow.length >= COUNT * 0.015 && slow.length <= COUNT * 0.08, `a slow tail of ~3% (${slow.length})`)
    t.ok(
      traces.every((x) => x.latency >= 0 && Number.isInteger(x.token_count) && x.token_count >= 0),
      'latency and tokens are sane',
    )
    t.ok(
      traces
        .filter((x) => x.status === 'failed')
        .every((x) => typeof x.failure_reason === 'string' && x.failure_reason),
      'every failed trace has a failure reason',
    )
    t.ok(
      traces.filter((x) => x.status !== 'failed').every((x) => x.failure_reason === null),
      'only failed traces have one',
    )
    t.ok(traces.some((x) => x.steps.length === 0) && traces.some((x) => x.steps.length >= 4), 'steps vary')
    const stepTypes = new Set(traces.flatMap((x) => x.steps.map((s) => s.type)))
    for (const type of ['llm', 'tool', 'retrieval']) t.ok(stepTypes.has(type as never), `${type} steps occur`)
    t.ok(
      traces.some((x) => x.steps.some((s) => s.status === 'failed' && s.error)),
      'some steps fail with an error',
    )
    t.ok(new Set(traces.map((x) => x.prompt)).size > COUNT / 10, 'prompts vary')
    t.ok(traces.some((x) => x.session_id !== null) && traces.some((x) => x.session_id === null), 'sessions vary')
    const sessions = count((x) => x.session_id ?? '')
    sessions.delete('')
    t.ok(
      [...sessions.values()].some((n) => n > 1),
      'some sessions hold several traces',
    )
    t.ok(
      traces.some((x) => x.tags.length > 0),
      'traces are tagged',
    )
  })

  t.test('timestamps fall within the window', async (t) => {
    const times = traces.map((x) => Date.parse(x.created_at))
    t.ok(
      times.every((ms) => ms >= NOW - 7 * DAY && ms <= NOW),
      'every created_at is within the last 7 days',
    )
    t.ok(
      traces.every((x) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(x.created_at)),
      'UTC with milliseconds',
    )
    const lastDay = times.filter((ms) => ms >= NOW - DAY).length
    const firstDay = times.filter((ms) => ms < NOW - 6 * DAY).length
    t.ok(lastDay > firstDay, `recent days are busier (${lastDay} in the last day vs ${firstDay} in the first)`)
    // The analytics chart of the last 24 hours has data in most hours.
    const analytics = await store.traces.analytics({ now: NOW, slowThresholdMs: 5000 })
    t.ok(analytics.charts.filter((p) => p.traces > 0).length >= 20, 'the 24-hour chart is populated')
    t.equal(analytics.summary.total_traces, COUNT)
  })
})

t.test('honours days and projects', async (t) => {
  const store = await createTestStore(t)
  const result = await seed({ store, traces: 500, days: 1, projects: 7, now: NOW, random: mulberry32(3) })
  t.equal(result.projects.length, 7)
  t.equal(new Set(result.projects.map((p) => p.project_id)).size, 7, 'project ids are distinct')
  const traces = await allTraces(store)
  t.equal(traces.length, 500)
  t.ok(traces.every((x) => Date.parse(x.created_at) >= NOW - DAY && Date.parse(x.created_at) <= NOW))
})

t.test('deterministic with the same seed, different with another', async (t) => {
  const run = async (seedValue: number) => {
    const store = await createTestStore(t)
    await seed({ store, traces: 1500, now: NOW, random: mulberry32(seedValue) })
    return allTraces(store)
  }
  const a = await run(42)
  const b = await run(42)
  const c = await run(43)
  t.equal(a.length, 1500)
  t.same(a, b, 'same seed and now → the same traces')
  t.not(JSON.stringify(a.map((x) => x.trace_id)), JSON.stringify(c.map((x) => x.trace_id)), 'another seed differs')
})

t.test('reuses its own demo projects without new keys, and never stores a trace twice', async (t) => {
  const store = await createTestStore(t)
  const first = await seed({ store, traces: 300, now: NOW, random: mulberry32(9) })
  const keysBefore = (await store.projects.listApiKeys()).length
  const again = await seed({ store, traces: 300, now: NOW, random: mulberry32(9) })
  t.equal(first.traces, 300)
  t.equal(again.traces, 0, 'the same seed again produces the same ids, which are not stored twice')
  t.ok(
    again.projects.every((p) => !p.created && p.key === null && p.keys.length === 0),
    'the demo projects already existed: no new keys',
  )
  t.equal((await store.projects.listApiKeys()).length, keysBefore, 'not one key was added')
  t.equal((await store.projects.list()).length, SEED_PROJECT_IDS.length, 'no duplicate projects')
  const more = await seed({ store, traces: 200, now: NOW, random: mulberry32(10) })
  t.equal(more.traces, 200)
  t.equal((await store.traces.list({}, { limit: 1, offset: 0 })).total, 500)
})

t.test("a project of the user's under a demo id is never written into nor given a key", async (t) => {
  const store = await createTestStore(t)
  const taken = SEED_PROJECT_IDS[0] as string
  const key = generateApiKey()
  const mine = {
    project_id: taken,
    name: 'Mine',
    description: 'my real project',
    created_at: '2026-01-01T00:00:00.000',
  }
  await store.projects.create(mine, {
    key_id: 'my-key',
    key_hash: hashApiKey(key),
    key_preview: previewApiKey(key),
    project_id: taken,
    environment: 'production',
    kind: 'secret',
    created_at: Date.parse('2026-01-01T00:00:00Z'),
  })
  const result = await seed({ store, traces: 400, now: NOW, random: mulberry32(3) })
  t.equal((await store.traces.list({ project_id: taken }, { limit: 1, offset: 0 })).total, 0, 'no trace in it')
  t.same(
    (await store.projects.listApiKeys(taken)).map((k) => k.key_id),
    ['my-key'],
    'its keys are its own',
  )
  const moved = result.projects.find((p) => p.instead_of === taken)
  t.equal(moved?.project_id, `${taken}-demo`, 'the demo went to a project of its own')
  t.ok(moved?.created)
  t.ok((await store.traces.list({ project_id: `${taken}-demo` }, { limit: 1, offset: 0 })).total > 0)
})

t.test('zero traces still creates the projects', async (t) => {
  const store = await createTestStore(t)
  const result = await seed({ store, traces: 0, now: NOW })
  t.equal(result.traces, 0)
  t.equal((await store.projects.list()).length, SEED_PROJECT_IDS.length)
})
