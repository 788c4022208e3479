// The bench's data lifecycle rows: the whole NDJSON export with the server's memory sampled, and a deletion of the
// oldest tenth while /analytics is read.
import { performance } from 'node:perf_hooks'
import { fetch, longest, percentile, readWhile, rssMb, untimedRequest } from './bench-harness.js'
import { say } from './bench-options.js'
import type { BenchRow } from './bench-viewer.js'

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

/** Export and deletion on the seeded server: memory while exporting everything, reads while deleting a tenth. */
export async function dataLifecycleRows(base: string, pid: number): Promise<BenchRow[]> {
  const out: BenchRow[] = []
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
