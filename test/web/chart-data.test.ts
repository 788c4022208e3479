// /analytics chart points placed on the time axis: 24 hourly points whose labels match their hours.
import t from 'tap'
import type { ChartPoint } from '../../schemas/index.js'
import { chartSeries, chartTimes } from '../../web/src/features/dashboard/chart-data.js'

const points = (lastHour: number): ChartPoint[] =>
  Array.from({ length: 24 }, (_, i) => ({
    label: `${String((lastHour - 23 + i + 24) % 24).padStart(2, '0')}:00`,
    latency: i,
    tokens: i * 10,
    traces: i * 2,
    cost: i / 100,
  }))

t.test('the last point is the hour of now (UTC), each point an hour after the one before', async (t) => {
  const now = Date.parse('2026-11-21T13:45:00.000Z')
  const times = chartTimes(points(13), now)
  t.equal(times.length, 24)
  t.equal(new Date(times.at(-1)! * 1000).toISOString(), '2026-11-21T13:00:00.000Z')
  t.equal(new Date(times[0]! * 1000).toISOString(), '2026-11-20T14:00:00.000Z')
  for (let i = 1; i < 24; i++) t.equal(times[i]! - times[i - 1]!, 3600)
})

t.test('a chart read just before an hour ended, shown just after, keeps its labels', async (t) => {
  const now = Date.parse('2026-11-21T14:00:00.200Z')
  t.equal(new Date(chartTimes(points(13), now).at(-1)! * 1000).toISOString(), '2026-11-21T13:00:00.000Z')
  t.equal(
    new Date(chartTimes(points(23), Date.parse('2026-11-22T00:00:01Z')).at(-1)! * 1000).toISOString(),
    '2026-11-21T23:00:00.000Z',
  )
})

t.test("series are the points' figures in order", async (t) => {
  const s = chartSeries(points(5))
  t.same(s.traces.slice(0, 3), [0, 2, 4])
  t.same(s.tokens.slice(-1), [230])
  t.same(s.latency.length, 24)
  t.same(chartTimes([], 0), [])
})
