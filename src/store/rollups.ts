// Rollups: the counts every store maintains in the same transaction as the traces, so that analytics, failure totals
// and list totals never scan the traces table. Pure functions, shared by every store implementation.
//
// Three kinds:
// - totals per (project, environment, model, status): traces, retries, traces without reported tokens, unpriced
//   traces, latency, tokens, cost;
// - hourly per (project, hour): traces, latency, tokens, cost (charts, time-range totals);
// Sums are exact (see ExactSum): latency in whole microseconds, tokens in whole tokens, cost in whole nano-dollars,
// each held in two integer columns so that no number of traces within the bounds of the schemas can overflow one or
// round it.
// - histograms per project of latency, of token_count and of cost (nano-dollars, priced traces only), in buckets with
//   integer bounds, so that a rank or a range is found by summing whole buckets and counting one boundary bucket
//   through an index: exact, and cheap.
// - per session and per user: their totals (GET /sessions, GET /users).
// - per agent and per tool (schemas/agent-calls.ts): the traces calling it, its calls, failures and latency, summed
//   from each trace's rows of trace_calls (one per agent or tool it calls), which deletions read back to subtract.
import { type CallKind, callOf, type Step, type Trace } from '../../schemas/index.js'
import { HOUR_MS } from '../analytics/math.js'
import { costNanos } from '../costs/pricing.js'

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

/** The sums of traces' latencies (µs), tokens and costs (nano-dollars), as the totals and hourly rollups hold them. */
export interface RollupSums {
  latency_hi: number
  latency_lo: number
  tokens_hi: number
  tokens_lo: number
  cost_hi: number
  cost_lo: number
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
  unpriced: number
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
  'cost_hi',
  'cost_lo',
] as const satisfies readonly (keyof RollupSums)[]

/** The counted columns of the totals rollup, for the SQL both stores write and read. */
export const TOTALS_COUNTS = ['traces', 'retries', 'tokens_unreported', 'unpriced', ...SUM_COLUMNS] as const

/** `col = table.col + excluded.col` for each sum column (and any others given): an upsert's SET list. */
export const addExcluded = (table: string, columns: readonly string[]) =>
  columns.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(', ')

/**
 * What one trace's calls of one agent or tool add up to. The latency is the sum of the calls that report one
 * (`timed`), in whole microseconds: at most 1000 steps of at most 7 days each, so one integer holds it exactly.
 */
export interface CallTotals {
  kind: CallKind
  name: string
  calls: number
  failures: number
  latency_micros: number
  timed: number
}

/** A trace's calls of each agent or tool it calls, in the order of their first call. */
export function callTotals(
  steps: readonly Pick<Step, 'type' | 'name' | 'tool' | 'status' | 'latency'>[],
): CallTotals[] {
  const totals = new Map<string, CallTotals>()
  for (const step of steps) {
    const call = callOf(step)
    if (call === null) continue
    const row = rowOf(totals, `${call.kind}\u0000${call.name}`, () => ({
      kind: call.kind,
      name: call.name,
      calls: 0,
      failures: 0,
      latency_micros: 0,
      timed: 0,
    }))
    row.calls += 1
    row.failures += step.status === 'failed' ? 1 : 0
    if (step.latency !== null) {
      row.latency_micros += latencyMicros(step.latency)
      row.timed += 1
    }
  }
  return [...totals.values()]
}

/** A row of trace_calls: a trace's calls of one agent or tool, which a deletion reads back to subtract. */
export interface TraceCallRow extends CallTotals {
  trace_id: string
  project_id: string
}

/** A stored trace's rows of trace_calls. */
export const traceCallRows = (t: Pick<Trace, 'trace_id' | 'project_id' | 'steps'>): TraceCallRow[] =>
  callTotals(t.steps).map((c) => Object.assign({ trace_id: t.trace_id, project_id: t.project_id }, c))

/** The totals of one agent or tool of a project: the traces calling it, its calls, failures and exact latency. */
export interface CallDelta {
  project_id: string
  kind: CallKind
  name: string
  traces: number
  calls: number
  failures: number
  latency_hi: number
  latency_lo: number
  timed: number
}

/** The counted columns of the call rollup. */
export const CALL_COUNTED = ['traces', 'calls', 'failures', 'latency_hi', 'latency_lo', 'timed'] as const

