// The bench's row for an annotation queue: POST /annotation-queues/{id}/next over the largest project's traces, as
// annotators walk it — each asks for the next trace (held for them) and marks it done, so every ask passes over the
// traces done before it, oldest first.
import { performance } from 'node:perf_hooks'
import { percentile, postJson } from './bench-harness.js'
import { say, tiny } from './bench-options.js'
import type { BenchRow } from './bench-viewer.js'

const post = (url: string, body: unknown) => postJson<unknown>(url, body)
/** `next` then `done`, a few hundred times by a few annotators: the row of the asks' timings. */
export async function annotationNext(base: string, projectId: string, traces: number): Promise<BenchRow> {
  const name = `bench_${Date.now()}`
  await post(`${base}/score-configs`, { name, data_type: 'boolean' })
  const queue = (await post(`${base}/annotation-queues`, { name, project_id: projectId, score_names: [name] })) as {
    queue_id: string
    progress: { total: number }
  }
  const runs = tiny ? 40 : 300
  const annotators = ['ana', 'bob', 'cy', 'dee']
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const annotator = annotators[i % annotators.length]!
    const start = performance.now()
    const item = (await post(`${base}/annotation-queues/${queue.queue_id}/next`, { annotator })) as {
      trace_id: string
    } | null
    times.push(performance.now() - start)
    if (item === null) break
    await post(`${base}/annotation-queues/${queue.queue_id}/items/${encodeURIComponent(item.trace_id)}/done`, {
      annotator,
    })
  }
  const p50 = percentile(times, 50)
  say(`POST /annotation-queues/{id}/next: p50 ${p50.toFixed(1)} ms over a queue of ${queue.progress.total} traces`)
  return {
    what: `POST /annotation-queues/{id}/next (queue of ${queue.progress.total.toLocaleString('en-US')} of ${traces.toLocaleString('en-US')} traces)`,
    result: `p50 ${p50.toFixed(1)} ms · p99 ${percentile(times, 99).toFixed(1)} ms (${times.length} asks, each after the previous ones were done)`,
    floor: '—',
    ratio: '—',
    goal: 'p50 ≤ 50 ms',
  }
}
