// GET /analytics and GET /failures against a from-scratch recomputation over randomized (seeded) data sets.
import t, { type Test } from 'tap'
import {
  AnalyticsResponse,
  FailuresResponse,
  ListSessionsResponse,
  ListUsersResponse,
  type Trace,
} from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { buildTestApp, createProject, postBatch, postTrace, schemaErrors } from '../helper.js'

const HOUR = 3_600_000
const MINUTE = 60_000

/** mulberry32: a tiny seeded PRNG, so a failing data set can be replayed from its seed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let r = Math.imul(a ^ (a >>> 15), 1 | a)
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296
  }
}

interface Rng {
  float(): number
  int(min: number, max: number): number
  pick<T>(items: readonly T[]): T
  chance(p: number): boolean
}

function rng(seed: number): Rng {
  const next = mulberry32(seed)
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1))
  return {
    float: next,
    int,
    pick: (items) => items[int(0, items.length - 1)]!,
    chance: (p) => next() < p,
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The oracle: what docs/api.md (Analytics) says the answers are, computed directly over the stored traces with
// integer arithmetic wherever a rounding is involved.
// ---------------------------------------------------------------------------------------------------------------

const ms = (iso: string) => Date.parse(iso)

/** Latency in thousandths of a ms: every latency this test sends has at most 3 decimals. */
const milli = (latency: number) => Math.round(latency * 1000)

/** Half-up rounding of numerator / denominator to 2 decimals, both non-negative integers. */
function rounded2(numerator: number, denominator: number): number {
  if (denominator === 0) return 0
  return Math.floor((200 * numerator + denominator) / (2 * denominator)) / 100
}

/** Mean latency in ms to 2 decimals: (Σ milli / 1000) / n = Σ milli / (1000 n), so hundredths = Σ milli / (10 n). */
function meanLatency(traces: readonly Trace[]): number {
  if (traces.length === 0) return 0
  const sumMilli = traces.reduce((sum, tr) => sum + milli(tr.latency), 0)
  return Math.floor((2 * sumMilli + 10 * traces.length) / (20 * traces.length)) / 100
}

/** created_at desc, then trace_id desc. */
function newestFirst(a: Trace, b: Trace): number {
  const d = ms(b.created_at) - ms(a.created_at)
  if (d !== 0) return d
  return a.trace_id < b.trace_id ? 1 : a.trace_id > b.trace_id ? -1 : 0
}

function breakdownOf(keys: string[]) {
  const counts = new Map<string, number>()
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1)
  return [...counts]
    .map(([key, count]) => ({ key, count }))
    .sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
}

function hourLabel(at: number): string {
  const d = new Date(at)
  return `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`
}

/** Σ cost in whole nano-dollars, as USD: what the rollups must hold exactly. */
function costOf(traces: readonly Trace[]): number {
  const nanos = traces.reduce((sum, tr) => sum + (tr.cost === null ? 0n : BigInt(Math.round(tr.cost * 1e9))), 0n)
  return Number(nanos) / 1e9
}

function costBreakdownOf(traces: readonly Trace[]) {
  const byModel = new Map<string, Trace[]>()
  for (const tr of traces) byModel.set(tr.model ?? 'unknown', [...(byModel.get(tr.model ?? 'unknown') ?? []), tr])
  return [...byModel]
    .map(([key, list]) => ({
      key,
      cost: costOf(list),
      count: list.length,
      unpriced: list.filter((tr) => tr.cost === null).length,
    }))
    .sort((a, b) => b.cost - a.cost || b.count - a.count || (a.key < b.key ? -1 : 1))
}

