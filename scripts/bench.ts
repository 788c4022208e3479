// npm run bench: the project's one benchmark. Seeds (or re-uses) a database of N traces, starts the real server,
// drives it with autocannon in a separate process, and prints every figure beside its floor measured in the same
// run on the same machine: a bare Fastify route, raw better-sqlite3 batched inserts, and naive SQL analytics.
//
//   npm run bench                      1,000,000 traces, 10 s per load run
//   npm run bench -- --traces 200000 --duration 5
//   npm run bench -- --tiny            5,000 traces, 1 s per run (what CI runs, so the harness never rots)
//   npm run bench -- --store postgres --database postgres://user@host:5432/loupe_bench
//                                      the same on PostgreSQL (that database is seeded once; each run works on a copy)
//   npm run bench -- --only reads,search  only these groups of rows (reads, search, ingest, fanout, viewer, burst,
//                                      lifecycle), to measure one change without the whole run
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import cliProgress from 'cli-progress'
import WebSocket from 'ws'
import { LIMITS } from '../schemas/index.js'
import { p95Index } from '../src/analytics/math.js'
import { normalizeTrace } from '../src/ingest/normalize.js'
import { packageRoot } from '../src/lib/paths.js'
import { mulberry32, seed } from '../src/seed/seed.js'
import { openDatabase } from '../src/store/sqlite/driver.js'
import { createSqliteStore } from '../src/store/sqlite/store.js'
import { postgresBench } from './bench-postgres.js'
import { benchViewer } from './bench-viewer.js'

