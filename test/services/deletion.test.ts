// The pace of a large deletion: batches sized from how long the last one held the store, with a budget that depends
// on whether the store's queries run on the event loop (SQLite: every request waits for a batch) or not (PostgreSQL:
// reads go on from their snapshots). A store stand-in whose every batch takes the same time, whatever its size.
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import type { EventHub } from '../../src/events/hub.js'
import { createDeletionService, DELETE_BATCH } from '../../src/services/deletion.js'
import type { DeletedTrace, DeleteSelection, Store } from '../../src/store/types.js'

/** A store of `traces` traces in one project whose every batch takes `batchMs`; the limits asked, in order. */
function timedStore(blocksEventLoop: boolean, traces: number, batchMs: number) {
  let left = traces
  const limits: number[] = []
  const store = {
    blocksEventLoop,
    traces: {
      async delete({ limit }: DeleteSelection): Promise<DeletedTrace[]> {
        limits.push(limit)
        await sleep(batchMs)
        const n = Math.min(limit, left)
        left -= n
        return Array.from({ length: n }, (_, i) => ({ trace_id: `t${left + i}`, project_id: 'p' }) as DeletedTrace)
      },
    },
    async reclaimSpace() {
      return false
    },
  } as unknown as Store
  return { store, limits, left: () => left }
}

const hub = { publishDeleted() {} } as unknown as EventHub

t.test('a store off the event loop gets batches up to the largest, all traces deleted', async (t) => {
  const { store, limits, left } = timedStore(false, 2500, 20)
  // Ten batches reach the largest (10, 20, 40, … 500) when each takes its 20 ms; on a busy machine a sleep takes longer
  // and sizes grow slower. Forty bound the test should the sizes never grow, and still leave room for a slow machine.
  const deleted = await createDeletionService({ store, hub, now: Date.now }).deleteMatching(
    {},
    { shouldStop: () => limits.length >= 40 },
  )
  t.equal(left(), 0, `batch sizes: ${limits.join(', ')}`)
  t.equal(deleted.get('p'), 2500)
  t.equal(Math.max(...limits), DELETE_BATCH, `batch sizes: ${limits.join(', ')}`)
})

t.test('a store on the event loop keeps its batches as short as the budget allows', async (t) => {
  const { store, limits, left } = timedStore(true, 60, 20)
  const deleted = await createDeletionService({ store, hub, now: Date.now }).deleteMatching({})
  t.equal(left(), 0)
  t.equal(deleted.get('p'), 60)
  // 20 ms a batch is over the 15 ms budget: the first batch (10) is the largest, the next ones shrink.
  t.equal(Math.max(...limits), limits[0], `batch sizes: ${limits.join(', ')}`)
  t.ok(limits.at(-2)! < limits[0]!, `batch sizes: ${limits.join(', ')}`)
})