function expectedAnalytics(traces: readonly Trace[], now: number, slowMs: number) {
  const n = traces.length
  const byStatus = (s: string) => traces.filter((tr) => tr.status === s).length
  const latencies = traces.map((tr) => tr.latency).sort((a, b) => a - b)
  // Nearest rank: ceil(0.95 n) − 1, computed on integers.
  const p95 = n === 0 ? 0 : latencies[Math.floor((95 * n + 99) / 100) - 1]!
  const currentHour = now - (now % HOUR)
  const firstHour = currentHour - 23 * HOUR
  const charts = Array.from({ length: 24 }, (_, i) => {
    const from = firstHour + i * HOUR
    const inBucket = traces.filter((tr) => ms(tr.created_at) >= from && ms(tr.created_at) < from + HOUR)
    return {
      label: hourLabel(from),
      latency: meanLatency(inBucket),
      tokens: inBucket.reduce((sum, tr) => sum + tr.token_count, 0),
      traces: inBucket.length,
      cost: costOf(inBucket),
    }
  })
  return {
    summary: {
      total_traces: n,
      success_rate: rounded2(100 * byStatus('success'), n),
      average_latency: meanLatency(traces),
      p95_latency: p95,
      total_token_usage: traces.reduce((sum, tr) => sum + tr.token_count, 0),
      traces_without_tokens: traces.filter((tr) => !tr.tokens_reported).length,
      failed_traces: byStatus('failed'),
      warning_traces: byStatus('warning'),
      retries: traces.filter((tr) => tr.retry_count > 0).length,
      slow_requests: traces.filter((tr) => tr.latency >= slowMs).length,
      total_cost: costOf(traces),
      unpriced_traces: traces.filter((tr) => tr.cost === null).length,
    },
    charts,
    status_breakdown: breakdownOf(traces.map((tr) => tr.status)),
    model_breakdown: breakdownOf(traces.map((tr) => tr.model ?? 'unknown')),
    project_breakdown: breakdownOf(traces.map((tr) => tr.project_id)),
    cost_breakdown: costBreakdownOf(traces),
    recent_failures: traces
      .filter((tr) => tr.status === 'failed')
      .sort(newestFirst)
      .slice(0, 10),
  }
}

/** The totals of a group of traces, recounted: what /sessions and /users must say of it. */
function activityOf(list: readonly Trace[]) {
  const at = list.map((tr) => ms(tr.created_at))
  return {
    traces: list.length,
    first_at: new Date(Math.min(...at)).toISOString(),
    last_at: new Date(Math.max(...at)).toISOString(),
    latency_total: Number(list.reduce((sum, tr) => sum + BigInt(Math.round(tr.latency * 1000)), 0n)) / 1000,
    token_count: list.reduce((sum, tr) => sum + tr.token_count, 0),
    cost: costOf(list),
    unpriced: list.filter((tr) => tr.cost === null).length,
    failed: list.filter((tr) => tr.status === 'failed').length,
    warnings: list.filter((tr) => tr.status === 'warning').length,
    // This dataset scores nothing: each group's score means are empty.
    scores: {},
  }
}

function groupBy(traces: readonly Trace[], key: (tr: Trace) => string | null) {
  const groups = new Map<string, Trace[]>()
  for (const tr of traces) {
    const k = key(tr)
    if (k !== null)
      groups.set(JSON.stringify([tr.project_id, k]), [...(groups.get(JSON.stringify([tr.project_id, k])) ?? []), tr])
  }
  return [...groups.values()]
}

/** Newest activity first, then the id desc, then the project desc. */
function byActivity<K extends string>(key: K) {
  type Row = { last_at: string; project_id: string } & Record<K, string>
  const desc = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0)
  return (a: Row, b: Row) => desc(a.last_at, b.last_at) || desc(a[key], b[key]) || desc(a.project_id, b.project_id)
}

function expectedSessions(traces: readonly Trace[]) {
  return groupBy(traces, (tr) => tr.session_id)
    .map((list) => {
      const named = list
        .filter((tr) => tr.user_id !== null)
        .sort((a, b) => ms(a.created_at) - ms(b.created_at) || (a.user_id! < b.user_id! ? -1 : 1))
      return {
        session_id: list[0]!.session_id!,
        project_id: list[0]!.project_id,
        user_id: named[0]?.user_id ?? null,
        ...activityOf(list),
      }
    })
    .sort(byActivity('session_id'))
}

function expectedUsers(traces: readonly Trace[]) {
  const sessions = expectedSessions(traces)
  return groupBy(traces, (tr) => tr.user_id)
    .map((list) => ({
      user_id: list[0]!.user_id!,
      project_id: list[0]!.project_id,
      sessions: sessions.filter((s) => s.project_id === list[0]!.project_id && s.user_id === list[0]!.user_id).length,
      ...activityOf(list),
    }))
    .sort(byActivity('user_id'))
}