const root = packageRoot()
const { values: args } = parseArgs({
  options: {
    traces: { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string' },
    database: { type: 'string' },
    out: { type: 'string' },
    sockets: { type: 'string' },
    tiny: { type: 'boolean', default: false },
    store: { type: 'string', default: 'sqlite' },
    'no-build': { type: 'boolean', default: false },
    only: { type: 'string' },
  },
})
const GROUPS = ['reads', 'search', 'ingest', 'fanout', 'viewer', 'burst', 'lifecycle'] as const
type Group = (typeof GROUPS)[number]
const only = args.only === undefined ? GROUPS : args.only.split(',').map((g) => g.trim())
for (const g of only) {
  if (!(GROUPS as readonly string[]).includes(g)) throw new Error(`--only takes groups among ${GROUPS.join(', ')}`)
}
/** Whether this run measures the rows of a group. */
const wants = (group: Group) => (only as readonly string[]).includes(group)
const tiny = args.tiny === true
const TRACES = Number(args.traces ?? (tiny ? 5_000 : 1_000_000))
const DURATION = Number(args.duration ?? (tiny ? 1 : 10))
const CONNECTIONS = Number(args.connections ?? 10)
const FANOUT_SOCKETS = Number(args.sockets ?? (tiny ? 50 : 1000))
const FANOUT_EVENTS = tiny ? 10 : 100
/** The burst: one batch of this many traces to this many sockets at once, while /health is probed. */
const BURST_SOCKETS = tiny ? 200 : 10_000
const BURST_TRACES = tiny ? 100 : 1000
const FLOOR_INSERT_ROWS = tiny ? 2_000 : 50_000
if (args.store !== 'sqlite' && args.store !== 'postgres') throw new Error('--store is sqlite or postgres')
const postgres =
  args.store === 'postgres'
    ? postgresBench(args.database ?? 'postgres://postgres@127.0.0.1:5432/loupe_bench', (line) =>
        process.stdout.write(`${line}\n`),
      )
    : null
const seededPath = args.database ?? join(root, 'bench', 'data', `loupe-${TRACES}.db`)
const workPath = join(dirname(seededPath), `work-${TRACES}.db`)
const say = (line: string) => process.stdout.write(`${line}\n`)

/**
 * fetch for the bench's own requests. autocannon runs synchronously and holds the event loop for whole seconds, so a
 * keep-alive socket the server closed meanwhile still looks idle in the pool: a turn of the loop first lets its close
 * be seen, and a GET whose socket was closed under it anyway is sent once more, as any HTTP client does.
 */
async function fetch(input: string, init?: RequestInit): Promise<Response> {
  await new Promise((resolve) => setImmediate(resolve))
  try {
    return await globalThis.fetch(input, init)
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code
    if (code !== 'UND_ERR_SOCKET' || (init?.method ?? 'GET') !== 'GET') throw err
    return globalThis.fetch(input, init)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers: free ports, child processes, autocannon in its own process.

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

async function waitFor(url: string, child: ChildProcess, seconds = 120): Promise<void> {
  const deadline = Date.now() + seconds * 1000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}`)
    try {
      if ((await fetch(url)).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`${url} did not answer within ${seconds} s`)
}

interface LoadResult {
  rps: number
  p50: number
  p99: number
  errors: number
  /** Server CPU time per request (µs), when the server's pid was given: robust where req/s is not (a shared box). */
  cpuUs?: number
}

/** user + system CPU time of a process so far, in µs. */
function cpuTimeUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  const ticks = Number(fields[11]) + Number(fields[12])
  return (ticks * 1_000_000) / 100
}

/** One autocannon run, in a separate process so that the load generator does not share the server's core time. */
function autocannon(
  url: string,
  options: { method?: string; body?: string; headers?: string[]; connections?: number; pid?: number } = {},
): LoadResult {
  const cpuBefore = options.pid ? cpuTimeUs(options.pid) : 0
  const cli = join(root, 'node_modules', 'autocannon', 'autocannon.js')
  const argv = [cli, '-j', '-c', String(options.connections ?? CONNECTIONS), '-d', String(DURATION)]
  if (options.method) argv.push('-m', options.method)
  for (const h of options.headers ?? []) argv.push('-H', h)
  if (options.body) argv.push('-b', options.body)
  argv.push(url)
  const out = execFileSync(process.execPath, argv, {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  const r = JSON.parse(out)
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: (r.errors ?? 0) + (r.non2xx ?? 0) + (r.timeouts ?? 0),
    cpuUs: options.pid && r.requests.total > 0 ? (cpuTimeUs(options.pid) - cpuBefore) / r.requests.total : undefined,
  }
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0)
  return kb / 1024
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0
}
/** The largest, 0 for none: a loop, since a run of minutes gets more values than a call has room for arguments. */
const longest = (xs: readonly number[]) => xs.reduce((a, b) => Math.max(a, b), 0)
function timeMs(fn: () => unknown, runs = 3): number {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    fn()
    times.push(performance.now() - start)
  }
  return median(times)
}

// ---------------------------------------------------------------------------------------------------------------
// Synthetic ingest payloads: what a client sends (no trace_id: the server assigns one, so every request stores).

const random = mulberry32(42)
const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4', 'llama-3.1-70b']
function syntheticInput(i: number) {
  const tools = random() < 0.3 ? ['search', 'search', 'answer'] : ['search', 'answer']
  return {
    name: 'bench_call',
    model: MODELS[i % MODELS.length],
    prompt: `Benchmark prompt ${i}: summarize the quarterly report for the finance team in three bullet points.`,
    response: 'Revenue grew 12%, costs were flat, and the outlook is stable for the next quarter.',
    prompt_tokens: 60 + (i % 40),
    completion_tokens: 20 + (i % 30),
    session_id: `bench-session-${i % 100}`,
    user_id: `bench-user-${i % 20}`,
    tags: ['bench'],
    steps: tools.map((tool, k) => ({
      type: tool === 'answer' ? 'llm' : 'tool',
      tool: tool === 'answer' ? undefined : tool,
      name: tool,
      latency_ms: 50 + Math.round(random() * 400),
      status: k === 0 && tools.length === 3 ? 'error' : 'ok',
    })),
  }
}

// ---------------------------------------------------------------------------------------------------------------

/** The seeded file holds at least TRACES traces afterwards: it is created, or topped up (never replaced: it may be
 * a database of someone's own, given with --database). */
async function ensureSeeded() {
  let n = 0
  if (existsSync(seededPath)) {
    const db = openDatabase(seededPath, { readonly: true })
    n = (db.prepare('select count(*) as n from traces').get() as { n: number }).n
    db.close()
    if (n >= TRACES) {
      say(`re-using ${seededPath} (${n.toLocaleString('en-US')} traces)`)
      return
    }
  }
  mkdirSync(dirname(seededPath), { recursive: true })
  const missing = TRACES - n
  say(`seeding ${missing.toLocaleString('en-US')} traces into ${seededPath}`)
  const store = createSqliteStore(seededPath)
  const bar = new cliProgress.SingleBar(
    { format: 'seeding [{bar}] {percentage}% {value}/{total} traces, eta {eta}s' },
    cliProgress.Presets.shades_classic,
  )
  bar.start(missing, 0)
  const start = performance.now()
  await seed({ store, traces: missing, random: mulberry32(1), onProgress: (done) => bar.update(done) })
  bar.stop()
  say(`seeded in ${((performance.now() - start) / 1000).toFixed(1)} s`)
  store.raw.pragma('wal_checkpoint(TRUNCATE)')
  store.raw.exec('ANALYZE')
  await store.close()
}

/** Raw better-sqlite3: the same normalized rows, one prepared INSERT, transactions of 100 — into the same table. */
function floorInserts(): number {
  const db = openDatabase(workPath)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  const columns = (db.prepare('pragma table_info(traces)').all() as { name: string }[]).map((c) => c.name)
  const insert = db.prepare(
    `insert into traces (${columns.join(',')}) values (${columns.map((c) => `@${c}`).join(',')})`,
  )
  const rows = Array.from({ length: FLOOR_INSERT_ROWS }, (_, i) => {
    const trace = normalizeTrace(
      syntheticInput(i) as never,
      { project_id: 'bench-floor', environment: 'production' },
      {
        now: Date.now(),
        newId: () => `floor-${i}`,
      },
    )
    return {
      ...trace,
      created_at: Date.parse(trace.created_at),
      tags: JSON.stringify(trace.tags),
      metadata: JSON.stringify(trace.metadata),
      steps: JSON.stringify(trace.steps),
      // SQLite binds no booleans; the costs a client reported are a column of their own.
      tokens_reported: trace.tokens_reported ? 1 : 0,
      reported_cost: null,
    }
  })
  const insertBatch = db.transaction((batch: typeof rows) => {
    for (const row of batch) insert.run(row)
  })
  const start = performance.now()
  for (let i = 0; i < rows.length; i += 100) insertBatch(rows.slice(i, i + 100))
  const seconds = (performance.now() - start) / 1000
  db.prepare(`delete from traces where project_id = 'bench-floor'`).run()
  db.close()
  return rows.length / seconds
}

/** Full-text search as a first attempt would write it: LIKE over every text column, newest first. */
function floorNaiveSearch(word: string, limit: number): number {
  const db = openDatabase(workPath, { readonly: true })
  const pattern = `%${word}%`
  const ms = timeMs(() =>
    db
      .prepare(
        `select * from traces where name like ? or prompt like ? or response like ? or failure_reason like ?
         or steps like ? order by created_at desc, trace_id desc limit ?`,
      )
      .all(pattern, pattern, pattern, pattern, pattern, limit),
  )
  db.close()
  return ms
}

/** Bytes the full-text index takes on disk, beside the traces table's own (SQLite's dbstat). */
function searchStorage(): { search: number; traces: number } | null {
  const db = openDatabase(workPath, { readonly: true })
  try {
    const size = (like: string) =>
      (db.prepare('select coalesce(sum(pgsize), 0) as n from dbstat where name like ?').get(like) as { n: number }).n
    return { search: size('traces_search%'), traces: size('traces') }
  } catch {
    return null
  } finally {
    db.close()
  }
}

/** What a first attempt would write: plain aggregates and ORDER BY … OFFSET over the traces table. */
function floorNaiveSql(projectId: string, slowMs: number) {
  const db = openDatabase(workPath, { readonly: true })
  const analytics = (where: string, params: unknown[]) => () => {
    db.prepare(
      `select count(*), sum(status = 'success'), avg(latency), sum(token_count), sum(status = 'failed'),
              sum(status = 'warning'), sum(retry_count > 0), sum(latency >= ?) from traces ${where}`,
    ).get(slowMs, ...params)
    for (const col of ['status', "coalesce(model, 'unknown')", 'project_id']) {
      db.prepare(`select ${col}, count(*) from traces ${where} group by 1`).all(...params)
    }
    const hour = 3_600_000
    const end = Math.floor(Date.now() / hour) * hour + hour
    db.prepare(
      `select (created_at - ?) / ${hour}, count(*), sum(token_count), avg(latency) from traces
       ${where ? `${where} and` : 'where'} created_at >= ? and created_at < ? group by 1`,
    ).all(end - 24 * hour, ...params, end - 24 * hour, end)
  }
  const p95 = (where: string, params: unknown[]) => () => {
    const n = (db.prepare(`select count(*) as n from traces ${where}`).get(...params) as { n: number }).n
    db.prepare(`select latency from traces ${where} order by latency limit 1 offset ?`).get(...params, p95Index(n))
  }
  const result = {
    analyticsAll: timeMs(analytics('', [])),
    analyticsProject: timeMs(analytics('where project_id = ?', [projectId])),
    p95All: timeMs(p95('', [])),
    p95Project: timeMs(p95('where project_id = ?', [projectId])),
  }
  db.close()
  return result
}

async function fanout(
  base: string,
  key: string,
): Promise<{ fromSend: number[]; fromAck: number[]; connected: number }> {
  const wsUrl = `${base.replace('http', 'ws')}/ws`
  const sockets: WebSocket[] = []
  const sentAt = new Map<string, { send: number; ack: number }>()
  const fromSend: number[] = []
  const fromAck: number[] = []
  const pending: { id: string; at: number }[] = []
  for (let i = 0; i < FANOUT_SOCKETS; i++) {
    const socket = new WebSocket(wsUrl)
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve())
      socket.once('error', reject)
    })
    socket.on('message', (data) => {
      const at = performance.now()
      const text = data.toString()
      if (!text.includes('"trace.created"')) return
      const id = /"trace_id":"([^"]+)"/.exec(text)?.[1]
      if (id) pending.push({ id, at })
    })
    sockets.push(socket)
  }
  for (let i = 0; i < FANOUT_EVENTS; i++) {
    const send = performance.now()
    const res = await fetch(`${base}/traces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(syntheticInput(i)),
    })
    const ack = performance.now()
    const { trace_id } = (await res.json()) as { trace_id: string }
    sentAt.set(trace_id, { send, ack })
    await new Promise((r) => setTimeout(r, 30))
  }
  await new Promise((r) => setTimeout(r, 500))
  for (const { id, at } of pending) {
    const t = sentAt.get(id)
    if (!t) continue
    fromSend.push(at - t.send)
    fromAck.push(Math.max(0, at - t.ack))
  }
  for (const s of sockets) s.terminate()
  return { fromSend, fromAck, connected: sockets.length }
}