/** Adds `sign` × one trace's calls of an agent or a tool to the call rollup's rows. */
function addCall(map: Map<string, CallDelta>, project_id: string, c: CallTotals, sign: number) {
  const row = rowOf(map, JSON.stringify([project_id, c.kind, c.name]), () => ({
    project_id,
    kind: c.kind,
    name: c.name,
    traces: 0,
    calls: 0,
    failures: 0,
    latency_hi: 0,
    latency_lo: 0,
    timed: 0,
  }))
  const latency = splitValue(c.latency_micros)
  row.traces += sign
  row.calls += sign * c.calls
  row.failures += sign * c.failures
  row.latency_hi += sign * latency.hi
  row.latency_lo += sign * latency.lo
  row.timed += sign * c.timed
}

/**
 * The call rollup recounted from trace_calls in one statement (the same text on both stores): each row split into
 * hi and lo as addCalls splits it, so that a rebuild gives exactly what ingesting every trace again would.
 */
export const REBUILD_CALL_TOTALS = `insert into call_totals (project_id, kind, name, ${CALL_COUNTED.join(', ')})
  select project_id, kind, name, count(*), sum(calls), sum(failures), sum(latency_micros / ${SPLIT}),
    sum(latency_micros % ${SPLIT}), sum(timed)
  from trace_calls group by project_id, kind, name`

/** What the rollups count of a trace (its calls of agents and tools come as its trace_calls rows, apart). */
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
  | 'cost'
  | 'created_at'
  | 'session_id'
  | 'user_id'
>

/** The totals of a group of traces (a session, a user): counts, activity span, exact sums. */
export interface ActivityDelta extends RollupSums {
  project_id: string
  traces: number
  unpriced: number
  failed: number
  warnings: number
  /** Earliest and latest created_at (epoch ms). A trace removed only to be added again (re-pricing) leaves both. */
  first_at: number
  last_at: number
}

/** A session's totals, and its user: the one its earliest trace naming a user names (ties: the smallest). */
export interface SessionDelta extends ActivityDelta {
  session_id: string
  user_id: string | null
  /** created_at of the trace the user comes from. */
  user_at: number | null
}

export interface UserDelta extends ActivityDelta {
  user_id: string
}

/** The sessions and users rollups' SET list of an upsert: counts and sums added, the activity span widened. */
export function activityUpsertSet(table: string, counted: readonly string[], min: string, max: string): string {
  return [
    addExcluded(table, counted),
    `first_at = ${min}(${table}.first_at, excluded.first_at)`,
    `last_at = ${max}(${table}.last_at, excluded.last_at)`,
  ].join(', ')
}

/** A session's user, kept from the earliest trace that names one (set together with user_at, from the old row). */
export function sessionUserSet(table: string): string {
  const earlier =
    `excluded.user_id is not null and (${table}.user_id is null or excluded.user_at < ${table}.user_at or ` +
    `(excluded.user_at = ${table}.user_at and excluded.user_id < ${table}.user_id))`
  return [
    `user_id = case when ${earlier} then excluded.user_id else ${table}.user_id end`,
    `user_at = case when ${earlier} then excluded.user_at else ${table}.user_at end`,
  ].join(', ')
}

/** The counted columns of the sessions and users rollups. */
export const ACTIVITY_COUNTED = ['traces', 'unpriced', 'failed', 'warnings', ...SUM_COLUMNS] as const

/** A trace's latency, tokens and cost as the sums hold them, split once and signed (a trace adds them to 4 rows). */
function signedSums(t: RollupInput, sign: number): RollupSums {
  const latency = splitValue(latencyMicros(t.latency))
  const tokens = splitValue(t.token_count)
  const cost = splitValue(t.cost === null ? 0 : costNanos(t.cost))
  return {
    latency_hi: sign * latency.hi,
    latency_lo: sign * latency.lo,
    tokens_hi: sign * tokens.hi,
    tokens_lo: sign * tokens.lo,
    cost_hi: sign * cost.hi,
    cost_lo: sign * cost.lo,
  }
}

/** Adds one trace's signed sums to a row's. */
function addSums(row: RollupSums, sums: RollupSums) {
  row.latency_hi += sums.latency_hi
  row.latency_lo += sums.latency_lo
  row.tokens_hi += sums.tokens_hi
  row.tokens_lo += sums.tokens_lo
  row.cost_hi += sums.cost_hi
  row.cost_lo += sums.cost_lo
}

