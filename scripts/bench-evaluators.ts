// npm run bench's evaluator rows, each on servers of their own (fresh SQLite files, a fake judge answering in 200 ms):
// - evaluations per second through the judge, at the default concurrency and at 32, beside what that concurrency
//   allows at most (concurrency / 200 ms);
// - POST /traces/batch with every trace sampled for a judge, beside the same with no rule: pairs of runs of at least 3 s,
//   back to back and in turn which goes first, the ratio of each pair, and the median of those ratios with their spread
//   (this machine's speed wanders by ±15% between runs of the same server, far more than the difference measured: only
//   a ratio taken within a pair, over several pairs, reads it); only 2xx answers counted (a server shedding load
//   answers 503 at once);
// - the CPU of one deterministic check on one trace, in this process, beside serializing the trace (a floor any
//   per-trace work pays).
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DeterministicCheck, Trace } from '../schemas/index.js'
import { createSchemaCompiler, runCheck } from '../src/evaluators/checks.js'
import { autocannon, fetch, freePort, median, syntheticInput, waitFor } from './bench-harness.js'
import { DURATION, root, tiny } from './bench-options.js'
import type { BenchRow } from './bench-viewer.js'

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
const JUDGE_MS = 200
/** Each ingest run's length: a second is a few dozen requests, too few to compare two sides within 5%. */
const INGEST_SECONDS = Math.max(3, DURATION)
/** Pairs of ingest runs, one a side (in tiny mode, enough to keep the row working). */
const INGEST_ROUNDS = tiny ? 3 : 9

/** The fake judge, in a process of its own; resolves to its base URL. */
async function startJudge(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'bench-judge.ts')], {
    env: { ...process.env, JUDGE_DELAY_MS: String(JUDGE_MS) },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  process.once('exit', () => child.kill('SIGKILL'))
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()))
    child.once('exit', (code) => reject(new Error(`the bench judge exited with ${code}`)))
  })
  return { url, child }
}

interface Server {
  base: string
  child: ChildProcess
  key: string
  stop(): void
}

/** A Loupe server on a fresh SQLite file, with these settings; a project and its key made. */
async function startServer(env: Record<string, string>): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-bench-eval-'))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, [join(root, 'dist', 'src', 'server.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: join(dir, 'loupe.db'),
      LOG_LEVEL: 'warn',
      INGEST_RATE_LIMIT: '0',
      RATE_LIMIT: '0',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  process.once('exit', () => child.kill('SIGKILL'))
  await waitFor(`${base}/`, child)
  const created = (await (
    await fetch(`${base}/projects?name=bench&environment=production`, { method: 'POST' })
  ).json()) as {
    api_key: { key: string }
  }
  return {
    base,
    child,
    key: created.api_key.key,
    stop() {
      child.kill('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

const judgeRule = {
  name: 'bench-judge',
  score_name: 'helpfulness',
  kind: 'llm_judge',
  config: { template: 'Rate: {{prompt}} → {{response}}' },
}

async function addRule(server: Server, rule: object): Promise<string> {
  const res = await fetch(`${server.base}/evaluators`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(rule),
  })
  return ((await res.json()) as { evaluator_id: string }).evaluator_id
}

/** Stores `n` traces in batches of 100. */
async function store(server: Server, n: number) {
  for (let i = 0; i < n; i += 100) {
    await fetch(`${server.base}/traces/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.key}` },
      body: JSON.stringify({
        traces: Array.from({ length: Math.min(100, n - i) }, (_, j) => syntheticInput(i + j)),
      }),
    })
  }
}

