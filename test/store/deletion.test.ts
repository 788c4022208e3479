// Deletion keeps every figure exact, on the store under test: after random deletions — single traces, random filters,
// whole projects — the rollup tables, /analytics (costs, agents and tools included), /failures, list totals (full-text
// search, cost ranges and agents included), /sessions and /users equal those of a fresh store holding only the
// surviving traces (rollups counted from scratch by ingest).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { callOf, callsAgent, type Score, type Step, type Trace } from '../../schemas/index.js'
import { meanLatencyMs } from '../../src/analytics/math.js'
import { mulberry32, seed } from '../../src/seed/seed.js'
import { unreported } from '../../src/store/reported-cost.js'
import { createSqliteStore } from '../../src/store/sqlite/store.js'
import type { Store, TraceFilter } from '../../src/store/types.js'
import { fullStep, fullTrace } from '../fixtures/traces.js'
import { createTestStore, storeUnderTest, TEST_DATABASE, tableRows } from '../helper.js'
import {
  everyScore,
  everyTrace,
  NOW_FOR_SCORES,
  newScores,
  recount,
  rollups,
  scoreRollups,
  scoresEqualRecount,
} from './recount.js'

const NOW = NOW_FOR_SCORES
const SLOW = 5000
// Each check recounts into a fresh store; on PostgreSQL, on a busy machine, the whole takes minutes.
t.setTimeout(600_000)

async function sameFigures(t: Test, store: Store, what: string, filters: TraceFilter[]) {
  const survivors = await everyTrace(store)
  const scores = await everyScore(store)
  const fresh = await recount(t, survivors, scores)
  t.same(await rollups(store), await rollups(fresh), `${what}: every rollup row equals a recount`)
  t.same(await scoreRollups(store), await scoreRollups(fresh), `${what}: every score rollup row equals a recount`)
  t.same(
    await callRows(store),
    await callRows(fresh),
    `${what}: every trace's calls of agents and tools equal a recount`,
  )
  await scoresEqualRecount(t, store, what, [undefined, 'support-bot', 'code-assistant'], survivors, scores)
  for (const project_id of [undefined, 'support-bot', 'code-assistant']) {
    t.same(
      await store.traces.analytics({ project_id, now: NOW, slowThresholdMs: SLOW }),
      await fresh.traces.analytics({ project_id, now: NOW, slowThresholdMs: SLOW }),
      `${what}: /analytics ${project_id ?? 'all'}`,
    )
    const analytics = await store.traces.analytics({ project_id, now: NOW, slowThresholdMs: SLOW })
    const mine = survivors.filter((x) => project_id === undefined || x.project_id === project_id)
    t.same(
      { agents: analytics.agent_breakdown, tools: analytics.tool_breakdown },
      { agents: countCalls(mine, 'agent'), tools: countCalls(mine, 'tool') },
      `${what}: /analytics agents and tools ${project_id ?? 'all'} equal a count of the survivors' steps`,
    )
    t.same(
      await store.scores.analytics(project_id, NOW),
      await fresh.scores.analytics(project_id, NOW),
      `${what}: /analytics scores (with their hourly series) ${project_id ?? 'all'}`,
    )
    t.same(
      await store.traces.failures({ project_id, limit: 10, slowThresholdMs: SLOW }),
      await fresh.traces.failures({ project_id, limit: 10, slowThresholdMs: SLOW }),
      `${what}: /failures ${project_id ?? 'all'}`,
    )
  }
  for (const f of filters) {
    t.equal(
      (await store.traces.list(f, { limit: 1, offset: 0 })).total,
      (await fresh.traces.list(f, { limit: 1, offset: 0 })).total,
      `${what}: list total ${JSON.stringify(f)}`,
    )
  }
  for (const f of filters.filter((x) => x.agent !== undefined)) {
    const { agent, ...rest } = f
    const want = survivors.filter(
      (x) =>
        callsAgent(x.steps, agent!) &&
        Object.entries(rest).every(([k, v]) => (x as unknown as Record<string, unknown>)[k] === v),
    ).length
    t.equal((await store.traces.list(f, { limit: 1, offset: 0 })).total, want, `${what}: ${JSON.stringify(f)} counted`)
  }
  const every = { limit: 100_000, offset: 0 }
  for (const project_id of [undefined, 'code-assistant']) {
    const sessions = await store.activity.listSessions({ project_id }, every)
    const users = await store.activity.listUsers({ project_id }, every)
    t.same(
      sessions,
      await fresh.activity.listSessions({ project_id }, every),
      `${what}: /sessions ${project_id ?? 'all'}`,
    )
    t.same(users, await fresh.activity.listUsers({ project_id }, every), `${what}: /users ${project_id ?? 'all'}`)
    // The totals are kept apart from the rows on some stores: they must still count every row listed.
    t.equal(sessions.total, sessions.items.length, `${what}: /sessions ${project_id ?? 'all'} total`)
    t.equal(users.total, users.items.length, `${what}: /users ${project_id ?? 'all'} total`)
  }
  t.same(
    await store.activity.getSession('mixed', 'code-assistant', 100),
    await fresh.activity.getSession('mixed', 'code-assistant', 100),
    `${what}: the session of several users`,
  )
  return survivors
}

