// boundHeapGrowth: set for the process unless node was started with a growing factor of its own.
import t from 'tap'
import { boundHeapGrowth } from '../../src/lib/heap.js'

t.test('sets the factor when node was given none', async (t) => {
  t.equal(boundHeapGrowth([]), true)
  t.equal(boundHeapGrowth(['--enable-source-maps'], '--max-old-space-size=4096'), true)
})

t.test("keeps the operator's factor, from the command line or NODE_OPTIONS", async (t) => {
  t.equal(boundHeapGrowth(['--heap-growing-percent=80']), false)
  t.equal(boundHeapGrowth(['--heap_growing_percent=80']), false)
  t.equal(boundHeapGrowth([], '--max-old-space-size=4096 --heap-growing-percent=20'), false)
})
