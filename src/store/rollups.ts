// Rollups: the counts every store maintains in the same transaction as the traces, so that analytics, failure totals
// and list totals never scan the traces table. Pure functions, shared by every store implementation.
//
// Three kinds:
// - totals per (project, environment, model, status): traces, retries, traces without reported tokens, latency sum,
//   tokens;
// - hourly per (project, hour): traces, latency sum, tokens (charts, time-range totals);
// Sums are exact (see ExactSum): latency in whole microseconds, tokens in whole tokens, each held in two integer
// columns so that no number of traces within the bounds of the schemas can overflow one or round it.
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

/**
 * A sum kept exact in two integer columns, `hi` and `lo`: each trace adds floor(v / SPLIT) to hi and v mod SPLIT to
 * lo, so the value is hi × SPLIT + lo. No carry is ever needed (a delete subtracts exactly what was added), and since
 * one trace adds less than SPLIT to lo and at most bound / SPLIT to hi, a 64-bit column overflows only after more than
 * 9 × 10^12 traces — and each column read back stays below 2^53 (exact as a JS number) for 9 × 10^9 traces.
 */
export const SPLIT = 1_000_000

export interface ExactSum {
  hi: number
  lo: number
}

/** One value's contribution to an exact sum. */
export const splitValue = (units: number): ExactSum => ({ hi: Math.floor(units / SPLIT), lo: units % SPLIT })

/** The value of an exact sum, as a bigint (hi × SPLIT can pass 2^53 where the sum is huge). */
export const exactValue = (sum: ExactSum): bigint => BigInt(sum.hi) * BigInt(SPLIT) + BigInt(sum.lo)

/** A latency in ms as the whole microseconds the rollups sum (latencies are stored rounded to microseconds). */
export const latencyMicros = (ms: number): number => Math.round(ms * 1000)

/** The sums of traces' latencies (µs) and tokens, as the totals and hourly rollups hold them. */
export interface RollupSums {
  latency_hi: number
  latency_lo: number
  tokens_hi: number
  tokens_lo: number
}

export interface TotalsDelta extends RollupSums {
  project_id: string
  environment: string
  model: string
  status: string
  traces: number
  retries: number
  /** Traces whose token count nothing reported. */
  tokens_unreported: number
}

export interface HourlyDelta extends RollupSums {
  project_id: string
  hour: number
  traces: number
}

/** The sum columns of the totals and hourly rollups, for the SQL both stores write. */
export const SUM_COLUMNS = [
  'latency_hi',
  'latency_lo',
  'tokens_hi',
  'tokens_lo',
] as const satisfies readonly (keyof RollupSums)[]

/** The counted columns of the totals rollup, for the SQL both stores write and read. */
export const TOTALS_COUNTS = ['traces', 'retries', 'tokens_unreported', ...SUM_COLUMNS] as const

/** `col = table.col + excluded.col` for each sum column (and any others given): an upsert's SET list. */
export const addExcluded = (table: string, columns: readonly string[]) =>
  columns.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(', ')

const noSums = (): RollupSums => ({ latency_hi: 0, latency_lo: 0, tokens_hi: 0, tokens_lo: 0 })

/** What the rollups count of a trace. */
export type RollupInput = Pick<
  Trace,
  | 'project_id'
  | 'environment'
  | 'model'
  | 'status'
  | 'retry_count'
  | 'latency'
  | 'token_count'
  | 'tokens_reported'
  | 'created_at'
>

/** Adds one trace's latency and tokens to a row's sums. */
function addSums(row: RollupSums, t: RollupInput) {
  const latency = splitValue(latencyMicros(t.latency))
  const tokens = splitValue(t.token_count)
  row.latency_hi += latency.hi
  row.latency_lo += latency.lo
  row.tokens_hi += tokens.hi
  row.tokens_lo += tokens.lo
}

/** The latency (µs) and token sums of rows, exact. */
export function sumRollups(rows: readonly RollupSums[]): { latencyMicros: bigint; tokens: bigint } {
  let latency = 0n
  let tokens = 0n
  for (const r of rows) {
    latency += exactValue({ hi: r.latency_hi, lo: r.latency_lo })
    tokens += exactValue({ hi: r.tokens_hi, lo: r.tokens_lo })
  }
  return { latencyMicros: latency, tokens }
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
export function rollupDeltas(traces: readonly RollupInput[]): RollupDeltas {
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
        tokens_unreported: 0,
        ...noSums(),
      }),
      (row) => {
        row.traces += 1
        row.retries += retried
        row.tokens_unreported += t.tokens_reported ? 0 : 1
        addSums(row, t)
      },
    )
    add(
      hourly,
      `${t.project_id}\u0000${hour}`,
      () => ({ project_id: t.project_id, hour, traces: 0, ...noSums() }),
      (row) => {
        row.traces += 1
        addSums(row, t)
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

/** The fields of rollup rows that identify a row; every other numeric field is a count or a sum. */
const ROW_KEYS: ReadonlySet<string> = new Set(['project_id', 'environment', 'model', 'status', 'hour', 'bucket'])

/** A rollup row with every count and sum negated (0 stays 0, never -0). */
function negated<T extends object>(row: T): T {
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => [k, typeof v === 'number' && !ROW_KEYS.has(k) && v !== 0 ? -v : v]),
  ) as T
}

/**
 * What deleting these traces takes from each rollup: the exact inverse of storing them — rollupDeltas with every
 * count and sum negated, so that a field added to the rollups is taken away by the same code that adds it. Exact
 * sums stay exact: a deletion subtracts from hi and lo exactly what the trace added to each.
 */
export function removalDeltas(traces: readonly RollupInput[]): RollupDeltas {
  const d = rollupDeltas(traces)
  return {
    totals: d.totals.map(negated),
    hourly: d.hourly.map(negated),
    latency: d.latency.map(negated),
    tokens: d.tokens.map(negated),
  }
}

/** Every rollup table. */
export const ROLLUP_TABLES = ['rollup_totals', 'rollup_hourly', 'latency_histogram', 'token_histogram'] as const

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

/** A value range of a histogram: the traces of whole buckets, and the boundary buckets left to count exactly. */
export interface RangePlan {
  whole: number
  /** Each is counted as from ≤ v < below and v ≤ max (one index range); at most two. */
  boundaries: { from: number; below: number; max: number }[]
}

/** How to count the values v with min ≤ v ≤ max (either bound may be absent) from a histogram. */
export function planRange(rows: readonly HistogramRow[], range: { min?: number; max?: number }): RangePlan {
  const min = range.min ?? 0
  const max = range.max ?? Number.POSITIVE_INFINITY
  const plan: RangePlan = { whole: 0, boundaries: [] }
  if (max < min) return plan
  for (const row of rows) {
    const { lo, hi } = bucketBounds(row.bucket)
    if (hi <= min || lo > max) continue
    // Every value of the bucket lies in [lo, hi): the whole bucket counts when [lo, hi) sits inside [min, max].
    if (lo >= min && hi <= max) plan.whole += row.traces
    else plan.boundaries.push({ from: Math.max(lo, min), below: hi, max })
  }
  return plan
}