/** The rows of trace_calls, as plain sorted JSON. */
async function callRows(store: Store) {
  return (await tableRows(store, 'trace_calls'))
    .map((r) => JSON.stringify(Object.entries(r).map(([k, v]) => [k, Number(v) || v])))
    .sort()
}

/** Per agent or tool, counted step by step from the traces themselves (calls desc, then name asc). */
function countCalls(traces: readonly Trace[], kind: 'agent' | 'tool') {
  const by = new Map<string, { traces: Set<string>; calls: number; failures: number; micros: bigint; timed: number }>()
  for (const trace of traces) {
    for (const step of trace.steps) {
      const call = callOf(step)
      if (call?.kind !== kind) continue
      const e = by.get(call.name) ?? { traces: new Set(), calls: 0, failures: 0, micros: 0n, timed: 0 }
      by.set(call.name, e)
      e.traces.add(trace.trace_id)
      e.calls++
      if (step.status === 'failed') e.failures++
      if (step.latency !== null) {
        e.micros += BigInt(Math.round(step.latency * 1000))
        e.timed++
      }
    }
  }
  return [...by]
    .sort(([a, x], [b, y]) => y.calls - x.calls || (a < b ? -1 : 1))
    .map(([key, e]) => ({
      key,
      traces: e.traces.size,
      calls: e.calls,
      failures: e.failures,
      mean_latency: e.timed === 0 ? null : meanLatencyMs(e.micros, e.timed),
    }))
}

const AGENTS = ['planner', 'researcher', 'writer']
const TOOLS = ['search', 'fetch', 'python']

/** Multi-agent traces: agents calling agents and tools, some calls failed, some without a latency. */
function agentTraces(rnd: () => number, n: number): Trace[] {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!
  return Array.from({ length: n }, (_, i) => {
    const steps: Step[] = Array.from({ length: 1 + Math.floor(rnd() * 8) }, (_, index) => {
      const agent = rnd() < 0.4
      const name = agent ? pick(AGENTS) : pick(TOOLS)
      return fullStep({
        index,
        name: agent ? name : `call ${name}`,
        type: agent ? 'agent' : rnd() < 0.8 ? 'tool' : 'llm',
        tool: agent ? null : rnd() < 0.7 ? name : null,
        status: rnd() < 0.15 ? 'failed' : 'success',
        latency: rnd() < 0.1 ? null : Math.round(rnd() * 5_000_000) / 1000,
        parent_index: index === 0 ? null : Math.floor(rnd() * index),
      })
    })
    const failed = steps.at(-1)!.status === 'failed'
    return fullTrace({
      trace_id: `agents-${i}`,
      project_id: i % 3 ? 'code-assistant' : 'support-bot',
      name: 'agent.run',
      prompt: `task ${i}`,
      latency: 1000 + i,
      status: failed ? 'failed' : 'success',
      failure_reason: failed ? 'step failed' : null,
      created_at: new Date(NOW - 7_200_000 + i * 10_000).toISOString(),
      steps,
    })
  })
}

