// The bench's rows for the largest traces the contract allows (posted, then read back) and for a search's first ask.
import { performance } from 'node:perf_hooks'
import { LIMITS } from '../schemas/index.js'
import { fetch, percentile, syntheticInput } from './bench-harness.js'
import { say, tiny } from './bench-options.js'
import type { BenchRow } from './bench-viewer.js'

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
export async function bigTraces(base: string, key: string) {
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

/**
 * A common word searched for the first time: its count is not kept yet, so this is what a new search costs (the
 * search rows above repeat one URL, whose count is then kept). The median of a few words not asked before, beside
 * the naive LIKE floor (`floorMs`) of one of them.
 */
export async function searchFirstAsk(base: string, floorMs: number): Promise<BenchRow> {
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
