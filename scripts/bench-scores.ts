// npm run bench's scores rows: POST /scores/batch beside POST /traces/batch in the same run, then as many scores as
// traces stored (one a trace, through the batch door), and the reads they feed: /analytics with scores, the list
// filtered and ordered by a score, and the next item of an annotation queue over traces that all carry a score.
import { annotationNext } from './bench-annotation.js'
import { autocannon, fetch, syntheticInput } from './bench-harness.js'
import { TRACES } from './bench-options.js'
import type { BenchRow } from './bench-viewer.js'

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

/** A score of a trace, without an id: each send stores new scores. */
const scoreOf = (traceId: string, i: number) => ({
  trace_id: traceId,
  name: 'helpfulness',
  value: ((i * 7919) % 1000) / 1000,
  source: 'evaluator',
})

/** Every stored trace's id, newest first, a page of 1000 at a time (by cursor). */
async function traceIds(base: string, headers: Record<string, string>, limit: number): Promise<string[]> {
  const ids: string[] = []
  let cursor: string | null = null
  do {
    const page = (await (
      await fetch(`${base}/traces?fields=summary&limit=1000${cursor ? `&cursor=${cursor}` : ''}`, { headers })
    ).json()) as { items: { trace_id: string }[]; next_cursor: string | null }
    ids.push(...page.items.map((t) => t.trace_id))
    cursor = page.next_cursor
  } while (cursor && ids.length < limit)
  return ids.slice(0, limit)
}

/** How many times a batch refused for the moment (429, 503: the server shedding load) is sent again. */
const ATTEMPTS = 20

/**
 * Sends one batch of scores as a client should: again, after the Retry-After it is told, while the server sheds load
 * (an overloaded machine's event loop lags); how many it accepted. Anything else refused stops the bench.
 */
async function sendScores(base: string, body: string, say: (line: string) => void): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${base}/scores/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    const text = await res.text()
    if (res.ok) return (JSON.parse(text) as { accepted: number }).accepted
    if ((res.status !== 429 && res.status !== 503) || attempt === ATTEMPTS) {
      throw new Error(`POST /scores/batch answered ${res.status}: ${text.slice(0, 300)}`)
    }
    if (attempt === 1) say(`scores: a batch answered ${res.status}, sent again after its Retry-After`)
    await new Promise((resolve) => setTimeout(resolve, 1000 * Number(res.headers.get('retry-after') ?? 1)))
  }
}

/**
 * The scores rows. `read` measures a GET as every read row is measured (p50 with one connection, req/s with many);
 * the annotation queue walks `projectId`'s traces.
 */
export async function scoreRows(
  base: string,
  key: string,
  projectId: string,
  serverPid: number,
  read: (what: string, path: string, goal: string) => void,
  say: (line: string) => void,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  const auth = { authorization: `Bearer ${key}` }
  const headers = ['content-type=application/json', `authorization=Bearer ${key}`]
  // The key's own traces: the batch path measured here, then scored.
  const traceBody = JSON.stringify({ traces: Array.from({ length: 100 }, (_, i) => syntheticInput(i)) })
  const traces = autocannon(`${base}/traces/batch`, { method: 'POST', headers, body: traceBody, pid: serverPid })
  const own = await traceIds(base, auth, 100)
  const scoreBody = JSON.stringify({ scores: own.map((id, i) => scoreOf(id, i)) })
  const scores = autocannon(`${base}/scores/batch`, { method: 'POST', headers, body: scoreBody, pid: serverPid })
  const tracesPerSecond = traces.rps * 100
  const scoresPerSecond = scores.rps * own.length
  rows.push({
    what: `POST /scores/batch ×${own.length}`,
    result: `${fmt(scoresPerSecond)} scores/s · p50 ${scores.p50} ms · p99 ${scores.p99} ms${scores.errors ? ` · ${scores.errors} errors` : ''}`,
    floor: `POST /traces/batch ×100 ${fmt(tracesPerSecond)} traces/s (same run)`,
    ratio: `${fmt(scoresPerSecond / Math.max(tracesPerSecond, 1), 2)}× the trace path`,
    goal: '≥ 0.5× the trace path',
  })
  say(`scores: ${fmt(scoresPerSecond)} scores/s batched beside ${fmt(tracesPerSecond)} traces/s`)

  // As many scores as traces: one a trace, across every stored trace (the admin reads every project's).
  const started = performance.now()
  const all = await traceIds(base, {}, TRACES)
  let stored = 0
  const sends: Promise<void>[] = []
  const CONCURRENT = 4
  for (let i = 0; i < all.length; i += 1000) {
    const body = JSON.stringify({ scores: all.slice(i, i + 1000).map((id, j) => scoreOf(id, i + j)) })
    sends.push(
      (async () => {
        // Read `stored` only once the answer is in: `stored += await …` would add to the value before the wait.
        const accepted = await sendScores(base, body, say)
        stored += accepted
      })(),
    )
    if (sends.length >= CONCURRENT) await sends.shift()
  }
  await Promise.all(sends)
  const seconds = (performance.now() - started) / 1000
  say(`scores: ${fmt(stored)} stored in ${fmt(seconds, 1)} s`)
  rows.push({
    what: `${fmt(stored)} scores stored (one a trace, batches of 1000)`,
    result: `${fmt(seconds, 1)} s (${fmt(stored / seconds)} scores/s, the ids read included)`,
    floor: '—',
    ratio: '—',
    goal: '—',
  })
  read(`GET /analytics (${fmt(stored)} scores)`, '/analytics', 'p50 ≤ 20 ms')
  read(
    'GET /traces?score_name=helpfulness&max_score=0.1',
    '/traces?score_name=helpfulness&max_score=0.1',
    'p50 ≤ 10 ms',
  )
  read('GET /traces?sort=score:helpfulness&fields=summary', '/traces?sort=score:helpfulness&fields=summary', '—')
  rows.push(await annotationNext(base, projectId, TRACES))
  return rows
}