/** A session of several users (and traces naming none), some unpriced: deletions move its user and its span. */
function mixedSession(): Trace[] {
  const users = [null, 'ann', 'bob', null, 'ann', 'cy']
  return users.map((user_id, i) => ({
    trace_id: `mixed-${i}`,
    project_id: 'code-assistant',
    environment: 'production',
    name: 'chat',
    model: i % 2 ? 'gpt-4o-mini' : null,
    prompt: `turn ${i} of the zanzibar conversation`,
    response: 'ok',
    latency: 100 + i,
    token_count: 10 * i,
    prompt_tokens: null,
    completion_tokens: null,
    tokens_reported: i > 0,
    cost: i % 3 ? 0.000_001 * i : null,
    status: i === 2 ? 'failed' : 'success',
    failure_reason: i === 2 ? 'timeout' : null,
    retry_count: 0,
    session_id: 'mixed',
    user_id,
    experiment_id: null,
    dataset_item_id: null,
    tags: [],
    metadata: {},
    created_at: new Date(NOW - 3_600_000 + i * 60_000).toISOString(),
    steps: [],
  }))
}

const SCORE_NAMES = [
  { name: 'helpfulness', data_type: 'numeric' },
  { name: 'thumbs', data_type: 'boolean' },
  { name: 'tone', data_type: 'categorical' },
] as const
const TONES = ['rude', 'neutral', 'friendly']
const EXTREME_VALUES = [1e9, -1e9, 1e-300, -0, 0.000_000_4, 123_456.789_012]

/** `n` scores of random traces (of random kinds, values, hours; some extreme), recorded as the score service does. */
async function scoreAtRandom(store: Store, rnd: () => number, n: number) {
  const traces = await everyTrace(store)
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!
  const scores: Score[] = Array.from({ length: n }, () => {
    const trace = pick(traces)
    const { name, data_type } = pick(SCORE_NAMES)
    const tone = Math.floor(rnd() * TONES.length)
    const yes = rnd() < 0.5
    const value =
      data_type === 'boolean'
        ? Number(yes)
        : data_type === 'categorical'
          ? tone
          : rnd() < 0.1
            ? pick(EXTREME_VALUES)
            : Math.round((rnd() * 2 - 1) * 1e6) / 1e3
    return {
      score_id: `sc-${Math.floor(rnd() * 2 ** 48).toString(36)}`,
      project_id: trace.project_id,
      trace_id: trace.trace_id,
      step_index: null,
      session_id: trace.session_id,
      name,
      data_type,
      value,
      label: data_type === 'boolean' ? String(yes) : data_type === 'categorical' ? TONES[tone]! : null,
      comment: null,
      source: 'api',
      author: null,
      created_at: new Date(NOW - Math.floor(rnd() * 30 * 3_600_000)).toISOString(),
      metadata: {},
    }
  })
  await store.scores.insert(newScores(scores, traces))
}