function expectedFailures(traces: readonly Trace[], limit: number, slowMs: number) {
  const failed = traces.filter((tr) => tr.status === 'failed').sort(newestFirst)
  const retried = traces.filter((tr) => tr.retry_count > 0).sort(newestFirst)
  const slow = traces.filter((tr) => tr.latency >= slowMs).sort(newestFirst)
  return {
    failed_traces: failed.slice(0, limit),
    retries: retried.slice(0, limit),
    slow_requests: slow.slice(0, limit),
    totals: { failed_traces: failed.length, retries: retried.length, slow_requests: slow.length },
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Data sets.
// ---------------------------------------------------------------------------------------------------------------

const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4', 'llama-3.1-70b', null, null, 'unknown'] as const

/** Step patterns, each producing a known mix of status and retries after normalization. */
function randomSteps(r: Rng): Record<string, unknown>[] | undefined {
  const lat = () => (r.chance(0.5) ? r.int(0, 3000) : r.int(0, 3_000_000) / 1000)
  switch (r.int(0, 7)) {
    case 0:
      return undefined
    case 1: // a clean call
      return [{ type: 'llm', name: 'answer', latency: lat(), tokens: r.int(0, 500) }]
    case 2: // retried tool that recovered → warning
      return [
        { tool: 'search', status: 'error', error: 'timeout', duration_ms: lat() },
        { tool: 'search', status: 'ok', duration_ms: lat() },
        { type: 'llm', name: 'answer', latency: lat(), token_count: r.int(1, 900) },
      ]
    case 3: // last step failed → failed
      return [
        { tool: 'search', latency: lat() },
        { type: 'llm', name: 'answer', status: 'failed', error: 'context length exceeded', latency: lat() },
      ]
    case 4: // a tool whose last attempt failed → failed, with retries
      return [
        { tool: 'db', status: 'failed', latency: lat() },
        { tool: 'db', status: 'failed', latency: lat() },
        { type: 'llm', name: 'summarize', latency: lat() },
      ]
    case 5: // a recovered non-tool failure → warning, no retries
      return [
        { type: 'llm', status: 'failed', error: 'rate limited', latency: lat() },
        { type: 'llm', latency: lat() },
      ]
    case 6: // many calls of the same tools → warning with several retries
      return [{ tool: 'search' }, { tool: 'search' }, { tool: 'fetch' }, { tool: 'search' }, { tool: 'fetch' }]
    default:
      return []
  }
}

/** The largest values a trace may have (docs/api.md, "Numbers"): sums of them must stay exact. */
const MAX_LATENCY = 604_800_000
const MAX_TOKENS = 100_000_000_000

/** A latency, often within a millisecond of the slow threshold and sometimes exactly on it, or at the bound. */
function randomLatency(r: Rng, slowMs: number): number | undefined {
  switch (r.int(0, 11)) {
    case 10:
      return MAX_LATENCY
    case 11:
      return MAX_LATENCY - 0.001
    case 0:
      return slowMs
    case 1:
      return Math.max(0, slowMs - 0.001)
    case 2:
      return slowMs + 0.001
    case 3:
      return 0
    case 4:
      return undefined // from the steps
    case 5:
      return r.int(0, 20_000)
    default:
      return r.int(0, 2 * slowMs * 1000) / 1000
  }
}

/** created_at spread over ~30 hours around now: hour boundaries, the current partial hour, the future, > 24 h ago. */
function randomCreatedAt(r: Rng, now: number): unknown {
  const currentHour = now - (now % HOUR)
  const firstHour = currentHour - 23 * HOUR
  let at: number
  switch (r.int(0, 11)) {
    case 0:
      at = currentHour - r.int(-1, 26) * HOUR // exactly on an hour boundary
      break
    case 1:
      at = r.pick([firstHour, firstHour - 1, currentHour + HOUR, currentHour + HOUR - 1, currentHour, now])
      break
    case 2:
      at = now - r.int(0, now - currentHour) // the current partial hour
      break
    case 3:
      at = now + r.int(1, 3 * HOUR) // the future, inside and after the current hour
      break
    case 4:
      at = now - r.int(24 * HOUR, 40 * HOUR) // older than the chart
      break
    case 5:
      return undefined // the server's now
    default:
      at = now - r.int(0, 30 * HOUR)
  }
  // Every form the contract accepts: ISO with Z, with an offset, epoch milliseconds.
  switch (r.int(0, 3)) {
    case 0: {
      const shifted = new Date(at + 2 * HOUR).toISOString().slice(0, -1)
      return `${shifted}+02:00`
    }
    case 1:
      return at
    default:
      return new Date(at).toISOString()
  }
}

function randomTrace(r: Rng, now: number, slowMs: number, id: string): Record<string, unknown> {
  const trace: Record<string, unknown> = { prompt: `prompt ${id}` }
  if (r.chance(0.7)) trace.trace_id = id
  const model = r.pick(MODELS)
  if (model !== null || r.chance(0.5)) trace.model = model
  const latency = randomLatency(r, slowMs)
  if (latency !== undefined) trace.latency = latency
  const tokens = r.int(0, 5)
  if (tokens === 0) trace.token_count = r.int(0, 5000)
  else if (tokens === 5) trace.token_count = r.chance(0.5) ? MAX_TOKENS : MAX_TOKENS - r.int(1, 999_999)
  else if (tokens === 1) Object.assign(trace, { prompt_tokens: r.int(0, 900), completion_tokens: r.int(0, 900) })
  const steps = randomSteps(r)
  // Costs: reported by the client (up to the bound), or priced from the model and its tokens, or on model steps.
  if (r.chance(0.15)) trace.cost = r.chance(0.1) ? 1_000_000 : r.int(0, 5_000_000_000) / 1e9
  if (steps !== undefined && r.chance(0.3)) {
    const stepModel = r.pick(MODELS)
    steps.push({
      type: 'llm',
      name: 'priced call',
      metadata: { model: stepModel, prompt_tokens: r.int(0, 5000), completion_tokens: r.int(0, 900) },
      ...(r.chance(0.3) ? { cost: r.int(0, 1_000_000) / 1e9 } : {}),
    })
  }
  if (steps !== undefined) trace.steps = steps
  else if (r.chance(0.3)) trace.retry_count = r.int(0, 3) // no steps: the client's count is kept
  if (r.chance(0.6)) trace.session_id = `s${r.int(1, 8)}`
  if (r.chance(0.6)) trace.user_id = `u${r.int(1, 5)}`
  if (r.chance(0.1)) trace.failure_reason = 'upstream 500'
  if (r.chance(0.05)) trace.status = 'error'
  const createdAt = randomCreatedAt(r, now)
  if (createdAt !== undefined) trace.created_at = createdAt
  return trace
}

interface DataSet {
  app: LoupeApp
  now: number
  slowMs: number
  /** Every stored trace, as GET /traces returns it. */
  traces: Trace[]
  projects: string[]
  /** A project with no trace at all. */
  emptyProject: string
}

async function ingestDataSet(
  t: Test,
  seed: number,
  now: number,
  opts: { slowMs?: number; count?: number } = {},
): Promise<DataSet> {
  const slowMs = opts.slowMs ?? 5000
  const count = opts.count ?? 300
  const app = await buildTestApp(t, {
    now: () => now,
    config: opts.slowMs === undefined ? {} : { slowThresholdMs: slowMs },
  })
  const r = rng(seed)
  const keys: { project_id: string; key: string }[] = []
  for (const name of ['Alpha', 'Beta Search', 'gamma']) keys.push(await createProject(app, `${name} ${seed}`))
  // Only traces older than the chart window: a non-zero summary over an all-zero chart.
  const archive = await createProject(app, `Archive ${seed}`)
  const empty = await createProject(app, `Empty ${seed}`)

  const sent = new Map<string, { key: string; trace: Record<string, unknown> }>()
  const stored: Trace[] = []
  // Some traces share one created_at, so the trace_id tie-break is exercised.
  const shared = new Date(now - 3 * HOUR).toISOString()
  const pending = new Map<string, Record<string, unknown>[]>()
  for (let i = 0; i < count; i++) {
    const { key } = r.pick(keys)
    const trace = randomTrace(r, now, slowMs, `t${seed}-${String(i).padStart(4, '0')}-${r.int(0, 99)}`)
    if (i % 17 === 0) trace.created_at = shared
    if (typeof trace.trace_id === 'string') sent.set(trace.trace_id, { key, trace })
    if (r.chance(0.25)) {
      const res = await postTrace(app, key, trace)
      t.equal(res.statusCode, 201, `trace ${i} stored`)
      stored.push(res.json())
    } else {
      const list = pending.get(key) ?? []
      list.push(trace)
      pending.set(key, list)
    }
  }
  for (const [key, list] of pending) {
    for (let i = 0; i < list.length; i += 60) {
      const chunk = list.slice(i, i + 60)
      // A rejected trace rides along in every batch and must not count anywhere.
      const res = await postBatch(app, key, [...chunk, { prompt: 'bad', latency: -1, created_at: now }])
      t.equal(res.statusCode, 200)
      t.equal(res.json().accepted, chunk.length)
      t.equal(res.json().rejected.length, 1)
    }
  }
  for (let i = 0; i < 6; i++) {
    const res = await postTrace(app, archive.key, {
      prompt: `old ${i}`,
      latency: slowMs + i,
      token_count: i,
      created_at: now - 25 * HOUR - i * HOUR,
    })
    t.equal(res.statusCode, 201)
  }
  // Re-sending stored traces changes nothing (idempotent), and is not counted twice.
  let resent = 0
  for (const { key, trace } of sent.values()) {
    if (resent++ >= 20) break
    const res = await postTrace(app, key, { ...trace, failure_reason: 'changed my mind', latency: 99_999 })
    t.equal(res.statusCode, 200, 'a re-send answers 200')
  }

  const list = await app.inject({ url: '/traces', query: { limit: '1000' } })
  t.equal(list.statusCode, 200)
  const traces: Trace[] = list.json().items
  t.equal(list.json().total, traces.length)
  t.equal(traces.length, count + 6, 'every valid trace stored exactly once')
  // What POST /traces answered is what is stored.
  const byId = new Map(traces.map((tr) => [tr.trace_id, tr]))
  for (const tr of stored) t.strictSame(byId.get(tr.trace_id), tr)

  // The data set must really hold the mix this test is about.
  const statuses = new Set(traces.map((tr) => tr.status))
  t.strictSame([...statuses].sort(), ['failed', 'success', 'warning'], 'all three statuses occur')
  t.ok(
    traces.some((tr) => tr.latency === slowMs),
    'some latency equals the threshold',
  )
  t.ok(
    traces.some((tr) => tr.model === null),
    'some model is null',
  )
  t.ok(
    traces.some((tr) => tr.cost === null),
    'some traces are unpriced',
  )
  t.ok(
    traces.some((tr) => tr.cost !== null && tr.cost > 0 && tr.cost < 0.001),
    'some traces cost fractions of a cent',
  )
  t.ok(
    traces.some((tr) => tr.steps.some((step) => step.cost !== null)),
    'some steps are priced',
  )
  t.ok(
    traces.some((tr) => tr.retry_count > 0),
    'some traces retried',
  )
  t.ok(
    traces.some((tr) => ms(tr.created_at) > now),
    'some traces are in the future',
  )
  t.ok(
    traces.some((tr) => ms(tr.created_at) < now - 24 * HOUR),
    'some traces are older than 24 h',
  )
  t.ok(
    traces.some((tr) => ms(tr.created_at) % HOUR === 0),
    'some traces are exactly on an hour',
  )

  return {
    app,
    now,
    slowMs,
    traces,
    projects: [...keys.map((k) => k.project_id), archive.project_id],
    emptyProject: empty.project_id,
  }
}

async function checkAnalytics(t: Test, ds: DataSet, projectId: string | undefined) {
  const scope = projectId === undefined ? ds.traces : ds.traces.filter((tr) => tr.project_id === projectId)
  const res = await ds.app.inject({
    url: '/analytics',
    query: projectId === undefined ? {} : { project_id: projectId },
  })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.strictSame(schemaErrors(AnalyticsResponse, body), [], 'matches AnalyticsResponse')
  const expected = expectedAnalytics(scope, ds.now, ds.slowMs)
  t.strictSame(body.summary, expected.summary, 'summary')
  t.equal(body.charts.length, 24, '24 chart points')
  t.strictSame(body.charts, expected.charts, 'charts')
  t.strictSame(body.status_breakdown, expected.status_breakdown, 'status_breakdown')
  t.strictSame(body.model_breakdown, expected.model_breakdown, 'model_breakdown')
  t.strictSame(body.project_breakdown, expected.project_breakdown, 'project_breakdown')
  t.strictSame(body.cost_breakdown, expected.cost_breakdown, 'cost_breakdown')
  t.strictSame(body.recent_failures, expected.recent_failures, 'recent_failures')

  const scoped: Record<string, string> = projectId === undefined ? {} : { project_id: projectId }
  const sessions = await ds.app.inject({ url: '/sessions', query: { ...scoped, limit: '1000' } })
  t.equal(sessions.statusCode, 200)
  t.strictSame(schemaErrors(ListSessionsResponse, sessions.json()), [], 'matches ListSessionsResponse')
  const expectedS = expectedSessions(scope)
  t.strictSame(sessions.json(), { total: expectedS.length, items: expectedS }, '/sessions')
  const users = await ds.app.inject({ url: '/users', query: { ...scoped, limit: '1000' } })
  t.strictSame(schemaErrors(ListUsersResponse, users.json()), [], 'matches ListUsersResponse')
  const expectedU = expectedUsers(scope)
  t.strictSame(users.json(), { total: expectedU.length, items: expectedU }, '/users')
  for (const session of expectedS.slice(0, 3)) {
    const one = await ds.app.inject({
      url: `/sessions/${session.session_id}`,
      query: { project_id: session.project_id },
    })
    const conversation = scope
      .filter((tr) => tr.project_id === session.project_id && tr.session_id === session.session_id)
      .sort((a, b) => ms(a.created_at) - ms(b.created_at) || (a.trace_id < b.trace_id ? -1 : 1))
    t.strictSame(one.json(), { session, traces: conversation }, `/sessions/${session.session_id}`)
  }
  for (const user of expectedU.slice(0, 2)) {
    const one = await ds.app.inject({ url: `/users/${user.user_id}`, query: { project_id: user.project_id } })
    t.strictSame(
      one.json(),
      { user, sessions: expectedS.filter((s) => s.project_id === user.project_id && s.user_id === user.user_id) },
      `/users/${user.user_id}`,
    )
  }
  const page = await ds.app.inject({ url: '/sessions', query: { ...scoped, limit: '2', offset: '1' } })
  t.strictSame(page.json().items, expectedS.slice(1, 3), '/sessions, a page')

  for (const limit of [undefined, 1, 7, 1000]) {
    const query: Record<string, string> = {}
    if (projectId !== undefined) query.project_id = projectId
    if (limit !== undefined) query.limit = String(limit)
    const f = await ds.app.inject({ url: '/failures', query })
    t.equal(f.statusCode, 200)
    const failures = f.json()
    t.strictSame(schemaErrors(FailuresResponse, failures), [], 'matches FailuresResponse')
    t.strictSame(failures, expectedFailures(scope, limit ?? 50, ds.slowMs), `failures, limit ${limit ?? 'default'}`)
    t.strictSame(
      failures.totals,
      {
        failed_traces: body.summary.failed_traces,
        retries: body.summary.retries,
        slow_requests: body.summary.slow_requests,
      },
      '/failures totals equal the /analytics summary counts',
    )
  }
}

async function checkEverything(t: Test, ds: DataSet) {
  await t.test('all projects', async (t) => checkAnalytics(t, ds, undefined))
  for (const project of ds.projects) await t.test(`project ${project}`, async (t) => checkAnalytics(t, ds, project))
  await t.test('a project without traces', async (t) => checkAnalytics(t, ds, ds.emptyProject))
  await t.test('an unknown project', async (t) => checkAnalytics(t, ds, 'no-such-project'))
}

// 2026-11-21T13:45:00.000Z (`date -u -d '2026-11-21T13:45:00Z' +%s`), and times around it.
const NOW = 1_795_268_700_000

const DATA_SETS: { seed: number; now: number; name: string; slowMs?: number; count?: number }[] = [
  { seed: 1, now: NOW + 12_345, name: 'mid-hour' },
  { seed: 2, now: NOW - 45 * MINUTE, name: 'exactly on the hour' },
  { seed: 3, now: NOW + 15 * MINUTE - 1, name: 'the last millisecond of an hour' },
  { seed: 4, now: NOW - 13 * HOUR - 45 * MINUTE + 7, name: 'just after midnight UTC', count: 400 },
  { seed: 5, now: NOW, name: 'a custom slow threshold', slowMs: 1234.5 },
  { seed: 6, now: NOW + 6 * MINUTE, name: 'a zero slow threshold', slowMs: 0, count: 200 },
]

for (const spec of DATA_SETS) {
  t.test(`analytics and failures match a recomputation: seed ${spec.seed}, ${spec.name}`, async (t) => {
    const ds = await ingestDataSet(t, spec.seed, spec.now, { slowMs: spec.slowMs, count: spec.count })
    await checkEverything(t, ds)
    if (spec.seed > 2) return
    // New prices, then every stored trace priced again: every figure still equals a recount.
    const put = await ds.app.inject({
      method: 'PUT',
      url: '/models/llama*',
      payload: { input_price: 0.9, output_price: 0.9 },
    })
    t.equal(put.statusCode, 201)
    t.equal(
      (await ds.app.inject({ method: 'PUT', url: '/models/gpt-4o', payload: { input_price: 1, output_price: 3 } }))
        .statusCode,
      201,
    )
    const recompute = await ds.app.inject({ method: 'POST', url: '/costs/recompute' })
    t.equal(recompute.statusCode, 200)
    t.equal(recompute.json().scanned, ds.traces.length, 'every trace priced again')
    t.ok(recompute.json().changed > 0, 'some costs changed')
    const again = await ds.app.inject({ method: 'POST', url: '/costs/recompute' })
    t.equal(again.json().changed, 0, 'a second re-pricing changes nothing')
    const list = await ds.app.inject({ url: '/traces', query: { limit: '1000' } })
    const repriced: Trace[] = list.json().items
    t.ok(
      repriced.some((tr) => tr.model === 'llama-3.1-70b' && tr.cost !== null),
      'llama traces are priced now',
    )
    await t.test('after re-pricing', async (t) => checkEverything(t, { ...ds, traces: repriced }))
  })
}

t.test('an empty store: zero summary, 24 zero points, empty breakdowns and lists', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const res = await app.inject('/analytics')
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.strictSame(schemaErrors(AnalyticsResponse, body), [])
  t.strictSame(body.summary, {
    total_traces: 0,
    success_rate: 0,
    average_latency: 0,
    p95_latency: 0,
    total_token_usage: 0,
    traces_without_tokens: 0,
    failed_traces: 0,
    warning_traces: 0,
    retries: 0,
    slow_requests: 0,
    total_cost: 0,
    unpriced_traces: 0,
  })
  t.strictSame(body.cost_breakdown, [])
  // 13:45 now: the window is 14:00 yesterday … 13:00 today.
  t.equal(body.charts[0].label, '14:00')
  t.equal(body.charts[23].label, '13:00')
  t.strictSame(
    body.charts.map((p: { latency: number; tokens: number; traces: number }) => [p.latency, p.tokens, p.traces]),
    Array.from({ length: 24 }, () => [0, 0, 0]),
  )
  t.strictSame(
    [body.status_breakdown, body.model_breakdown, body.project_breakdown, body.recent_failures],
    [[], [], [], []],
  )
  const f = await app.inject('/failures')
  t.equal(f.statusCode, 200)
  t.strictSame(f.json(), {
    failed_traces: [],
    retries: [],
    slow_requests: [],
    totals: { failed_traces: 0, retries: 0, slow_requests: 0 },
  })
})

t.test('a hand-made data set: known numbers, worked out by hand', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const { key, project_id } = await createProject(app, 'Hand')
  const at = (hoursAgo: number) => new Date(NOW - 45 * MINUTE - hoursAgo * HOUR).toISOString()
  const traces = [
    { trace_id: 'a', prompt: '', latency: 100, token_count: 10, model: 'm1', created_at: at(0), cost: 0.1 },
    { trace_id: 'b', prompt: '', latency: 5000, token_count: 20, model: 'm1', created_at: at(0), cost: 0.2 },
    // No model and no reported cost: unpriced, even with its tokens split.
    {
      trace_id: 'c',
      prompt: '',
      latency: 4999.999,
      prompt_tokens: 20,
      completion_tokens: 10,
      created_at: at(1),
      failure_reason: 'boom',
    },
    { trace_id: 'd', prompt: '', latency: 0.001, token_count: 0, model: 'm2', created_at: at(23), retry_count: 2 },
    // gpt-4o-mini: $0.15 and $0.60 per million tokens → 0.000015 + 0.0000024 = 0.0000174.
    {
      trace_id: 'e',
      prompt: '',
      latency: 7000,
      prompt_tokens: 100,
      completion_tokens: 4,
      token_count: 5,
      model: 'gpt-4o-mini',
      created_at: at(24),
    },
  ]
  for (const trace of traces) t.equal((await postTrace(app, key, trace)).statusCode, 201)
  const body = (await app.inject('/analytics')).json()
  t.strictSame(body.summary, {
    total_traces: 5,
    success_rate: 60, // a, b, e
    average_latency: 3420, // 17100.000 / 5
    p95_latency: 7000, // ceil(4.75) − 1 = 4 → the largest
    total_token_usage: 65,
    traces_without_tokens: 0, // d's 0 was sent: a count
    failed_traces: 1,
    warning_traces: 1,
    retries: 1,
    slow_requests: 2, // b (= 5000) and e; not c (4999.999)
    total_cost: 0.3000174, // a + b + e, exactly (0.1 + 0.2 in floating point would be 0.30000000000000004)
    unpriced_traces: 2, // c and d
  })
  t.strictSame(body.charts[23], { label: '13:00', latency: 2550, tokens: 30, traces: 2, cost: 0.3 })
  t.strictSame(body.charts[22], { label: '12:00', latency: 5000, tokens: 30, traces: 1, cost: 0 })
  t.strictSame(body.charts[0], { label: '14:00', latency: 0, tokens: 0, traces: 1, cost: 0 })
  t.equal(
    body.charts.reduce((sum: number, p: { traces: number }) => sum + p.traces, 0),
    4,
    'e (24 h ago) is outside the chart',
  )
  t.strictSame(body.status_breakdown, [
    { key: 'success', count: 3 },
    { key: 'failed', count: 1 },
    { key: 'warning', count: 1 },
  ])
  t.strictSame(body.model_breakdown, [
    { key: 'm1', count: 2 },
    { key: 'gpt-4o-mini', count: 1 },
    { key: 'm2', count: 1 },
    { key: 'unknown', count: 1 },
  ])
  t.strictSame(body.cost_breakdown, [
    { key: 'm1', cost: 0.3, count: 2, unpriced: 0 },
    { key: 'gpt-4o-mini', cost: 0.0000174, count: 1, unpriced: 0 },
    { key: 'm2', cost: 0, count: 1, unpriced: 1 },
    { key: 'unknown', cost: 0, count: 1, unpriced: 1 },
  ])
  t.strictSame(body.project_breakdown, [{ key: project_id, count: 5 }])
  t.strictSame(
    body.recent_failures.map((tr: Trace) => tr.trace_id),
    ['c'],
  )
  const f = (await app.inject({ url: '/failures', query: { limit: '1' } })).json()
  t.strictSame(
    [f.failed_traces, f.retries, f.slow_requests].map((list: Trace[]) => list.map((tr) => tr.trace_id)),
    [['c'], ['d'], ['b']],
  )
  t.strictSame(f.totals, { failed_traces: 1, retries: 1, slow_requests: 2 })
})

