// The bench's tools: its own fetch, free ports, waiting for a server, autocannon in a process of its own, a process's
// CPU time and memory, the helper processes of scripts/bench-fanout-peers.ts (peers and probes), statistics, and the
// synthetic traces a client sends.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { request } from 'node:http'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { mulberry32 } from '../src/seed/seed.js'
import { CONNECTIONS, DURATION, root } from './bench-options.js'

/**
 * fetch for the bench's own requests. autocannon runs synchronously and holds the event loop for whole seconds, so a
 * keep-alive socket the server closed meanwhile still looks idle in the pool: a turn of the loop first lets its close
 * be seen, and a GET whose socket was closed under it anyway is sent once more, as any HTTP client does.
 */
export async function fetch(input: string, init?: RequestInit): Promise<Response> {
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

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

export async function waitFor(url: string, child: ChildProcess, seconds = 120): Promise<void> {
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

/**
 * A POST of JSON (as the key's, when one is given), its answer parsed: what the bench's fixtures send. Anything but a
 * success stops the bench. A kept-alive connection the server closed meanwhile fails before an answer: sent once more.
 */
export async function postJson<T = Record<string, unknown>>(url: string, body: unknown, key?: string): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (key !== undefined) headers.authorization = `Bearer ${key}`
  const send = () => fetch(url, { method: 'POST', headers, body: JSON.stringify(body) })
  const res = await send().catch(send)
  const text = await res.text()
  if (res.status >= 300) throw new Error(`POST ${url} answered ${res.status}: ${text}`)
  return (text === '' ? null : JSON.parse(text)) as T
}

export interface LoadResult {
  /**
   * 2xx answers a second. Other answers are counted in `errors`, not here: a server shedding load answers 503 at once,
   * and counting those would show it faster the more it refuses.
   */
  rps: number
  p50: number
  p99: number
  errors: number
  /** Server CPU time per request (µs), when the server's pid was given: robust where req/s is not (a shared box). */
  cpuUs?: number
}

/** user + system CPU time of a process so far, in µs. */
export function cpuTimeUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  const ticks = Number(fields[11]) + Number(fields[12])
  return (ticks * 1_000_000) / 100
}

/** One autocannon run, in a separate process so that the load generator does not share the server's core time. */
export function autocannon(
  url: string,
  options: {
    method?: string
    body?: string
    headers?: string[]
    connections?: number
    pid?: number
    /** Seconds (default: --duration). */
    duration?: number
  } = {},
): LoadResult {
  const cpuBefore = options.pid ? cpuTimeUs(options.pid) : 0
  const cli = join(root, 'node_modules', 'autocannon', 'autocannon.js')
  const argv = [cli, '-j', '-c', String(options.connections ?? CONNECTIONS), '-d', String(options.duration ?? DURATION)]
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
    rps: r['2xx'] / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: (r.errors ?? 0) + (r.non2xx ?? 0) + (r.timeouts ?? 0),
    cpuUs: options.pid && r.requests.total > 0 ? (cpuTimeUs(options.pid) - cpuBefore) / r.requests.total : undefined,
  }
}

export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0)
  return kb / 1024
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
export const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0
}
/** The largest, 0 for none: a loop, since a run of minutes gets more values than a call has room for arguments. */
export const longest = (xs: readonly number[]) => xs.reduce((a, b) => Math.max(a, b), 0)
export function timeMs(fn: () => unknown, runs = 3): number {
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
export function syntheticInput(i: number) {
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

/** The resident set of a process now, in MB. */
export function rssMb(pid: number): number {
  // A server that is gone has no resident set (NaN shows in the table), and a sampler must not end the run.
  if (!existsSync(`/proc/${pid}/status`)) return Number.NaN
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}

/** A helper process (scripts/bench-fanout-peers.ts) whose stdout is JSON lines; a line on its stdin ends it. */
export function helperProcess(args: string[]) {
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

/** A request answered with 200 however long the answer takes; resolves with its body. */
export function untimedRequest(method: string, url: string): Promise<string> {
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
export interface ProbeResult {
  /** Each answer's time, in order. */
  ms: number[]
  failed: number
  firstFailure: string
}

/**
 * GET `url` over and over from a probe process, `gapMs` apart, while `during` runs; each answer's time. In its own
 * process so that no collection of the benchmark's (its heap holds about 50 MB; 8–46 ms pauses were seen) counts.
 */
export async function readWhile<T>(
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