async function randomDeletions(t: Test, store: Store) {
  await seed({ store, traces: 2500, days: 2, now: NOW, random: mulberry32(21) })
  const mixed = mixedSession()
  await store.traces.insert(mixed.map(unreported))
  const rnd = mulberry32(99)
  await store.traces.insert(agentTraces(rnd, 120).map(unreported))
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!
  await scoreAtRandom(store, rnd, 400)
  const filters: TraceFilter[] = [
    {},
    { status: 'failed' },
    { min_latency: SLOW },
    { max_tokens: 200 },
    { project_id: 'support-bot', environment: 'production' },
    { since: NOW - 86_400_000 },
    { q: ['zanzibar'] },
    { q: ['turn', 'conversation'], project_id: 'code-assistant' },
    { min_cost: 0.000_002 },
    { max_cost: 0.000_01, status: 'success' },
    { agent: 'planner' },
    { agent: 'researcher', project_id: 'code-assistant' },
    { agent: 'writer', status: 'failed' },
    { agent: 'no-such-agent' },
  ]
  let traces = await everyTrace(store)
  const before = traces.length
  // A word of a seeded prompt, searched as it is deleted around it.
  const word = traces[7]!.prompt.split(/\s+/).find((w) => w.length >= 4)
  if (word) filters.push({ q: [word.toLowerCase()] })

  // The session's first user, its first and last traces, then its every user but one.
  for (const id of ['mixed-1', 'mixed-0', 'mixed-5', 'mixed-4']) {
    t.equal((await store.traces.delete({ filter: {}, trace_ids: [id], limit: 1 })).length, 1, `${id} deleted`)
    traces = await sameFigures(t, store, `after deleting ${id}`, filters)
  }
  t.match(await store.activity.getSession('mixed', 'code-assistant', 10), { session: { user_id: 'bob', traces: 2 } })

  // Single scores, then scores again: the figures follow each.
  const scored = await everyScore(store)
  for (let i = 0; i < 60; i++) await store.scores.delete(pick(scored).score_id)
  await scoreAtRandom(store, rnd, 100)
  traces = await sameFigures(t, store, 'after score deletions and writes', filters)

  // Single traces, by id.
  for (const trace of Array.from({ length: 40 }, () => pick(traces))) {
    await store.traces.delete({ filter: {}, trace_ids: [trace.trace_id], limit: 1 })
  }
  const gone = await store.traces.delete({ filter: {}, trace_ids: [traces[0]!.trace_id, 'no-such-trace'], limit: 5 })
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
      { agent: pick(AGENTS) },
    ])
    const matching = (await store.traces.list(f, { limit: 1, offset: 0 })).total
    let deleted = 0
    for (let i = 0; i < 3; i++) deleted += (await store.traces.delete({ filter: f, limit: 37 })).length
    t.equal(
      deleted,
      Math.min(matching, 111),
      `round ${round}: ${JSON.stringify(f)} deleted what matched, batch by batch`,
    )
  }
  traces = await sameFigures(t, store, 'after filtered deletions', filters)

  // A whole project: its traces, then the project with its keys.
  t.equal(await store.projects.delete('support-bot'), 'has-traces', 'a project with traces is not deleted')
  while ((await store.traces.delete({ filter: { project_id: 'support-bot' }, limit: 500 })).length > 0) {}
  const removed = await store.projects.delete('support-bot')
  t.match(removed, { api_keys: Number, pending_spans: 0 })
  t.equal(await store.projects.get('support-bot'), null)
  t.same(await store.projects.listApiKeys('support-bot'), [])
  t.equal(await store.projects.delete('support-bot'), 'not-found')
  traces = await sameFigures(t, store, 'after a project deletion', filters)
  t.ok(traces.length < before, `${before - traces.length} traces deleted in all`)
  t.notOk(
    traces.some((x) => x.project_id === 'support-bot'),
    'no trace of the deleted project is left',
  )
  t.equal((await store.stats()).traces, traces.length, 'the store counts what is left')

  // Deleted traces stored again (their ids, their session, their words): counted and found once each.
  t.equal((await store.traces.delete({ filter: { session_id: 'mixed' }, limit: 100 })).length, 2, 'the rest of it')
  t.equal(await store.activity.getSession('mixed', 'code-assistant', 10), null, 'a session with no trace left is gone')
  t.same(
    (await store.traces.insert(mixed.map(unreported))).map((o) => o.kind),
    mixed.map(() => 'created'),
  )
  await sameFigures(t, store, 'after storing deleted traces again', filters)
}

t.test(`random deletions keep every figure equal to a recount (${storeUnderTest})`, async (t) => {
  await randomDeletions(t, await createTestStore(t))
})

// A SQLite file deletes on a connection of its own, in a worker: the event loop's connection reads what it committed.
t.test('random deletions on a SQLite file keep every figure equal to a recount', { skip: TEST_DATABASE }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-deletion-'))
  const store = createSqliteStore(join(dir, 'loupe.db'))
  t.teardown(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })
  await randomDeletions(t, store)
})