t.test('the slow threshold comes from the configuration', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW, config: { slowThresholdMs: 250 } })
  const { key } = await createProject(app, 'Thresholds')
  for (const [i, latency] of [249.999, 250, 250.001, 10].entries()) {
    t.equal(
      (await postTrace(app, key, { trace_id: `s${i}`, prompt: '', latency, created_at: NOW - i })).statusCode,
      201,
    )
  }
  t.equal((await app.inject('/analytics')).json().summary.slow_requests, 2)
  const f = (await app.inject('/failures')).json()
  t.strictSame(
    f.slow_requests.map((tr: Trace) => tr.trace_id),
    ['s1', 's2'],
  )
  t.equal(f.totals.slow_requests, 2)
})

t.test('recent_failures holds the 10 newest failed traces, ties broken by trace_id desc', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const { key } = await createProject(app, 'Failures')
  const traces = Array.from({ length: 14 }, (_, i) => ({
    trace_id: `f${String(i).padStart(2, '0')}`,
    prompt: '',
    failure_reason: 'x',
    created_at: NOW - Math.floor(i / 3) * MINUTE, // three at a time share a timestamp
  }))
  const res = await postBatch(app, key, [...traces, { prompt: '', created_at: NOW + HOUR }])
  t.equal(res.json().accepted, 15)
  const body = (await app.inject('/analytics')).json()
  t.strictSame(
    body.recent_failures.map((tr: Trace) => tr.trace_id),
    ['f02', 'f01', 'f00', 'f05', 'f04', 'f03', 'f08', 'f07', 'f06', 'f11'],
  )
})

t.test('GET /failures: limit must be an integer from 1 to 1000', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const { key } = await createProject(app, 'Limits')
  await postBatch(
    app,
    key,
    Array.from({ length: 3 }, (_, i) => ({ prompt: '', failure_reason: 'x', latency: 9000, created_at: NOW - i })),
  )
  for (const limit of ['0', '-1', '1001', '1.5', 'abc', '']) {
    const res = await app.inject({ url: `/failures?limit=${limit}` })
    t.equal(res.statusCode, 400, `limit=${limit}`)
    t.match(res.json(), { statusCode: 400, error: 'Bad Request', message: /limit/ }, `limit=${limit} names the field`)
  }
  for (const [limit, expected] of [
    ['1', 1],
    ['2', 2],
    ['1000', 3],
  ] as const) {
    const res = await app.inject({ url: `/failures?limit=${limit}` })
    t.equal(res.statusCode, 200, `limit=${limit}`)
    const body = res.json()
    t.equal(body.failed_traces.length, expected)
    t.equal(body.slow_requests.length, expected)
    t.strictSame(body.totals, { failed_traces: 3, retries: 0, slow_requests: 3 })
  }
})
