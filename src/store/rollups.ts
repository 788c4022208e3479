// Rollups: the counts every store maintains in the same transaction as the traces, so that analytics, failure totals
// and list totals never scan the traces table. Pure functions, shared by every store implementation.
//
// Three kinds:
// - totals per (project, environment, model, status): traces, retries, latency sum, tokens;
// - hourly per (project, hour): traces, latency sum, tokens (charts, time-range totals);
// - histograms per project of latency and of token_count, in buckets with integer bounds, so that a rank or a range
//   is found by summing whole buckets and counting one boundary bucket through an index: exact, and cheap.
import type { Trace } from '../../schemas/index.js'
import { HOUR_MS } from '../analytics/math.js'

/** Key of a trace without a model in rollups and breakdowns. */
export const UNKNOWN_MODEL = 'unknown'

// Histogram buckets: every integer below 64 has its own bucket; above, 32 buckets per power of two (≤ 3.1% wide).
const LINEAR = 64
const SUB_BITS = 5
const SUB = 1 << SUB_BITS

/** The bucket of a non-negative value: decided by its integer part, so that bounds are exact integers. */
export function bucketOf(value: number): number {
  const v = Math.floor(value)
  if (v < LINEAR) return Math.max(0, v)
  const exponent = Math.floor(Math.log2(v))
  // Math.log2 may be off by one ulp near powers of two: settle the exponent with exact integer comparisons.
  const e = 2 ** exponent > v ? exponent - 1 : 2 ** (exponent + 1) <= v ? exponent + 1 : exponent
  const mantissa = Math.floor(v / 2 ** (e - SUB_BITS)) - SUB
  return LINEAR + (e - 6) * SUB + mantissa
}

/** [lo, hi): the values whose bucket is `bucket`. */
export function bucketBounds(bucket: number): { lo: number; hi: number } {
  if (bucket < LINEAR) return { lo: bucket, hi: bucket + 1 }
  const e = Math.floor((bucket - LINEAR) / SUB) + 6
  const mantissa = (bucket - LINEAR) % SUB
  const width = 2 ** (e - SUB_BITS)
  const lo = (SUB + mantissa) * width
  return { lo, hi: lo + width }
}

export interface TotalsDelta {
  project_id: string
  environment: string
  model: string
  status: string
  traces: number
  retries: number
  latency_sum: number
  tokens: number
}

export interface HourlyDelta {
  project_id: string
  hour: number
  traces: number
  latency_sum: number
  tokens: number
}

export interface HistogramDelta {
  project_id: string
  bucket: number
  traces: number
}

export interface RollupDeltas {
  totals: TotalsDelta[]
  hourly: HourlyDelta[]
  latency: HistogramDelta[]
  tokens: HistogramDelta[]
}

function add<T extends { traces: number }>(map: Map<string, T>, key: string, create: () => T, apply: (row: T) => void) {
  let row = map.get(key)
  if (!row) {
    row = create()
    map.set(key, row)
  }
  apply(row)
}

/** What storing these traces adds to each rollup, grouped so that a batch writes each rollup row once. */
export function rollupDeltas(traces: readonly Trace[]): RollupDeltas {
  const totals = new Map<string, TotalsDelta>()
  const hourly = new Map<string, HourlyDelta>()
  const latency = new Map<string, HistogramDelta>()
  const tokens = new Map<string, HistogramDelta>()
  for (const t of traces) {
    const model = t.model ?? UNKNOWN_MODEL
    const hour = Math.floor(Date.parse(t.created_at) / HOUR_MS) * HOUR_MS
    const retried = t.retry_count > 0 ? 1 : 0
    add(
      totals,
      JSON.stringify([t.project_id, t.environment, model, t.status]),
      () => ({
        project_id: t.project_id,
        environment: t.environment,
        model,
        status: t.status,
        traces: 0,
        retries: 0,
        latency_sum: 0,
        tokens: 0,
      }),
      (row) => {
        row.traces += 1
        row.retries += retried
        row.latency_sum += t.latency
        row.tokens += t.token_count
      },
    )
    add(
      hourly,
      `${t.project_id}\u0000${hour}`,
      () => ({ project_id: t.project_id, hour, traces: 0, latency_sum: 0, tokens: 0 }),
      (row) => {
        row.traces += 1
        row.latency_sum += t.latency
        row.tokens += t.token_count
      },
    )
    const lb = bucketOf(t.latency)
    add(
      latency,
      `${t.project_id}\u0000${lb}`,
      () => ({ project_id: t.project_id, bucket: lb, traces: 0 }),
      (row) => {
        row.traces += 1
      },
    )
    const tb = bucketOf(t.token_count)
    add(
      tokens,
      `${t.project_id}\u0000${tb}`,
      () => ({ project_id: t.project_id, bucket: tb, traces: 0 }),
      (row) => {
        row.traces += 1
      },
    )
  }
  return {
    totals: [...totals.values()],
    hourly: [...hourly.values()],
    latency: [...latency.values()],
    tokens: [...tokens.values()],
  }
}

export interface HistogramRow {
  bucket: number
  traces: number
}

/**
 * Where the value of 0-based rank `rank` lies: its bucket, and its rank among the values of that bucket.
 * `rows` must be sorted by bucket ascending. Null when rank is out of range.
 */
export function locateRank(rows: readonly HistogramRow[], rank: number): { bucket: number; offset: number } | null {
  let before = 0
  for (const row of rows) {
    if (rank < before + row.traces) return { bucket: row.bucket, offset: rank - before }
    before += row.traces
  }
  return null
}

/**
 * How many values v have min ≤ v ≤ max (either bound may be absent), from the histogram plus an exact count of the
 * values of a boundary bucket: `countBoundary(from, below, max)` counts from ≤ v < below and v ≤ max (an index
 * range). At most two buckets are counted that way.
 */
export function countInRange(
  rows: readonly HistogramRow[],
  range: { min?: number; max?: number },
  countBoundary: (from: number, below: number, max: number) => number,
): number {
  const min = range.min ?? 0
  const max = range.max ?? Number.POSITIVE_INFINITY
  if (max < min) return 0
  let total = 0
  for (const row of rows) {
    const { lo, hi } = bucketBounds(row.bucket)
    if (hi <= min || lo > max) continue
    // Every value of the bucket lies in [lo, hi): the whole bucket counts when [lo, hi) sits inside [min, max].
    if (lo >= min && hi <= max) total += row.traces
    else total += countBoundary(Math.max(lo, min), hi, max)
  }
  return total
}
