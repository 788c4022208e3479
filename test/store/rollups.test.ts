// The rollup arithmetic: histogram buckets with exact integer bounds, deltas grouped per batch, rank and range lookups.
import t from 'tap'
import type { Trace } from '../../schemas/index.js'
import {
  bucketBounds,
  bucketOf,
  locateRank,
  type RollupSums,
  rollupDeltas,
  splitValue,
  sumRollups,
} from '../../src/store/rollups.js'
import { fullTrace } from '../fixtures/traces.js'

t.test('every value falls inside the bounds of its bucket, and buckets are ordered like values', async (t) => {
  const values = [
    0,
    0.4,
    1,
    63,
    63.99,
    64,
    65,
    127,
    128,
    129,
    4999.9,
    5000,
    5000.1,
    1023,
    1024,
    2 ** 20,
    2 ** 31 - 1,
    1e12 + 0.5,
  ]
  for (let i = 0; i < 2000; i++) values.push(Math.random() * 10 ** Math.floor(Math.random() * 9))
  for (let e = 6; e < 45; e++) values.push(2 ** e - 1, 2 ** e, 2 ** e + 1)
  for (const v of values) {
    const { lo, hi } = bucketBounds(bucketOf(v))
    t.ok(lo <= v && v < hi, `${v} in [${lo}, ${hi})`)
  }
  const sorted = [...values].sort((a, b) => a - b)
  for (let i = 1; i < sorted.length; i++) t.ok(bucketOf(sorted[i - 1]!) <= bucketOf(sorted[i]!))
})

t.test('buckets below 64 are single integers; above, at most 1/32 of their lower bound wide', async (t) => {
  t.same(bucketBounds(bucketOf(10.7)), { lo: 10, hi: 11 })
  for (const v of [64, 100, 5000, 123456, 9e9]) {
    const { lo, hi } = bucketBounds(bucketOf(v))
    t.ok((hi - lo) / lo <= 1 / 32, `${v}: [${lo}, ${hi})`)
  }
  t.same(bucketBounds(bucketOf(64)), { lo: 64, hi: 66 })
  t.same(bucketBounds(bucketOf(5000)), { lo: 4992, hi: 5120 })
})

const trace = (over: Partial<Trace>): Trace =>
  fullTrace({
    trace_id: 'x',
    project_id: 'p',
    model: 'm',
    latency: 10,
    token_count: 5,
    tokens_reported: true,
    ...over,
  })

/** A row's latency (ms) and token sums, read back from their exact two-column form. */
const sums = (r: RollupSums) => {
  const { latencyMicros, tokens } = sumRollups([r])
  return [Number(latencyMicros) / 1000, Number(tokens)]
}

t.test('deltas group a batch per rollup row', async (t) => {
  const d = rollupDeltas([
    trace({ latency: 10, token_count: 5 }),
    trace({ latency: 30.5, token_count: 7, retry_count: 2 }),
    trace({ model: null, status: 'failed', created_at: '2026-11-21T14:00:00.000Z' }),
    trace({ project_id: 'q', latency: 5000 }),
    trace({ project_id: 'q', latency: 0, token_count: 0, tokens_reported: false }),
  ])
  t.same(
    d.totals.map((r) => [r.project_id, r.model, r.status, r.traces, r.retries, r.tokens_unreported, ...sums(r)]),
    [
      ['p', 'm', 'success', 2, 1, 0, 40.5, 12],
      ['p', 'unknown', 'failed', 1, 0, 0, 10, 5],
      ['q', 'm', 'success', 2, 0, 1, 5000, 5],
    ],
  )
  t.same(
    d.hourly.map((r) => [r.project_id, new Date(r.hour).toISOString(), r.traces, ...sums(r)]),
    [
      ['p', '2026-11-21T13:00:00.000Z', 2, 40.5, 12],
      ['p', '2026-11-21T14:00:00.000Z', 1, 10, 5],
      ['q', '2026-11-21T13:00:00.000Z', 2, 5000, 5],
    ],
  )
  t.same(
    d.latency.map((r) => [r.project_id, r.bucket, r.traces]),
    [
      ['p', 10, 2],
      ['p', 30, 1],
      ['q', bucketOf(5000), 1],
      ['q', 0, 1],
    ],
  )
})

t.test('locateRank finds the bucket of a rank and the rank inside it', async (t) => {
  const rows = [
    { bucket: 1, traces: 3 },
    { bucket: 5, traces: 2 },
    { bucket: 9, traces: 4 },
  ]
  t.same(locateRank(rows, 0), { bucket: 1, offset: 0 })
  t.same(locateRank(rows, 2), { bucket: 1, offset: 2 })
  t.same(locateRank(rows, 3), { bucket: 5, offset: 0 })
  t.same(locateRank(rows, 8), { bucket: 9, offset: 3 })
  t.equal(locateRank(rows, 9), null)
})

t.test('exact sums: hi × 10^6 + lo, with no carry and no rounding, far beyond 2^53', async (t) => {
  t.same(splitValue(0), { hi: 0, lo: 0 })
  t.same(splitValue(999_999), { hi: 0, lo: 999_999 })
  t.same(splitValue(1_000_000), { hi: 1, lo: 0 })
  t.same(splitValue(604_800_000_000), { hi: 604_800, lo: 0 }, 'a week in µs')
  // A million traces of a week and a microsecond each: 6.048 × 10^17 µs, far past what a float sums exactly.
  const n = 1_000_000
  const one = splitValue(604_800_000_001)
  // And a million traces of $999,999.999999999 each (just under the bound), in nano-dollars.
  const cost = splitValue(999_999_999_999_999)
  const row = {
    latency_hi: one.hi * n,
    latency_lo: one.lo * n,
    tokens_hi: 100_000 * n,
    tokens_lo: 1 * n,
    cost_hi: cost.hi * n,
    cost_lo: cost.lo * n,
  }
  const { latencyMicros, tokens, costNanos } = sumRollups([row, row])
  t.equal(latencyMicros, 604_800_000_001n * 2_000_000n)
  t.equal(tokens, 100_000_000_001n * 2_000_000n)
  t.equal(costNanos, 999_999_999_999_999n * 2_000_000n)
})