/** The resident set of a process now, in MB. */
function rssMb(pid: number): number {
  // A server that is gone has no resident set (NaN shows in the table), and a sampler must not end the run.
  if (!existsSync(`/proc/${pid}/status`)) return Number.NaN
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}

/** A helper process (scripts/bench-fanout-peers.ts) whose stdout is JSON lines; a line on its stdin ends it. */
function helperProcess(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'bench-fanout-peers.ts'), ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const lines: string[] = []
  let wake: (() => void) | null = null
  let buffer = ''
  // Not its exit: a long last line (a probe's every answer) may still be on its way through the pipe then.
  let closed = false
  child.once('close', () => {
    closed = true
    wake?.()
  })
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString()
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      lines.push(buffer.slice(0, i))
      buffer = buffer.slice(i + 1)
    }
    wake?.()
  })
  return {
    async next<T>(): Promise<T> {
      while (lines.length === 0) {
        if (closed) throw new Error(`bench-fanout-peers ${args[0]} exited`)
        await new Promise<void>((resolve) => {
          wake = resolve
          setTimeout(resolve, 1000)
        })
      }
      return JSON.parse(lines.shift()!) as T
    },
    end() {
      child.stdin!.write('\n')
    },
  }
}

/**
 * A burst: BURST_TRACES traces in one batch to BURST_SOCKETS sockets, with /health probed from another process the
 * whole time. The ingest answer must not wait for the broadcast, nor must /health; every socket must receive every
 * event; and once the sockets close, the server must give the memory back.
 */
