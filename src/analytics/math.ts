// The arithmetic of analytics, as plain functions shared by every store.
import type { BreakdownEntry, ChartPoint } from '../../schemas/index.js'
import { HOUR_MS } from '../lib/time.js'

/** Re-exported for the stores, which bucket by the same hour. */
export { HOUR_MS }

export const CHART_BUCKETS = 24
export const RECENT_FAILURES = 10

/**
 * Rounds to 2 decimals (half away from zero), as every rate and mean in analytics is reported. The scaled value is
 * cut to 15 significant digits first, so a tie such as 189 / 40 = 4.725 (stored as 4.72499…) rounds up like the
 * decimal it stands for; a fixed epsilon only does that for values below 2.
 */
export function round2(value: number): number {
  if (!Number.isFinite(value)) return 0
  return (Math.sign(value) * Math.round(Number((Math.abs(value) * 100).toPrecision(15)))) / 100
}

/** 0-based index of the nearest-rank 95th percentile among n ascending values: ceil(0.95·n) − 1. */
export function p95Index(n: number): number {
  return Math.max(0, Math.ceil((95 * n) / 100) - 1)
}

/** 100 × part / total, 2 decimals; 0 when total is 0. */
export const percentage = (part: number, total: number): number => (total === 0 ? 0 : round2((100 * part) / total))

/** Mean, 2 decimals; 0 when count is 0. */
export const mean = (sum: number, count: number): number => (count === 0 ? 0 : round2(sum / count))

/**
 * The mean latency in ms, 2 decimals (half away from zero), of `count` latencies summing to `micros` µs — computed
 * exactly in integers, whatever the size of the sum.
 */
export function meanLatencyMs(micros: bigint, count: number): number {
  if (count <= 0) return 0
  // centi-ms = µs / 10: round(µs / (10·count)) = floor((2·µs + 10·count) / (20·count)) for µs ≥ 0.
  const n = BigInt(count)
  return Number((2n * micros + 10n * n) / (20n * n)) / 100
}

/** An exact count as a JSON number (exact below 2^53, i.e. 9 × 10^15 — more tokens than any deployment records). */
export const toCount = (value: bigint): number => Number(value)

/** Breakdown entries with count > 0, by count desc then key asc. */
export function sortBreakdown(entries: BreakdownEntry[]): BreakdownEntry[] {
  return entries
    .filter((e) => e.count > 0)
    .sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
}

/** The chart window: 24 one-hour UTC buckets ending with the bucket that holds `now`. */
export function chartWindow(now: number): { start: number; end: number } {
  const end = Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS
  return { start: end - CHART_BUCKETS * HOUR_MS, end }
}

export interface BucketTotals {
  bucket: number
  traces: number
  tokens: bigint
  latencyMicros: bigint
  costNanos: bigint
}

/** A sum of nano-dollars as USD (a JSON number: exact to the nano-dollar below 9 million dollars). */
export const toUsd = (nanos: bigint): number => Number(nanos) / 1_000_000_000

/** Turns per-bucket totals (bucket = 0…23 from the window start) into the 24 chart points. */
export function chartPoints(start: number, totals: BucketTotals[]): ChartPoint[] {
  const byBucket = new Map(totals.map((t) => [t.bucket, t]))
  return Array.from({ length: CHART_BUCKETS }, (_, i) => {
    const t = byBucket.get(i)
    return {
      label: new Date(start + i * HOUR_MS).toISOString().slice(11, 16),
      latency: t ? meanLatencyMs(t.latencyMicros, t.traces) : 0,
      tokens: t ? toCount(t.tokens) : 0,
      traces: t?.traces ?? 0,
      cost: t ? toUsd(t.costNanos) : 0,
    }
  })
}
