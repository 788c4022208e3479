// The pure arithmetic of analytics: rounding, nearest-rank p95, rates, means, breakdown order and the chart window.
import t from 'tap'
import {
  CHART_BUCKETS,
  chartPoints,
  chartWindow,
  HOUR_MS,
  mean,
  p95Index,
  percentage,
  round2,
  sortBreakdown,
} from '../../src/analytics/math.js'

// 2026-11-21T13:45:00.000Z (`date -u -d '2026-11-21T13:45:00Z' +%s`).
const NOW = 1_795_268_700_000
const HOUR_13 = NOW - 45 * 60_000

t.test('round2 rounds to 2 decimals, half away from zero, on the decimal value', async (t) => {
  const table: [number, number][] = [
    [0, 0],
    [1, 1],
    [1.234, 1.23],
    [1.235, 1.24],
    [1.005, 1.01],
    [2.675, 2.68],
    [4.725, 4.73],
    [1000.005, 1000.01],
    [123456.785, 123456.79],
    [0.125, 0.13],
    [0.004999, 0],
    [0.005, 0.01],
    [99.994999, 99.99],
    [-1.005, -1.01],
    [-2.5, -2.5],
    [Number.NaN, 0],
    [Number.POSITIVE_INFINITY, 0],
  ]
  for (const [input, expected] of table) t.equal(round2(input), expected, `round2(${input})`)
})

t.test('p95Index is ceil(0.95·n) − 1, 0 for an empty or single list', async (t) => {
  const table: [number, number][] = [
    [0, 0],
    [1, 0],
    [2, 1],
    [10, 9],
    [19, 18],
    [20, 18],
    [21, 19],
    [40, 37],
    [100, 94],
    [101, 95],
    [1000, 949],
    [1001, 950],
  ]
  for (const [n, expected] of table) t.equal(p95Index(n), expected, `p95Index(${n})`)
  // Independently, with integers only: ceil(95n/100) = floor((95n + 99) / 100).
  const wrong: number[] = []
  for (let n = 1; n <= 5000; n++) if (p95Index(n) !== Math.floor((95 * n + 99) / 100) - 1) wrong.push(n)
  t.strictSame(wrong, [], 'p95Index(1…5000) against integer arithmetic')
})

t.test('percentage is 100 × part / total to 2 decimals, 0 when total is 0', async (t) => {
  const table: [number, number, number][] = [
    [0, 0, 0],
    [5, 0, 0],
    [0, 7, 0],
    [7, 7, 100],
    [1, 3, 33.33],
    [2, 3, 66.67],
    [1, 8, 12.5],
    [1, 160, 0.63],
    [1, 32, 3.13],
    [189, 400, 47.25],
    [399, 400, 99.75],
  ]
  for (const [part, total, expected] of table) t.equal(percentage(part, total), expected, `${part}/${total}`)
  // Exhaustively against integer arithmetic: half-up of 10000·part/total, in hundredths.
  const wrong: string[] = []
  for (let total = 1; total <= 1000; total++) {
    for (let part = 0; part <= total; part++) {
      const hundredths = Math.floor((20000 * part + total) / (2 * total))
      if (percentage(part, total) !== hundredths / 100) wrong.push(`${part}/${total}`)
    }
  }
  t.strictSame(wrong.slice(0, 5), [], 'every part/total up to 1000 against integer arithmetic')
})

t.test('mean is sum / count to 2 decimals, 0 when count is 0', async (t) => {
  const table: [number, number, number][] = [
    [0, 0, 0],
    [10, 0, 0],
    [10, 4, 2.5],
    [10, 3, 3.33],
    [189, 40, 4.73],
    [1001, 40, 25.03],
    [15000.015, 3, 5000.01],
    [0.03, 2, 0.02],
  ]
  for (const [sum, count, expected] of table) t.equal(mean(sum, count), expected, `mean(${sum}, ${count})`)
  // Ties are decided on the exact quotient, not on its binary approximation.
  const wrong: string[] = []
  for (let count = 1; count <= 200; count++) {
    for (let sum = 0; sum < 50_000; sum += 13) {
      const hundredths = Math.floor((200 * sum + count) / (2 * count))
      if (mean(sum, count) !== hundredths / 100) wrong.push(`${sum}/${count}`)
    }
  }
  t.strictSame(wrong.slice(0, 5), [], 'integer sums and counts against integer arithmetic')
})

t.test('sortBreakdown drops zero counts and orders by count desc, then key asc', async (t) => {
  t.strictSame(sortBreakdown([]), [])
  t.strictSame(
    sortBreakdown([
      { key: 'b', count: 2 },
      { key: 'zero', count: 0 },
      { key: 'a', count: 2 },
      { key: 'c', count: 5 },
      { key: 'B', count: 2 },
      { key: 'unknown', count: 1 },
    ]),
    [
      { key: 'c', count: 5 },
      { key: 'B', count: 2 },
      { key: 'a', count: 2 },
      { key: 'b', count: 2 },
      { key: 'unknown', count: 1 },
    ],
  )
})

t.test('chartWindow is 24 whole UTC hours ending with the hour that holds now', async (t) => {
  const table: [string, number, number][] = [
    ['mid-hour', NOW, HOUR_13 + HOUR_MS],
    ['exactly on the hour', HOUR_13, HOUR_13 + HOUR_MS],
    ['last millisecond of the hour', HOUR_13 + HOUR_MS - 1, HOUR_13 + HOUR_MS],
    ['epoch', 0, HOUR_MS],
  ]
  for (const [name, now, end] of table) {
    t.strictSame(chartWindow(now), { start: end - CHART_BUCKETS * HOUR_MS, end }, name)
  }
})

t.test('chartPoints gives 24 labelled points, oldest first, zero where a bucket is empty', async (t) => {
  const { start } = chartWindow(NOW)
  const points = chartPoints(start, [
    { bucket: 0, traces: 3, tokens: 30n, latencyMicros: 10_000n, costNanos: 1_500_000_001n },
    { bucket: 23, traces: 40, tokens: 7n, latencyMicros: 189_000n, costNanos: 0n },
    { bucket: 5, traces: 1, tokens: 0n, latencyMicros: 0n, costNanos: 7n },
  ])
  t.equal(points.length, 24)
  // Window 14:00 yesterday … 13:00 today.
  t.strictSame(
    points.map((p) => p.label),
    [14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13].map(
      (h) => `${String(h).padStart(2, '0')}:00`,
    ),
  )
  t.strictSame(points[0], { label: '14:00', latency: 3.33, tokens: 30, traces: 3, cost: 1.500000001 })
  t.strictSame(points[5], { label: '19:00', latency: 0, tokens: 0, traces: 1, cost: 0.000000007 })
  t.strictSame(points[23], { label: '13:00', latency: 4.73, tokens: 7, traces: 40, cost: 0 })
  for (const i of [1, 2, 3, 4, 6, 22])
    t.strictSame(points[i], { label: points[i]!.label, latency: 0, tokens: 0, traces: 0, cost: 0 })
  t.strictSame(
    chartPoints(start, []).map((p) => p.traces),
    Array(24).fill(0),
  )
})