async function burstFanout(base: string, key: string, pid: number) {
  const before = rssMb(pid)
  const peers = helperProcess([
    'peers',
    `${base.replace('http', 'ws')}/ws`,
    String(BURST_SOCKETS),
    String(BURST_TRACES),
  ])
  const { ready } = await peers.next<{ ready: number }>()
  const body = JSON.stringify({
    traces: Array.from({ length: BURST_TRACES }, (_, i) => ({ prompt: `burst ${i}`, model: 'gpt-4o', latency: i })),
  })
  const { result, reads } = await readWhile(`${base}/health`, 5, async () => {
    const started = performance.now()
    const res = await fetch(`${base}/traces/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    })
    const ackMs = performance.now() - started
    if (res.status !== 200) throw new Error(`burst batch answered ${res.status}: ${await res.text()}`)
    const delivered = await peers.next<{ complete: number; received: number; dropped: number; ms: number }>()
    return { ackMs, delivered }
  })
  const { ackMs, delivered } = result
  const health = {
    requests: reads.ms.length,
    maxMs: Math.round(longest(reads.ms)),
    p99Ms: Math.round(percentile(reads.ms, 99)),
  }
  const peak = rssMb(pid)
  peers.end()
  // The memory comes back once the sockets are gone: how long until within 64 MB of before (at most 10 s).
  const closedAt = performance.now()
  let back = rssMb(pid)
  while (back > before + 64 && performance.now() - closedAt < 10_000) {
    await new Promise((r) => setTimeout(r, 250))
    back = rssMb(pid)
  }
  return { ready, ackMs, delivered, health, before, peak, back, backMs: performance.now() - closedAt }
}

/**
 * Single-trace POST /traces from 50 concurrent clients, as SDKs and exporters send them: concurrent writes share a
 * transaction (group commit), so this is held to the batch path's traces/s measured just before.
 */
function concurrentSingleIngest(
  base: string,
  headers: string[],
  pid: number | undefined,
  batchTracesPerSecond: number,
) {
  const connections = 50
  const r = autocannon(`${base}/traces`, {
    method: 'POST',
    headers,
    body: JSON.stringify(syntheticInput(2)),
    connections,
    pid,
  })
  return {
    what: `POST /traces, ${connections} concurrent clients (group commit)`,
    result: `${r.rps.toLocaleString('en-US', { maximumFractionDigits: 0 })} traces/s · p50 ${r.p50} ms · p99 ${r.p99} ms${r.errors ? ` · ${r.errors} errors` : ''}`,
    floor: `batch path ${batchTracesPerSecond.toLocaleString('en-US', { maximumFractionDigits: 0 })} traces/s`,
    ratio: `${((100 * r.rps) / batchTracesPerSecond).toFixed(0)}% of batch`,
    goal: '≥ 50% of batch · p99 ≤ 20 ms',
  }
}

/** OTLP spans sent by the real protobuf exporter in one run: 20 exports of 512 (--tiny), else 200. */
const OTLP_SPANS = tiny ? 10_240 : 102_400

/**
 * OTLP ingest from the real OpenTelemetry protobuf exporter (scripts/bench-otlp-client.ts: exports of 512 spans from
 * 4 concurrent exporters, GenAI agent runs of 8 spans), into a project of its own; then every trace is waited for
 * (stored OTLP_ROOT_GRACE_MS after its root) and counted with its steps: nothing may be lost. The
 * server's CPU time per span is the robust figure on a shared machine: 1e6 / it is what one core would take.
 */
async function otlpIngest(base: string, pid: number, rawInsertRowsPerSecond: number) {
  const fmt = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
  const project = (await (
    await fetch(`${base}/projects?name=bench-otlp-${Date.now()}&environment=production`, { method: 'POST' })
  ).json()) as { project: { project_id: string }; api_key: { key: string } }
  const projectId = project.project.project_id
  const cpuBefore = cpuTimeUs(pid)
  const started = performance.now()
  const client = JSON.parse(
    execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        join(root, 'scripts', 'bench-otlp-client.ts'),
        `${base}/v1/traces`,
        project.api_key.key,
        String(OTLP_SPANS),
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
    ),
  ) as { spans: number; traces: number; exports: number; ms: number; failed: number }
  const ackedAt = performance.now()
  // Counted through the API, on either store: the project's traces, and their steps summed over every page.
  // A saturated server answers 503 with Retry-After (its overload guard): the count waits and asks again.
  const list = async (query: string) => {
    for (;;) {
      const res = await fetch(`${base}/traces?project_id=${projectId}&fields=summary&${query}`)
      if (res.ok) {
        return (await res.json()) as { total: number; items: { step_count: number }[]; next_cursor: string | null }
      }
      if (res.status !== 503) throw new Error(`GET /traces answered ${res.status}: ${await res.text()}`)
      await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)))
    }
  }
  let traces = (await list('limit=1')).total
  while (traces < client.traces && performance.now() - ackedAt < 60_000) {
    await new Promise((r) => setTimeout(r, 100))
    traces = (await list('limit=1')).total
  }
  const storedMs = performance.now() - started
  const cpuPerSpan = (cpuTimeUs(pid) - cpuBefore) / client.spans
  let steps = 0
  for (let page = await list('limit=1000'); ; page = await list(`limit=1000&cursor=${page.next_cursor}`)) {
    steps += page.items.reduce((n, item) => n + item.step_count, 0)
    if (!page.next_cursor) break
  }
  const stored = { traces, steps }
  const spansPerSecond = (1000 * client.spans) / client.ms
  const expectedSteps = client.spans - client.traces
  const complete = client.failed === 0 && stored.traces === client.traces && stored.steps === expectedSteps
  say(
    `OTLP: ${fmt(spansPerSecond)} spans/s acknowledged, ${fmt(cpuPerSpan)} µs CPU/span; ` +
      `${stored.traces}/${client.traces} traces, ${stored.steps}/${expectedSteps} steps stored`,
  )
  return {
    what: 'OTLP/HTTP protobuf, 4 exporters × exports of 512 spans (real OTel exporter)',
    result:
      `${fmt(spansPerSecond)} spans/s acknowledged · ${fmt(cpuPerSpan)} µs CPU/span (${fmt(1e6 / cpuPerSpan)} spans/s ` +
      `per core) · ${fmt(stored.traces)}/${fmt(client.traces)} traces with ${fmt(stored.steps)}/${fmt(expectedSteps)} ` +
      `steps stored within ${fmt(storedMs / 1000, 1)} s of the first export${client.failed ? ` · ${client.failed} exports failed` : ''}`,
    floor: `raw inserts ${fmt(rawInsertRowsPerSecond)} rows/s`,
    ratio: complete ? 'nothing lost' : 'LOST: spans or traces missing',
    goal: '≥ 10,000 spans/s, nothing lost',
  }
}

/** The largest trace the contract allows: LIMITS.steps steps, each with a small input and output. */
function bigTraceInput(i: number) {
  return {
    ...syntheticInput(i),
    steps: Array.from({ length: LIMITS.steps }, (_, k) => ({
      type: k % 5 === 4 ? 'llm' : 'tool',
      name: `step ${k}`,
      tool: k % 5 === 4 ? undefined : `tool-${k % 7}`,
      latency_ms: 5 + (k % 40),
      status: k % 97 === 0 ? 'error' : 'ok',
      input: { query: `lookup ${k} for the quarterly report` },
      output: { rows: k % 13, note: 'found in the finance archive' },
    })),
  }
}

/**
 * Big traces: POST /traces of a trace with LIMITS.steps steps, one after another (each a new trace); the row of
 * their timings, and the id of one of them (its GET /traces/{id} is measured as every read is).
 */
async function bigTraces(base: string, key: string) {
  const runs = tiny ? 5 : 30
  const times: number[] = []
  let id = ''
  let bytes = 0
  for (let i = 0; i < runs; i++) {
    const body = JSON.stringify(bigTraceInput(i))
    bytes = body.length
    const start = performance.now()
    const post = () =>
      fetch(`${base}/traces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body,
      })
    // A kept-alive connection the server closed meanwhile fails before an answer: once more, on a new one.
    const res = await post().catch(post)
    const stored = (await res.json()) as { trace_id: string; steps: unknown[] }
    times.push(performance.now() - start)
    if (res.status !== 201 || stored.steps.length !== LIMITS.steps) {
      throw new Error(`a ${LIMITS.steps}-step trace answered ${res.status}`)
    }
    id = stored.trace_id
  }
  const row = {
    what: `POST /traces (${LIMITS.steps} steps, ${Math.round(bytes / 1024)} KB)`,
    result: `p50 ${percentile(times, 50).toFixed(1)} ms · p99 ${percentile(times, 99).toFixed(1)} ms (${runs} in a row)`,
    floor: '—',
    ratio: '—',
    goal: 'stored and read back whole',
  }
  return { row, id }
}

