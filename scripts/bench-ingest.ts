// The bench's ingest and live rows: trace.created to many sockets, a burst of traces to thousands of sockets while
// /health is probed, single traces from 50 concurrent clients, and OTLP from the real OpenTelemetry exporter.
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import WebSocket from 'ws'
import {
  autocannon,
  cpuTimeUs,
  fetch,
  helperProcess,
  longest,
  percentile,
  readWhile,
  rssMb,
  syntheticInput,
} from './bench-harness.js'
import { BURST_SOCKETS, BURST_TRACES, FANOUT_EVENTS, FANOUT_SOCKETS, OTLP_SPANS, root, say } from './bench-options.js'

export async function fanout(
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

/**
 * A burst: BURST_TRACES traces in one batch to BURST_SOCKETS sockets, with /health probed from another process the
 * whole time. The ingest answer must not wait for the broadcast, nor must /health; every socket must receive every
 * event; and once the sockets close, the server must give the memory back.
 */
export async function burstFanout(base: string, key: string, pid: number) {
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
export function concurrentSingleIngest(
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

/**
 * OTLP ingest from the real OpenTelemetry protobuf exporter (scripts/bench-otlp-client.ts: exports of 512 spans from
 * 4 concurrent exporters, GenAI agent runs of 8 spans), into a project of its own; then every trace is waited for
 * (stored OTLP_ROOT_GRACE_MS after its root) and counted with its steps: nothing may be lost. The
 * server's CPU time per span is the robust figure on a shared machine: 1e6 / it is what one core would take.
 */
export async function otlpIngest(base: string, pid: number, rawInsertRowsPerSecond: number) {
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
