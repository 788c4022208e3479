// The waterfall: the step tree in display order, each step on the trace's time axis, and j/k selection.
import t from 'tap'
import type { Step } from '../../schemas/index.js'
import { buildWaterfall, moveSelection } from '../../web/src/features/traces/waterfall.js'
import { step } from './fixtures.js'

const T0 = Date.parse('2026-11-21T13:45:00.000Z')
const at = (ms: number) => new Date(T0 + ms).toISOString()

const trace = (steps: Step[], latency = 100) => ({ created_at: at(0), latency, steps })
const order = (w: ReturnType<typeof buildWaterfall>) => w.rows.map((r) => [r.step.index, r.depth])

t.test('rows follow the tree: each parent, then its children by index, at their depth', async (t) => {
  const w = buildWaterfall(
    trace([
      step(0),
      step(1, { parent_index: 0 }),
      step(2, { parent_index: 1 }),
      step(3),
      step(4, { parent_index: 0 }),
      step(5, { parent_index: 3 }),
    ]),
  )
  t.same(order(w), [
    [0, 0],
    [1, 1],
    [2, 2],
    [4, 1],
    [3, 0],
    [5, 1],
  ])
  t.same(
    w.rows.map((r) => r.childCount),
    [2, 1, 0, 0, 1, 0],
  )
})

t.test('a collapsed step hides its descendants only', async (t) => {
  const w = buildWaterfall(
    trace([step(0), step(1, { parent_index: 0 }), step(2, { parent_index: 1 }), step(3)]),
    new Set([0]),
  )
  t.same(order(w), [
    [0, 0],
    [3, 0],
  ])
})

t.test('bars start at started_at on the trace axis; without it, where the previous step ended', async (t) => {
  const w = buildWaterfall(
    trace(
      [
        step(0, { started_at: at(5), latency: 20 }),
        step(1, { started_at: null, latency: 30 }),
        step(2, { started_at: at(10), latency: null }),
        step(3, { started_at: at(-50), latency: 5 }),
      ],
      40,
    ),
  )
  t.same(
    w.rows.map((r) => [r.offset, r.duration, r.estimated]),
    [
      [5, 20, false],
      [25, 30, true],
      [10, 0, false],
      [0, 5, false],
    ],
  )
  t.equal(w.span, 55, 'the axis covers the last end (25 + 30), beyond the trace latency of 40')
})

t.test('retried tools and failed steps are marked', async (t) => {
  const w = buildWaterfall(
    trace([
      step(0, { tool: 'search', status: 'failed', error: 'timeout' }),
      step(1, { tool: 'search' }),
      step(2, { tool: 'answer' }),
    ]),
  )
  t.same(
    w.rows.map((r) => [r.retry, r.step.status]),
    [
      [false, 'failed'],
      [true, 'success'],
      [false, 'success'],
    ],
  )
})

t.test('steps whose parent is out of range, or caught in a cycle, are still shown once', async (t) => {
  const w = buildWaterfall(
    trace([step(0, { parent_index: 7 }), step(1, { parent_index: 2 }), step(2, { parent_index: 1 })]),
  )
  t.same(w.rows.map((r) => r.step.index).sort(), [0, 1, 2])
})

t.test('a chain of 1000 nested steps is laid out without exhausting the stack', async (t) => {
  const steps = Array.from({ length: 1000 }, (_, i) => step(i, { parent_index: i === 0 ? null : i - 1 }))
  const w = buildWaterfall(trace(steps))
  t.equal(w.rows.length, 1000)
  t.equal(w.rows.at(-1)?.depth, 999)
})

t.test(
  'moveSelection: j goes down, k up, clamped at the ends; from nothing, j picks the first and k the last',
  async (t) => {
    const w = buildWaterfall(trace([step(0), step(1, { parent_index: 0 }), step(2)]))
    t.equal(moveSelection(w.rows, null, 1), 0)
    t.equal(moveSelection(w.rows, null, -1), 2)
    t.equal(moveSelection(w.rows, 0, 1), 1)
    t.equal(moveSelection(w.rows, 1, 1), 2)
    t.equal(moveSelection(w.rows, 2, 1), 2)
    t.equal(moveSelection(w.rows, 0, -1), 0)
    t.equal(moveSelection(w.rows, 99, 1), 0, 'a selection no longer shown starts over')
    t.equal(moveSelection([], null, 1), null)
  },
)