/** The latency (µs), token and cost (nano-dollar) sums of rows, exact. */
export function sumRollups(rows: readonly RollupSums[]): { latencyMicros: bigint; tokens: bigint; costNanos: bigint } {
  let latency = 0n
  let tokens = 0n
  let cost = 0n
  for (const r of rows) {
    latency += exactValue({ hi: r.latency_hi, lo: r.latency_lo })
    tokens += exactValue({ hi: r.tokens_hi, lo: r.tokens_lo })
    cost += exactValue({ hi: r.cost_hi, lo: r.cost_lo })
  }
  return { latencyMicros: latency, tokens, costNanos: cost }
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
  cost: HistogramDelta[]
  sessions: SessionDelta[]
  users: UserDelta[]
  calls: CallDelta[]
}

// New rows get their further fields from Object.assign, which adds them one by one, so that every row of a table ends
// with the same hidden class in V8. Rows made by spreading another object into a literal got one each, and every later
// update of them took a slow lookup: a deletion batch of 500 traces spent three times as long on the event loop.

/** `row` with every sum at zero. */
const withZeroSums = <T extends object>(row: T): T & RollupSums =>
  Object.assign(row, { latency_hi: 0, latency_lo: 0, tokens_hi: 0, tokens_lo: 0, cost_hi: 0, cost_lo: 0 })

const newTotals = (t: RollupInput, model: string): TotalsDelta =>
  withZeroSums({
    project_id: t.project_id,
    environment: t.environment,
    model,
    status: t.status,
    traces: 0,
    retries: 0,
    tokens_unreported: 0,
    unpriced: 0,
  })

const newHour = (project_id: string, hour: number): HourlyDelta => withZeroSums({ project_id, hour, traces: 0 })

/** A session's or user's row before any trace: its span starts and ends at the first trace's time. */
const newActivity = (project_id: string, at: number): ActivityDelta =>
  withZeroSums({ project_id, traces: 0, unpriced: 0, failed: 0, warnings: 0, first_at: at, last_at: at })

const newSession = (project_id: string, session_id: string, at: number): SessionDelta =>
  Object.assign(newActivity(project_id, at), { session_id, user_id: null, user_at: null })

const newUser = (project_id: string, user_id: string, at: number): UserDelta =>
  Object.assign(newActivity(project_id, at), { user_id })

/** The row of `key`, made by `create` the first time. */
function rowOf<T>(map: Map<string, T>, key: string, create: () => T): T {
  let row = map.get(key)
  if (row === undefined) {
    row = create()
    map.set(key, row)
  }
  return row
}

/** Adds `sign` × one trace (created at `at`, with its signed sums) to a session's or a user's row. */
function addActivity(row: ActivityDelta, t: RollupInput, sign: number, at: number, sums: RollupSums) {
  row.traces += sign
  row.unpriced += t.cost === null ? sign : 0
  row.failed += t.status === 'failed' ? sign : 0
  row.warnings += t.status === 'warning' ? sign : 0
  row.first_at = Math.min(row.first_at, at)
  row.last_at = Math.max(row.last_at, at)
  addSums(row, sums)
}

/** Adds `sign` to a histogram's bucket. */
function addToBucket(map: Map<string, HistogramDelta>, project_id: string, bucket: number, sign: number) {
  rowOf(map, `${project_id}\u0000${bucket}`, () => ({ project_id, bucket, traces: 0 })).traces += sign
}

/**
 * What storing these traces adds to each rollup, grouped so that a batch writes each rollup row once. A trace listed
 * in `removed` is taken away instead (a trace re-priced is its old form removed and its new one added). A deletion
 * batch runs this on the event loop: each trace is parsed and split once.
 */