/** A request answered with 200 however long the answer takes; resolves with its body. */
function untimedRequest(method: string, url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        body += chunk
      })
      res.on('error', reject)
      res.on('end', () =>
        res.statusCode === 200 ? resolve(body) : reject(new Error(`${method} ${url}: ${res.statusCode} ${body}`)),
      )
    })
    req.on('error', reject)
    req.end()
  })
}

/** What a probe (scripts/bench-fanout-peers.ts probe) prints when it ends. */
interface ProbeResult {
  /** Each answer's time, in order. */
  ms: number[]
  failed: number
  firstFailure: string
}

/**
 * GET `url` over and over from a probe process, `gapMs` apart, while `during` runs; each answer's time. In its own
 * process so that no collection of the benchmark's (its heap holds about 50 MB; 8–46 ms pauses were seen) counts.
 */
async function readWhile<T>(
  url: string,
  gapMs: number,
  during: () => Promise<T>,
): Promise<{ result: T; reads: ProbeResult }> {
  const probe = helperProcess(['probe', url, String(gapMs)])
  await probe.next<{ ready: boolean }>()
  let result: T
  try {
    result = await during()
  } finally {
    probe.end()
  }
  return { result, reads: await probe.next<ProbeResult>() }
}

/**
 * Deletes the oldest tenth of the traces with one DELETE /traces?until=… while GET /analytics is read in a loop (by a
 * probe process: the benchmark's own collections must not count as slow answers): how long any read waits behind the
 * deletion's batches, and whether the totals are exact afterwards. /analytics alone is read the same way first.
 */
async function deleteWhileReading(base: string) {
  const total = ((await (await fetch(`${base}/analytics`)).json()) as { summary: { total_traces: number } }).summary
    .total_traces
  const offset = Math.max(0, Math.floor(total * 0.9))
  const page = (await (await fetch(`${base}/traces?limit=1&offset=${offset}`)).json()) as {
    items: { created_at: string }[]
  }
  const until = page.items[0]?.created_at ?? new Date(0).toISOString()
  const matching = ((await (await fetch(`${base}/traces?limit=1&until=${until}`)).json()) as { total: number }).total
  const { reads: before } = await readWhile(`${base}/analytics`, 0, () => new Promise((r) => setTimeout(r, 2000)))
  const started = performance.now()
  // The answer comes when the last batch is done: fetch gives up on headers after 300 s and closes the socket
  // (a slow run looked like a reset), so this request has no timeout.
  const { result, reads } = await readWhile(`${base}/analytics`, 0, () =>
    untimedRequest('DELETE', `${base}/traces?until=${until}`),
  )
  const { deleted } = JSON.parse(result) as { deleted: number }
  const ms = performance.now() - started
  const after = ((await (await fetch(`${base}/analytics`)).json()) as { summary: { total_traces: number } }).summary
    .total_traces
  if (reads.failed > 0)
    say(`deletion: ${reads.failed} /analytics reads failed meanwhile, the first: ${reads.firstFailure}`)
  return { deleted, ms, reads: reads.ms, before: before.ms, after, expected: total - matching }
}

/** Streams the whole NDJSON export, sampling the server's RSS meanwhile: constant memory shows as a flat peak. */
async function exportRss(base: string, pid: number) {
  const before = rssMb(pid)
  let peak = before
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid))
  }, 50)
  const started = performance.now()
  let bytes = 0
  let lines = 0
  // An export cut short must not leave the sampler running (it would keep the bench from ever exiting).
  try {
    const res = await fetch(`${base}/traces/export?format=ndjson`)
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length
      for (const byte of chunk) if (byte === 10) lines++
    }
  } finally {
    clearInterval(sampler)
  }
  const ms = performance.now() - started
  peak = Math.max(peak, rssMb(pid))
  return { before, peak, bytes, lines, ms }
}

/** One line of the results table. */
interface Row {
  what: string
  result: string
  floor: string
  ratio: string
  goal: string
}

/**
 * A common word searched for the first time: its count is not kept yet, so this is what a new search costs (the
 * search rows above repeat one URL, whose count is then kept). The median of a few words not asked before, beside
 * the naive LIKE floor (`floorMs`) of one of them.
 */
async function searchFirstAsk(base: string, floorMs: number): Promise<Row> {
  const words = ['and', 'you', 'for', 'with', 'that']
  const times: number[] = []
  for (const word of words) {
    const start = performance.now()
    const res = await fetch(`${base}/traces?q=${encodeURIComponent(word)}&limit=50&fields=summary`)
    await res.arrayBuffer()
    times.push(performance.now() - start)
  }
  const median = percentile(times, 50)
  const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 })
  say(`search, first ask of a common word: median ${fmt(median)} ms`)
  return {
    what: 'GET /traces?q=(common word, first ask)&limit=50&fields=summary',
    result: `median ${fmt(median)} ms of ${words.length} words (${words.join(', ')})`,
    floor: `naive SQL ${fmt(floorMs)} ms`,
    ratio: `${fmt(floorMs / Math.max(median, 0.01))}× faster`,
    goal: '—',
  }
}

