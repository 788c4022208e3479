// The throttle behind live aggregates: at most one refetch per interval whatever the rate of traces, so a viewer
// left open for an hour stays far below the per-address read limit.
import t from 'tap'
import { type Clock, throttle } from '../../web/src/api/throttle.js'

/** A clock whose time only moves when the test says so. */
function fakeClock() {
  let now = 0
  let timers: { at: number; run: () => void; id: number }[] = []
  let next = 1
  const clock: Clock = {
    now: () => now,
    setTimeout: (run, ms) => {
      const id = next++
      timers.push({ at: now + ms, run, id })
      return id
    },
    clearTimeout: (id) => {
      timers = timers.filter((timer) => timer.id !== id)
    },
  }
  const advance = (ms: number) => {
    const end = now + ms
    for (;;) {
      timers.sort((a, b) => a.at - b.at)
      const due = timers[0]
      if (!due || due.at > end) break
      timers.shift()
      now = due.at
      due.run()
    }
    now = end
  }
  return { clock, advance }
}

t.test('the first call runs at once; calls within the interval join one run at its end', async (t) => {
  const { clock, advance } = fakeClock()
  const runs: number[] = []
  const th = throttle(() => runs.push(clock.now()), 2000, clock)
  th.call()
  advance(0)
  t.same(runs, [0])
  advance(500)
  th.call()
  th.call()
  advance(100)
  t.same(runs, [0], 'not before the interval is over')
  advance(2000)
  t.same(runs, [0, 2000], 'one run for both calls, when the interval ended')
  advance(10_000)
  th.call()
  advance(0)
  t.same(runs, [0, 2000, 12_600], 'after a quiet spell, at once again')
})

t.test('an hour of traces every 10 ms costs at most one run per interval', async (t) => {
  const { clock, advance } = fakeClock()
  let runs = 0
  const th = throttle(() => runs++, 2000, clock)
  for (let ms = 0; ms < 3_600_000; ms += 10) {
    th.call()
    advance(10)
  }
  advance(2000)
  t.ok(runs <= 3_600_000 / 2000 + 1, `${runs} runs in an hour`)
  t.ok(runs >= 3_600_000 / 2000 - 1, 'and it keeps up: one run every interval')
  t.ok(runs / 60 < 1200 / 10, 'a tenth of RATE_LIMIT per minute at most, for each live view')
})

t.test('cancel drops the pending run', async (t) => {
  const { clock, advance } = fakeClock()
  let runs = 0
  const th = throttle(() => runs++, 1000, clock)
  th.call()
  advance(0)
  th.call()
  th.cancel()
  advance(5000)
  t.equal(runs, 1)
})
