// Live traces joining the loaded list, and the pause that holds them back.
import t from 'tap'
import type { TraceSummary } from '../../schemas/index.js'
import {
  HELD_CAP,
  hold,
  insertLive,
  removeDeleted,
  resumeByRefetch,
  type TracePages,
  unhold,
} from '../../web/src/features/traces/live-list.js'

const item = (trace_id: string, created_at = '2026-11-21T13:45:00.000Z') => ({ trace_id, created_at }) as TraceSummary
const pages = (...lists: string[][]): TracePages => ({
  pages: lists.map((ids) => ({ total: 10, items: ids.map((id) => item(id)), next_cursor: null })),
  pageParams: lists.map((_, i) => (i === 0 ? null : `cursor-${i}`)),
})
const ids = (data: TracePages | undefined) => data?.pages.map((p) => p.items.map((i) => i.trace_id))

t.test('insertLive puts new traces at the top, newest first, and counts them in every page total', async (t) => {
  const out = insertLive(pages(['c', 'b'], ['a']), [
    item('d', '2026-11-21T13:46:00.000Z'),
    item('e', '2026-11-21T13:47:00.000Z'),
  ])
  t.same(ids(out), [['e', 'd', 'c', 'b'], ['a']])
  t.same(
    out?.pages.map((p) => p.total),
    [12, 12],
  )
  t.same(out?.pageParams, [null, 'cursor-1'], 'page params untouched')
})

t.test('insertLive never adds a trace the list already holds', async (t) => {
  const before = pages(['c', 'b'], ['a'])
  t.equal(insertLive(before, [item('a'), item('c')]), before, 'nothing new: the same object (no re-render)')
  t.same(ids(insertLive(before, [item('x'), item('x'), item('b')])), [['x', 'c', 'b'], ['a']])
  t.equal(insertLive(undefined, [item('x')]), undefined, 'a list not loaded yet is left to load')
})

t.test(
  'hold counts every trace while paused but keeps at most the cap; resume refetches when some were not kept',
  async (t) => {
    let held = { items: [] as TraceSummary[], count: 0 }
    for (let i = 0; i < 3; i++) held = hold(held, item(`t${i}`), 2)
    t.equal(held.count, 3)
    t.same(
      held.items.map((i) => i.trace_id),
      ['t0', 't1'],
    )
    t.equal(resumeByRefetch(held), true)
    t.equal(resumeByRefetch(hold({ items: [], count: 0 }, item('x'))), false)
    t.ok(HELD_CAP >= 100)
  },
)

t.test('removeDeleted takes a deleted trace out of whichever page holds it, the total one smaller', async (t) => {
  const before = pages(['c', 'b'], ['a'])
  const out = removeDeleted(before, 'a')
  t.same(ids(out), [['c', 'b'], []])
  t.same(
    out?.pages.map((p) => p.total),
    [9, 9],
  )
  t.same(ids(removeDeleted(before, 'c')), [['b'], ['a']])
  t.equal(removeDeleted(before, 'zz'), before, 'a trace the list does not hold: the same object (no re-render)')
  t.equal(removeDeleted(undefined, 'a'), undefined)
})

t.test('unhold forgets a deleted trace the pause held, and keeps the count of what came', async (t) => {
  const held = hold(hold({ items: [], count: 0 }, item('x')), item('y'))
  t.same(unhold(held, 'x'), { items: [item('y')], count: 2 })
  t.equal(unhold(held, 'zz'), held)
})