/** Export and deletion on the seeded server: memory while exporting everything, reads while deleting a tenth. */
async function dataLifecycleRows(base: string, pid: number): Promise<Row[]> {
  const out: Row[] = []
  const fmt = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
  const exported = await exportRss(base, pid)
  out.push({
    what: `GET /traces/export (NDJSON, every trace)`,
    result:
      `${fmt(exported.lines)} traces, ${fmt(exported.bytes / 1e6)} MB in ${fmt(exported.ms / 1000, 1)} s ` +
      `(${fmt(exported.lines / (exported.ms / 1000))} traces/s); server RSS ${fmt(exported.before)} MB before, ` +
      `peak ${fmt(exported.peak)} MB while exporting`,
    floor: `before: ${fmt(exported.before)} MB`,
    ratio: `+${fmt(exported.peak - exported.before)} MB`,
    goal: 'constant memory: within 64 MB of before',
  })
  say(
    `export: ${exported.lines} traces in ${fmt(exported.ms)} ms, RSS ${fmt(exported.before)} → ${fmt(exported.peak)} MB`,
  )
  const deletion = await deleteWhileReading(base)
  out.push({
    what: `DELETE /traces?until=… (${fmt(deletion.deleted)} oldest traces) while GET /analytics is read`,
    result:
      `deleted in ${fmt(deletion.ms / 1000, 1)} s (${fmt(deletion.deleted / (deletion.ms / 1000))} traces/s); ` +
      `${fmt(deletion.reads.length)} /analytics answers meanwhile, p50 ${fmt(percentile(deletion.reads, 50), 1)} ms, ` +
      `p99 ${fmt(percentile(deletion.reads, 99), 1)} ms, longest ${fmt(longest(deletion.reads), 1)} ms, ` +
      `${fmt(deletion.reads.filter((ms) => ms > 50).length)} over 50 ms`,
    floor: `/analytics alone: longest ${fmt(longest(deletion.before), 1)} ms`,
    ratio: `${deletion.after === deletion.expected ? 'totals exact after' : `TOTALS OFF: ${deletion.after} ≠ ${deletion.expected}`}`,
    goal: 'no /analytics answer over 50 ms',
  })
  say(
    `delete: ${deletion.deleted} traces in ${fmt(deletion.ms)} ms; /analytics longest ${fmt(longest(deletion.reads), 1)} ms`,
  )
  return out
}

