// The read planner both stores share (createTraceReads), through a fake set of primitive queries over known values:
// range counts come from the histogram plus at most two exact boundary counts, never from a scan, and equal a
// direct count.
import t from 'tap'
import type { HistogramKind, Selection, TotalsRow, TraceReadQueries } from '../../src/store/read-queries.js'
import { bucketOf } from '../../src/store/rollups.js'
import { createTraceReads } from '../../src/store/trace-reads.js'
import type { TraceFilter } from '../../src/store/types.js'

/** A linear congruential generator: the same values every run. */
function values(n: number): number[] {
  let seed = 7
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed / 2 ** 31
  }
  return Array.from({ length: n }, () => Math.round(rnd() * 20000 * rnd() * 100) / 100)
}

/** The primitive queries over `latencies` (and as many whole token counts), counting the boundary counts asked. */
function fakeQueries(latencies: number[]) {
  const tokens = latencies.map((v) => Math.round(v))
  const of = (kind: HistogramKind) => (kind === 'latency' ? latencies : tokens)
  const calls = { boundary: 0 }
  const unused = (name: string) => () => {
    throw new Error(`${name} should not be asked for a range count`)
  }
  const q: TraceReadQueries = {
    totals: async () => [],
    callTotals: unused('callTotals'),
    tally: async () => ({ traces: 0, retries: 0, failed: 0 }),
    // Only the window's buckets, as a store answers: a range counted from a window too narrow comes out short.
    histogram: async (kind, _project, window) => {
      const hist = new Map<number, number>()
      for (const v of of(kind)) hist.set(bucketOf(v), (hist.get(bucketOf(v)) ?? 0) + 1)
      return [...hist]
        .filter(([bucket]) => !window || (bucket >= window.from && (window.to === undefined || bucket <= window.to)))
        .sort((a, b) => a[0] - b[0])
        .map(([bucket, traces]) => ({ bucket, traces }))
    },
    countBoundary: async (kind, _project, from, below, max) => {
      calls.boundary++
      return of(kind).filter((v) => v >= from && v < below && v <= max).length
    },
    hours: unused('hours'),
    hoursBetween: unused('hoursBetween'),
    count: unused('count (a scan)'),
    countScored: unused('countScored'),
    select: async () => [],
    selectEach: async () => [],
    selectSummaries: async () => [],
    latencyAt: unused('latencyAt'),
  }
  return { q, calls }
}

t.test('a latency or token range is counted exactly from the histogram and at most two boundary counts', async (t) => {
  const latencies = values(3000)
  const { q, calls } = fakeQueries(latencies)
  const reads = createTraceReads(q)
  const ranges: { min?: number; max?: number }[] = [{ min: 5000 }, { max: 200 }, { min: 63.5, max: 64.5 }]
  for (let i = 0; i < 100; i++) {
    const [a = 0, b = 0] = values(2 + i).slice(-2)
    ranges.push({ min: Math.min(a, b), max: Math.max(a, b) })
  }
  for (const range of ranges) {
    const expected = latencies.filter((v) => v >= (range.min ?? 0) && v <= (range.max ?? Infinity)).length
    calls.boundary = 0
    const { total } = await reads.listTraces(
      { min_latency: range.min, max_latency: range.max },
      { limit: 1, offset: 0 },
    )
    t.equal(total, expected, `latency ${JSON.stringify(range)}`)
    t.ok(calls.boundary <= 2, 'at most two boundary buckets are counted')
    const tokenRange = { min: range.min && Math.round(range.min), max: range.max && Math.round(range.max) }
    const tokens = latencies.map((v) => Math.round(v))
    const tokenExpected = tokens.filter((v) => v >= (tokenRange.min ?? 0) && v <= (tokenRange.max ?? Infinity)).length
    const counted = await reads.listTraces(
      { min_tokens: tokenRange.min, max_tokens: tokenRange.max },
      { limit: 1, offset: 0 },
    )
    t.equal(counted.total, tokenExpected, `tokens ${JSON.stringify(tokenRange)}`)
  }
})

t.test('an empty range counts nothing and asks for no boundary', async (t) => {
  const { q, calls } = fakeQueries(values(100))
  const { total, items } = await createTraceReads(q).listTraces(
    { min_latency: 10, max_latency: 5 },
    { limit: 10, offset: 0 },
  )
  t.equal(total, 0)
  t.same(items, [], 'and reads no page')
  t.equal(calls.boundary, 0)
})

t.test(
  'a search is walked for a common word, collected for a rare one, and left to the store with other filters',
  async (t) => {
    const STORED = 100_000
    const asked: Selection[] = []
    const { q } = fakeQueries([])
    const reads = createTraceReads({
      ...q,
      totals: async () => [{ traces: STORED } as TotalsRow],
      tally: async () => ({ traces: STORED, retries: 0, failed: 0 }),
      // "the" matches most traces, "können" a few.
      count: async (f) => (f.q?.[0] === 'the' ? 60_000 : 50),
      select: async (selection) => {
        asked.push(selection)
        return []
      },
    })
    const plan = async (f: TraceFilter, sort?: 'cost') => {
      asked.length = 0
      await reads.listTraces(f, { limit: 50, offset: 0, sort })
      const { probe, collect } = asked[0] ?? {}
      return { probe, collect }
    }
    t.same(await plan({ q: ['the'] }), { probe: true, collect: undefined }, 'a common word: walked')
    t.same(await plan({ q: ['können'] }), { probe: undefined, collect: true }, 'a rare word: collected')
    t.same(await plan({ q: ['können'] }, 'cost'), { probe: undefined, collect: true }, 'a rare word by cost: collected')
    t.same(
      await plan({ q: ['the'], status: 'failed' }),
      { probe: undefined, collect: undefined },
      'with a filter: neither',
    )
  },
)