export function rollupDeltas(
  traces: readonly RollupInput[],
  removed: readonly RollupInput[] = [],
  calls: { added?: readonly TraceCallRow[]; removed?: readonly TraceCallRow[] } = {},
): RollupDeltas {
  const totals = new Map<string, TotalsDelta>()
  const hourly = new Map<string, HourlyDelta>()
  const latency = new Map<string, HistogramDelta>()
  const tokens = new Map<string, HistogramDelta>()
  const cost = new Map<string, HistogramDelta>()
  const sessions = new Map<string, SessionDelta>()
  const users = new Map<string, UserDelta>()
  const callRows = new Map<string, CallDelta>()
  const count = (t: RollupInput, sign: number) => {
    const model = t.model ?? UNKNOWN_MODEL
    const at = Date.parse(t.created_at)
    const hour = Math.floor(at / HOUR_MS) * HOUR_MS
    const sums = signedSums(t, sign)
    const total = rowOf(totals, JSON.stringify([t.project_id, t.environment, model, t.status]), () =>
      newTotals(t, model),
    )
    total.traces += sign
    total.retries += t.retry_count > 0 ? sign : 0
    total.tokens_unreported += t.tokens_reported ? 0 : sign
    total.unpriced += t.cost === null ? sign : 0
    addSums(total, sums)
    const hourRow = rowOf(hourly, `${t.project_id}\u0000${hour}`, () => newHour(t.project_id, hour))
    hourRow.traces += sign
    addSums(hourRow, sums)
    addToBucket(latency, t.project_id, bucketOf(t.latency), sign)
    addToBucket(tokens, t.project_id, bucketOf(t.token_count), sign)
    if (t.cost !== null) addToBucket(cost, t.project_id, bucketOf(costNanos(t.cost)), sign)
    const { session_id, user_id } = t
    if (session_id !== null) {
      const session = rowOf(sessions, JSON.stringify([t.project_id, session_id]), () =>
        newSession(t.project_id, session_id, at),
      )
      addActivity(session, t, sign, at, sums)
      const earlier =
        user_id !== null &&
        (session.user_id === null ||
          session.user_at === null ||
          at < session.user_at ||
          (at === session.user_at && user_id < session.user_id))
      if (earlier) {
        session.user_id = user_id
        session.user_at = at
      }
    }
    if (user_id !== null) {
      const user = rowOf(users, JSON.stringify([t.project_id, user_id]), () => newUser(t.project_id, user_id, at))
      addActivity(user, t, sign, at, sums)
    }
  }
  for (const t of traces) count(t, 1)
  for (const t of removed) count(t, -1)
  for (const c of calls.added ?? []) addCall(callRows, c.project_id, c, 1)
  for (const c of calls.removed ?? []) addCall(callRows, c.project_id, c, -1)
  return {
    totals: [...totals.values()],
    hourly: [...hourly.values()],
    latency: [...latency.values()],
    tokens: [...tokens.values()],
    cost: [...cost.values()],
    sessions: [...sessions.values()],
    users: [...users.values()],
    calls: [...callRows.values()],
  }
}

/**
 * What deleting these traces takes from each rollup: the exact inverse of storing them (rollupDeltas with every trace
 * removed), so that a field added to the rollups is taken away by the same code that adds it. Exact sums stay exact:
 * a deletion subtracts from hi and lo exactly what the trace added to each. What cannot be subtracted — a session's or
 * a user's first_at and last_at (a minimum and a maximum) and a session's user — the store works out again from the
 * traces left, and rows left with no trace go (see ROLLUP_KEYS).
 */
export const removalDeltas = (traces: readonly RollupInput[], calls: readonly TraceCallRow[]): RollupDeltas =>
  rollupDeltas([], traces, { removed: calls })

/** The columns that identify a row of each rollup table, in the order of its primary key. */
export const ROLLUP_KEYS = {
  rollup_totals: ['project_id', 'environment', 'model', 'status'],
  rollup_hourly: ['project_id', 'hour'],
  latency_histogram: ['project_id', 'bucket'],
  token_histogram: ['project_id', 'bucket'],
  cost_histogram: ['project_id', 'bucket'],
  session_totals: ['project_id', 'session_id'],
  user_totals: ['project_id', 'user_id'],
  call_totals: ['project_id', 'kind', 'name'],
} as const

/** Each rollup table with the rows of a RollupDeltas that write it. */
export const deltaRows = (d: RollupDeltas): [keyof typeof ROLLUP_KEYS, readonly object[]][] => [
  ['rollup_totals', d.totals],
  ['rollup_hourly', d.hourly],
  ['latency_histogram', d.latency],
  ['token_histogram', d.tokens],
  ['cost_histogram', d.cost],
  ['session_totals', d.sessions],
  ['user_totals', d.users],
  ['call_totals', d.calls],
]

/** Every rollup table. */
export const ROLLUP_TABLES = [
  'rollup_totals',
  'rollup_hourly',
  'latency_histogram',
  'token_histogram',
  'cost_histogram',
  'session_totals',
  'user_totals',
  'call_totals',
] as const

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
