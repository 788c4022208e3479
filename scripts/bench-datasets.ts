// The bench's row for datasets: the largest project's newest traces made into a dataset's items by a filter
// (POST /datasets/{id}/items/from-traces), 10,000 at once — the goal is ≤ 5 s at 1M traces — then the same again,
// where every trace is already an item and is skipped.
import { performance } from 'node:perf_hooks'
import { DATASET_LIMITS } from '../schemas/index.js'
import { postJson as post } from './bench-harness.js'
import { say, tiny } from './bench-options.js'
import type { BenchRow } from './bench-viewer.js'

export async function datasetRows(base: string, projectId: string, traces: number): Promise<BenchRow[]> {
  const limit = tiny ? 1000 : DATASET_LIMITS.fromTraces
  const dataset = await post(`${base}/datasets`, { name: `bench-${Date.now()}`, project_id: projectId })
  const url = `${base}/datasets/${dataset.dataset_id}/items/from-traces`
  const timed = async () => {
    const start = performance.now()
    const answer = await post(url, { filter: {}, limit })
    return { ms: performance.now() - start, answer }
  }
  const first = await timed()
  const again = await timed()
  say(`from-traces: ${JSON.stringify(first.answer)} in ${first.ms.toFixed(0)} ms; again ${again.ms.toFixed(0)} ms`)
  const of = `of ${traces.toLocaleString('en-US')} traces`
  return [
    {
      what: `POST /datasets/{id}/items/from-traces, filter, ${limit.toLocaleString('en-US')} traces ${of}`,
      result: `${first.ms.toFixed(0)} ms (${first.answer.added} added)`,
      floor: '—',
      ratio: '—',
      goal: '≤ 5 s',
    },
    {
      what: `the same again (every trace already an item: skipped)`,
      result: `${again.ms.toFixed(0)} ms (${again.answer.skipped} skipped)`,
      floor: '—',
      ratio: '—',
      goal: '≤ 5 s',
    },
  ]
}