/** Evaluations a second with this concurrency: `n` traces stored at once, timed until the rule has judged them all. */
async function evaluationsPerSecond(judge: string, concurrency: number | null, n: number): Promise<number> {
  const server = await startServer({
    LOUPE_JUDGE_BASE_URL: judge,
    LOUPE_JUDGE_MODEL: 'gpt-4o-mini',
    LOUPE_EVALUATOR_JUDGE_PER_MINUTE: '1000000',
    ...(concurrency === null ? {} : { LOUPE_EVALUATOR_CONCURRENCY: String(concurrency) }),
  })
  try {
    const id = await addRule(server, judgeRule)
    const started = performance.now()
    await store(server, n)
    for (;;) {
      const rule = (await (await fetch(`${server.base}/evaluators/${id}`)).json()) as { stats: { evaluated: number } }
      if (rule.stats.evaluated >= n) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return n / ((performance.now() - started) / 1000)
  } finally {
    server.stop()
  }
}

/** POST /traces/batch ×100 traces a second on a fresh server, with every trace due for a judge or with no rule. */
async function ingest(judge: string, judged: boolean): Promise<number> {
  const server = await startServer({ LOUPE_JUDGE_BASE_URL: judge, LOUPE_JUDGE_MODEL: 'gpt-4o-mini' })
  try {
    if (judged) await addRule(server, judgeRule)
    // Warmed up first, so that neither side pays the server's first compilations.
    await store(server, 500)
    const body = JSON.stringify({ traces: Array.from({ length: 100 }, (_, i) => syntheticInput(i)) })
    const headers = ['content-type=application/json', `authorization=Bearer ${server.key}`]
    const load = autocannon(`${server.base}/traces/batch`, { method: 'POST', headers, body, duration: INGEST_SECONDS })
    return load.rps * 100
  } finally {
    server.stop()
  }
}

/** µs of CPU per call of `work`, over enough calls to read. */
function cpuPerCall(work: (i: number) => unknown, calls: number): number {
  for (let i = 0; i < Math.min(1000, calls); i++) work(i)
  const before = process.cpuUsage()
  for (let i = 0; i < calls; i++) work(i)
  const used = process.cpuUsage(before)
  return (used.user + used.system) / calls
}

/** A stored trace of the bench's synthetic shape, whole. */
function traceOf(i: number): Trace {
  const input = syntheticInput(i)
  return {
    trace_id: `bench-${i}`,
    project_id: 'bench',
    environment: 'production',
    name: input.name,
    model: input.model,
    prompt: input.prompt,
    response: `{"summary": "${input.response}", "bullets": ["revenue", "costs", "outlook"]}`,
    status: 'success',
    error: null,
    latency: 420,
    prompt_tokens: input.prompt_tokens,
    completion_tokens: input.completion_tokens,
    token_count: input.prompt_tokens + input.completion_tokens,
    cost: 0.0004,
    retry_count: 0,
    session_id: input.session_id,
    user_id: input.user_id,
    tags: input.tags,
    metadata: { customer: `c-${i % 50}` },
    created_at: new Date(Date.UTC(2026, 10, 28) + i).toISOString(),
    steps: input.steps.map((s, index) => ({
      index,
      parent_index: null,
      type: s.type,
      name: s.name,
      tool: s.tool ?? null,
      input: { query: `q${i}` },
      output: { text: 'result text of the step' },
      status: s.status,
      error: null,
      latency: s.latency_ms,
      started_at: null,
      metadata: {},
      tokens: null,
      cost: null,
    })),
  } as unknown as Trace
}

const CHECKS: DeterministicCheck[] = [
  { kind: 'regex', config: { field: 'response', pattern: '\\brevenue\\b', expect: 'match', flags: 'i' } },
  { kind: 'contains', config: { field: 'response', words: ['refund', 'apolog'], mode: 'none' } },
  { kind: 'json', config: { field: 'response' } },
  {
    kind: 'json_schema',
    config: {
      field: 'response',
      schema: { type: 'object', required: ['summary'], properties: { bullets: { type: 'array' } } },
    },
  },
  { kind: 'length', config: { field: 'response', max: 2000 } },
  { kind: 'latency', config: { max_ms: 1000 } },
  { kind: 'cost', config: { max_usd: 0.01 } },
  { kind: 'pii', config: { field: 'response' } },
] as DeterministicCheck[]

export async function evaluatorRows(say: (line: string) => void): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  const judge = await startJudge()
  try {
    const n = tiny ? 100 : 1000
    for (const concurrency of [null, 32]) {
      const perSecond = await evaluationsPerSecond(judge.url, concurrency, concurrency === null ? n / 4 : n)
      const slots = concurrency ?? 4
      const ideal = slots / (JUDGE_MS / 1000)
      rows.push({
        what: `evaluations/s, judge answering in ${JUDGE_MS} ms, concurrency ${concurrency ?? '4 (default)'}`,
        result: `${fmt(perSecond, 1)} evaluations/s`,
        floor: `${fmt(ideal)} /s (${slots} at once, ${JUDGE_MS} ms each)`,
        ratio: `${fmt((100 * perSecond) / ideal)}% of floor`,
        goal: '—',
      })
      say(`evaluators: ${fmt(perSecond, 1)} evaluations/s at concurrency ${slots}`)
    }

    // In pairs, back to back, each side first in turn: a machine busy during one run does not decide alone.
    const off: number[] = []
    const on: number[] = []
    for (let round = 0; round < INGEST_ROUNDS; round++) {
      if (round % 2 === 0) off.push(await ingest(judge.url, false))
      on.push(await ingest(judge.url, true))
      if (round % 2 === 1) off.push(await ingest(judge.url, false))
    }
    const ratios = on.map((x, i) => x / off[i]!).sort((a, b) => a - b)
    rows.push({
      what: 'POST /traces/batch ×100, every trace sampled for a judge',
      result: `${fmt(median(on))} traces/s (median of ${INGEST_ROUNDS} runs)`,
      floor: `${fmt(median(off))} traces/s with no evaluator (same run, in pairs)`,
      ratio: `${fmt(100 * median(ratios))}% of floor (median of ${INGEST_ROUNDS} pairs; ${fmt(100 * ratios[0]!)}–${fmt(100 * ratios.at(-1)!)}%)`,
      goal: '≥ 95% of floor',
    })
    say(`evaluators: ingest ${fmt(median(on))} traces/s judged, ${fmt(median(off))} without (medians)`)
    say(
      `evaluators: ingest runs judged ${on.map((x) => fmt(x)).join(', ')}; without ${off.map((x) => fmt(x)).join(', ')}`,
    )
  } finally {
    judge.child.kill('SIGKILL')
  }

  const traces = Array.from({ length: 200 }, (_, i) => traceOf(i))
  const compile = createSchemaCompiler()
  const calls = tiny ? 20_000 : 200_000
  const floor = cpuPerCall((i) => JSON.stringify(traces[i % traces.length]), calls)
  for (const check of CHECKS) {
    const us = cpuPerCall((i) => runCheck(check, traces[i % traces.length]!, compile), calls)
    rows.push({
      what: `deterministic check ${check.kind}, CPU per trace`,
      result: `${fmt(us, 2)} µs`,
      floor: `JSON.stringify of the trace ${fmt(floor, 2)} µs`,
      ratio: `${fmt(us / floor, 2)}× floor`,
      goal: '≤ 50 µs',
    })
  }
  say('evaluators: deterministic checks measured')
  return rows
}