async function main() {
  if (postgres) await postgres.ensureSeeded(TRACES)
  else {
    await ensureSeeded()
    copyFileSync(seededPath, workPath)
    for (const suffix of ['-wal', '-shm']) rmSync(`${workPath}${suffix}`, { force: true })
  }
  const databaseUrl = postgres ? await postgres.createWork() : workPath
  if (args['no-build'] !== true) execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' })

  const slowMs = 5000
  const rows: Row[] = []
  const fmt = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

  // Floor 1: bare Fastify.
  const floorPort = await freePort()
  const floorServer = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'bench-floor-server.ts')], {
    env: { ...process.env, PORT: String(floorPort) },
    stdio: 'ignore',
  })
  await waitFor(`http://127.0.0.1:${floorPort}/floor`, floorServer)
  const bare = autocannon(`http://127.0.0.1:${floorPort}/floor`, { pid: floorServer.pid })
  floorServer.kill()
  say(`floor: bare Fastify ${fmt(bare.rps)} req/s`)

  // Floor 2: raw batched inserts; floor 3: naive SQL.
  const rawInsert = !wants('ingest')
    ? Number.NaN
    : postgres
      ? await postgres.floorInserts(FLOOR_INSERT_ROWS, syntheticInput)
      : floorInserts()
  if (wants('ingest'))
    say(`floor: raw ${postgres ? 'node-postgres' : 'better-sqlite3'} inserts ${fmt(rawInsert)} rows/s`)

  // The real server.
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const server = spawn(process.execPath, [join(root, 'dist', 'src', 'server.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      INGEST_RATE_LIMIT: '0',
      RATE_LIMIT: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  // However the run ends (a failure included), its server ends with it instead of staying behind on its port.
  process.once('exit', () => server.kill('SIGKILL'))
  await waitFor(`${base}/`, server)
  const created = (await (
    await fetch(`${base}/projects?name=bench-${Date.now()}&environment=production`, { method: 'POST' })
  ).json()) as {
    project: { project_id: string }
    api_key: { key: string }
  }
  const key = created.api_key.key
  const analytics = (await (await fetch(`${base}/analytics`)).json()) as {
    model_breakdown: { key: string }[]
    project_breakdown: { key: string }[]
  }
  const topProject = analytics.project_breakdown[0]?.key ?? created.project.project_id
  const topModel = analytics.model_breakdown[0]?.key ?? 'gpt-4o'
  const sample = (
    (await (await fetch(`${base}/traces?limit=1&project_id=${topProject}`)).json()) as {
      items: { trace_id: string; session_id: string | null; user_id: string | null }[]
    }
  ).items[0]

  // Latency goals are read with one connection (a request's own time, no queueing behind others); throughput
  // with CONNECTIONS, as the bare-Fastify floor is.
  const cpuRatio = (ours: LoadResult) =>
    bare.cpuUs && ours.cpuUs ? ` (${fmt((100 * bare.cpuUs) / ours.cpuUs)}% by CPU per request)` : ''
  const read = (what: string, path: string, goal: string, floorMs?: number) => {
    const lat = autocannon(`${base}${path}`, { connections: 1 })
    const thr = autocannon(`${base}${path}`, { pid: server.pid })
    const errors = lat.errors + thr.errors
    say(`${what}: p50 ${lat.p50} ms p99 ${lat.p99} ms; ${fmt(thr.rps)} req/s${errors ? ` (${errors} errors)` : ''}`)
    rows.push({
      what,
      result: `p50 ${lat.p50} ms · p99 ${lat.p99} ms · ${fmt(thr.rps)} req/s · ${fmt(thr.cpuUs ?? 0)} µs CPU/req${errors ? ` · ${errors} errors` : ''}`,
      floor:
        floorMs !== undefined
          ? `naive SQL ${fmt(floorMs, 1)} ms`
          : `bare Fastify ${fmt(bare.rps)} req/s · ${fmt(bare.cpuUs ?? 0)} µs CPU/req`,
      ratio:
        floorMs !== undefined
          ? `${fmt(floorMs / Math.max(lat.p50, 0.01), 1)}× faster`
          : `${fmt((100 * thr.rps) / bare.rps)}% of floor${cpuRatio(thr)}`,
      goal,
    })
  }
  if (wants('reads')) {
    const naive = postgres ? await postgres.floorNaiveSql(topProject, slowMs) : floorNaiveSql(topProject, slowMs)
    say(`floor: naive SQL analytics ${fmt(naive.analyticsAll, 1)} ms, p95 ${fmt(naive.p95All, 1)} ms`)
    const since = new Date(Date.now() - 3_600_000).toISOString()
    read('GET /traces (no filter)', '/traces', 'p50 ≤ 5 ms')
    read('GET /traces?status=failed', '/traces?status=failed', 'p50 ≤ 5 ms')
    read(`GET /traces?model=${topModel}`, `/traces?model=${encodeURIComponent(topModel)}`, 'p50 ≤ 5 ms')
    read('GET /traces?project_id=…', `/traces?project_id=${topProject}`, 'p50 ≤ 5 ms')
    read('GET /traces?min_latency=5000', '/traces?min_latency=5000', 'p50 ≤ 5 ms')
    read('GET /traces?max_tokens=200', '/traces?max_tokens=200', 'p50 ≤ 5 ms')
    if (sample?.session_id)
      read('GET /traces?session_id=…', `/traces?session_id=${encodeURIComponent(sample.session_id)}`, 'p50 ≤ 5 ms')
    if (sample?.user_id)
      read('GET /traces?user_id=…', `/traces?user_id=${encodeURIComponent(sample.user_id)}`, 'p50 ≤ 5 ms')
    read('GET /traces?since=1h ago', `/traces?since=${since}`, 'p50 ≤ 5 ms')
    read(`GET /traces?offset=${Math.floor(TRACES / 2)}`, `/traces?offset=${Math.floor(TRACES / 2)}`, '—')
    if (sample) read('GET /traces/{id}', `/traces/${sample.trace_id}`, '≥ 60% of floor')
    read('GET /analytics', '/analytics', 'p50 ≤ 20 ms', naive.analyticsAll + naive.p95All)
    read(
      'GET /analytics?project_id=…',
      `/analytics?project_id=${topProject}`,
      'p50 ≤ 20 ms',
      naive.analyticsProject + naive.p95Project,
    )
    read('GET /failures', '/failures', '—')
    const big = await bigTraces(base, key)
    rows.push(big.row)
    read(`GET /traces/{id} (${LIMITS.steps} steps)`, `/traces/${big.id}`, '—')

    // Costs, sorting and deep paging, sessions and users, full-text search.
    read('GET /traces?sort=cost', '/traces?sort=cost', '—')
    read('GET /traces?min_cost=0.01', '/traces?min_cost=0.01', 'p50 ≤ 5 ms')
    const deep = (await (
      await fetch(`${base}/traces?sort=latency&limit=1000&offset=${Math.min(100_000, Math.floor(TRACES / 2))}`)
    ).json()) as { next_cursor: string | null }
    if (deep.next_cursor) {
      read(
        'GET /traces?sort=latency&cursor=(deep)',
        `/traces?sort=latency&cursor=${deep.next_cursor}`,
        'constant per page',
      )
    }
    read('GET /sessions', '/sessions', 'p50 ≤ 10 ms')
    read('GET /users', '/users', 'p50 ≤ 10 ms')
    if (sample?.session_id) {
      read('GET /sessions/{id}', `/sessions/${encodeURIComponent(sample.session_id)}`, 'p50 ≤ 10 ms')
    }
  }
  if (wants('search')) {
    // A rare word (one small-talk prompt of ten, in German) and a common one; the rare one also by cost, whose index
    // holds the German prompts far from its top.
    for (const [label, word, sort] of [
      ['rare', 'können', ''],
      ['common', 'the', ''],
      ['rare, by cost', 'können', '&sort=cost'],
    ] as const) {
      // The light list, as the viewer asks: the 1000-step traces posted above are the newest and hold "the", and whole
      // they would make this row a measure of 50 × 1000 steps of JSON instead of the search.
      read(
        `GET /traces?q=${word}${sort}&limit=50&fields=summary (${label})`,
        `/traces?q=${encodeURIComponent(word)}${sort}&limit=50&fields=summary`,
        'p50 ≤ 50 ms',
        postgres ? await postgres.floorNaiveSearch(word, 50) : floorNaiveSearch(word, 50),
      )
    }
    rows.push(
      await searchFirstAsk(base, postgres ? await postgres.floorNaiveSearch('and', 50) : floorNaiveSearch('and', 50)),
    )
    const storage = postgres ? await postgres.searchStorage() : searchStorage()
    if (storage) {
      rows.push({
        what: 'full-text index on disk',
        result: `${fmt(storage.search / 1e6)} MB`,
        floor: `traces table ${fmt(storage.traces / 1e6)} MB`,
        ratio: `+${fmt((100 * storage.search) / Math.max(storage.traces, 1))}%`,
        goal: '—',
      })
    }
  }

  // Ingest, with /ws clients connected and reading.
  if (wants('ingest')) {
    const listeners = Array.from({ length: 10 }, () => new WebSocket(`${base.replace('http', 'ws')}/ws`))
    await Promise.all(listeners.map((s) => new Promise((r) => s.once('open', r))))
    const headers = ['content-type=application/json', `authorization=Bearer ${key}`]
    // The raw floor runs on one core at 100%: its CPU per row is 1e6 / rows per second.
    const insertCpuRatio = (cpuPerTrace?: number) =>
      cpuPerTrace ? ` (${fmt((100 * (1e6 / rawInsert)) / cpuPerTrace)}% by CPU per trace)` : ''
    const one = autocannon(`${base}/traces`, {
      method: 'POST',
      headers,
      body: JSON.stringify(syntheticInput(1)),
      pid: server.pid,
    })
    rows.push({
      what: 'POST /traces (10 /ws clients)',
      result: `${fmt(one.rps)} traces/s · p50 ${one.p50} ms · p99 ${one.p99} ms${one.errors ? ` · ${one.errors} errors` : ''}`,
      floor: `raw inserts ${fmt(rawInsert)} rows/s`,
      ratio: `${fmt((100 * one.rps) / rawInsert)}% of floor${insertCpuRatio(one.cpuUs)}`,
      goal: '—',
    })
    const batchBody = JSON.stringify({ traces: Array.from({ length: 100 }, (_, i) => syntheticInput(i)) })
    const batch = autocannon(`${base}/traces/batch`, { method: 'POST', headers, body: batchBody, pid: server.pid })
    rows.push({
      what: 'POST /traces/batch ×100 (10 /ws clients)',
      result: `${fmt(batch.rps * 100)} traces/s · p50 ${batch.p50} ms · p99 ${batch.p99} ms${batch.errors ? ` · ${batch.errors} errors` : ''}`,
      floor: `raw inserts ${fmt(rawInsert)} rows/s`,
      ratio: `${fmt((100 * batch.rps * 100) / rawInsert)}% of floor${insertCpuRatio(batch.cpuUs === undefined ? undefined : batch.cpuUs / 100)}`,
      goal: '≥ 60% of floor',
    })
    rows.push(concurrentSingleIngest(base, headers, server.pid, batch.rps * 100))
    rows.push(await otlpIngest(base, server.pid!, rawInsert))
    say(`ingest: ${fmt(one.rps)} traces/s single, ${fmt(batch.rps * 100)} traces/s batched`)
    for (const s of listeners) s.terminate()
  }

  if (wants('fanout')) {
    const fan = await fanout(base, key)
    const expected = FANOUT_EVENTS * fan.connected
    rows.push({
      what: `trace.created → ${fan.connected} sockets`,
      result: `from send p50 ${fmt(percentile(fan.fromSend, 50), 1)} ms · p99 ${fmt(percentile(fan.fromSend, 99), 1)} ms; after ack p99 ${fmt(percentile(fan.fromAck, 99), 1)} ms · ${fmt(fan.fromSend.length)}/${fmt(expected)} received`,
      floor: '—',
      ratio: '—',
      goal: 'p99 ≤ 50 ms',
    })
    say(
      `fan-out: p99 ${fmt(percentile(fan.fromSend, 99), 1)} ms from send, ${fan.fromSend.length}/${expected} received`,
    )
  }

  const rss = peakRssMb(server.pid!)
  rows.push({ what: 'server peak RSS', result: `${fmt(rss)} MB`, floor: '—', ratio: '—', goal: '≤ 256 MB' })

  // The viewer, in headless Chromium, on the same database. A failure there is reported, and the run goes on.
  if (wants('viewer'))
    try {
      rows.push(...(await benchViewer(base, key, say)))
    } catch (err) {
      say(`viewer: not measured: ${(err as Error).message}`)
      rows.push({
        what: 'viewer',
        result: `not measured: ${(err as Error).message}`,
        floor: '—',
        ratio: '—',
        goal: '—',
      })
    }

  if (wants('burst')) {
    const burst = await burstFanout(base, key, server.pid!)
    const everyEvent = burst.delivered.complete === burst.ready
    rows.push({
      what: `burst: ${fmt(BURST_TRACES)} traces in one batch → ${fmt(burst.ready)} sockets`,
      result:
        `batch answered in ${fmt(burst.ackMs)} ms; all delivered in ${fmt(burst.delivered.ms)} ms; ` +
        `${fmt(burst.delivered.complete)}/${fmt(burst.ready)} sockets got all ${fmt(BURST_TRACES)} ` +
        `(${fmt(burst.delivered.received)} frames${burst.delivered.dropped ? `, ${burst.delivered.dropped} dropped` : ''}); ` +
        `/health meanwhile: ${fmt(burst.health.requests)} answers, longest ${fmt(burst.health.maxMs)} ms, p99 ${fmt(burst.health.p99Ms)} ms`,
      floor: '—',
      ratio: everyEvent ? 'every socket, every event' : 'MISSED: some sockets lacked events',
      goal: '/health ≤ 100 ms; every event to every socket',
    })
    rows.push({
      what: 'burst: server memory',
      result:
        `RSS ${fmt(burst.before)} MB before, ${fmt(burst.peak)} MB after delivery, ${fmt(burst.back)} MB ` +
        `${fmt(burst.backMs / 1000, 1)} s after the sockets closed`,
      floor: `before: ${fmt(burst.before)} MB`,
      ratio: `+${fmt(burst.back - burst.before)} MB`,
      goal: 'within 64 MB of before, within 10 s',
    })
    say(
      `burst: ${burst.delivered.complete}/${burst.ready} sockets complete, /health max ${burst.health.maxMs} ms, ` +
        `RSS ${fmt(burst.before)} → ${fmt(burst.peak)} → ${fmt(burst.back)} MB`,
    )
  }
  // As with the viewer: a failure there (an export cut short, say) is reported, and the run goes on to its table.
  if (wants('lifecycle'))
    try {
      rows.push(...(await dataLifecycleRows(base, server.pid!)))
    } catch (err) {
      say(`export and deletion: not measured: ${(err as Error).message}`)
      rows.push({
        what: 'export and deletion',
        result: `not measured: ${(err as Error).message}`,
        floor: '—',
        ratio: '—',
        goal: '—',
      })
    }
  if (server.exitCode === null && server.signalCode === null) {
    server.kill('SIGTERM')
    await new Promise((r) => server.once('exit', r))
  } else {
    say(`the server had ended (${server.exitCode ?? server.signalCode}) before the end of the run`)
  }

  const date = new Date().toISOString().slice(0, 10)
  const header = [
    `# Loupe benchmark, ${date}`,
    '',
    `${postgres ? 'PostgreSQL' : 'SQLite'}; ${TRACES.toLocaleString('en-US')} traces stored; ${DURATION} s per load run (autocannon, separate process): p50/p99 with 1 connection, req/s with ${CONNECTIONS};`,
    `Node ${process.version}, ${(await import('node:os')).cpus().length} cores. Ratios are to floors measured in this same run.`,
    ...(only.length < GROUPS.length ? [`Only these groups of rows were measured: ${only.join(', ')}.`] : []),
    '',
    '| measurement | result | floor (same run) | ratio | goal |',
    '|---|---|---|---|---|',
  ]
  const table = [
    ...header,
    ...rows.map((r) => `| ${r.what} | ${r.result} | ${r.floor} | ${r.ratio} | ${r.goal} |`),
  ].join('\n')
  say(`\n${table}\n`)
  const out =
    args.out ??
    (tiny
      ? join(tmpdir(), `loupe-bench-tiny-${date}${postgres ? '-postgres' : ''}.md`)
      : join(root, 'bench', 'results', `${date}${postgres ? '-postgres' : ''}.md`))
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, `${table}\n`)
  say(`written to ${out}`)
  if (postgres) await postgres.dropWork()
  rmSync(workPath, { force: true })
  for (const suffix of ['-wal', '-shm']) rmSync(`${workPath}${suffix}`, { force: true })
}

await main()
