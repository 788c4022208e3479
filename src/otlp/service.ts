// OTLP ingest: spans from every export are kept durably in the store, per trace, until the trace is due; then its
// spans are assembled into one Loupe trace and sent down the single ingest road (normalize → store → announce once).
//
// When a trace is due (documented in the README, "Send traces with OpenTelemetry"):
// - once its root span has arrived, OTLP_ROOT_GRACE_MS after that (children that arrive in the meantime join it);
// - if its root never arrives, once none of its spans arrived for OTLP_ROOTLESS_WAIT_MS.
// A stored trace never changes: a span of it sent again is accepted and ignored; a new span that comes after it was
// stored is rejected in the export's partialSuccess and logged.
//
// GenAI log records (POST /v1/logs) wait the same way, in the same table, beside the spans of their trace, whichever
// comes first; when the trace is stored, each is folded into the span it names. A record that names no span that
// came (within the pending window), or that comes after its trace was stored, is counted (stats, /metrics) and
// logged: never dropped unsaid.
//
// Once a trace is stored, its `gen_ai.evaluation.result` events are recorded as scores through the score road
// (assemble.ts makes them, each with an id made of where it was said, so a trace stored again records them once).
import { createHash } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { OtlpLogRecord, OtlpSpan } from '../../schemas/otlp.js'
import { InvalidInput, TraceIdTaken } from '../errors.js'
import { type Redact, redactLogRecord, redactSpan } from '../ingest/redact.js'
import type { IngestService, TraceOwner } from '../ingest/service.js'
import type { ScoreService } from '../services/scores.js'
import type { PendingTrace, Store } from '../store/types.js'
import { assembleTrace, spanIdsOf } from './assemble.js'
import { spanOutOfBounds } from './conventions.js'
import { readExportRequest, readLogsRequest } from './decode.js'

export interface OtlpExportResult {
  /** Spans (or log records) not kept. */
  rejected: number
  /** Why, when any were; empty otherwise. */
  message: string
}

/** Why a GenAI log record was not folded into a span: no span of it came in time, or its trace was stored already. */
export type UnmatchedReason = 'no_span' | 'late'

export interface OtlpService {
  /** Keeps the spans of one decoded ExportTraceServiceRequest for their traces; answers what was rejected and why. */
  receive(body: Record<string, unknown>, owner: TraceOwner): Promise<OtlpExportResult>
  /**
   * Keeps the GenAI log records of one decoded ExportLogsServiceRequest beside the spans they name; other records are
   * accepted and ignored. Answers what was rejected and why.
   */
  receiveLogs(body: Record<string, unknown>, owner: TraceOwner): Promise<OtlpExportResult>
  /** Stores every pending trace that is due; resolves with how many new traces were stored. */
  materializeDue(): Promise<number>
  /** Stores what became due while the service was down and arms the timer for the rest. */
  start(): Promise<void>
  /**
   * Traces whose spans could not be made into a storable trace: their spans stay pending (nothing acknowledged is
   * dropped), they are tried again later, and they are counted here and in /health.
   */
  stats(): { failed_traces: number; unmatched_log_records: number }
  /** GenAI log records not folded into any span since the service was made, by reason. */
  unmatchedLogRecords(): Record<UnmatchedReason, number>
  /** Disarms the timer and waits for a materialization in progress (before the store closes). */
  stop(): Promise<void>
}

export interface OtlpDeps {
  store: Store
  ingest: IngestService
  /** The one road of a score: a trace's evaluation events take it once the trace is stored. */
  scores: Pick<ScoreService, 'recordEach'>
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>
  now: () => number
  rootGraceMs: number
  rootlessWaitMs: number
  /** Applied to each span's attribute values before it is kept; null: nothing is redacted. */
  redact?: Redact | null
}

/** After a failed materialization (the store was down), try again this much later. */
const RETRY_MS = 5000
/** A trace that failed validation is tried again after this, doubling up to an hour (a newer release may store it). */
const INVALID_RETRY_MS = 60_000
const INVALID_RETRY_MAX_MS = 3_600_000
/** Due traces stored together: assembled, then ingested in one group (one transaction), then forgotten in one. */
const SWEEP_CHUNK = 500
/** Trace ids quoted in a rejection message. */
const QUOTED_TRACES = 3

/** A span that opens its trace here: it has no parent, or its parent is in another process. */
const isRoot = (span: OtlpSpan) => span.parent_span_id === null || span.parent_is_remote

const isLogRecord = (item: OtlpSpan | OtlpLogRecord): item is OtlpLogRecord => 'record' in item

/**
 * The key a log record is kept under beside the spans: the span it names and a digest of what it says, so that a
 * re-sent record is the same row (and never the id of a span: those are 16 hex digits).
 */
function logRecordKey(record: OtlpLogRecord): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([record.event_name, record.time_ms, record.attributes, record.body]))
    .digest('hex')
  return `log:${record.span_id}:${digest.slice(0, 24)}`
}

/** The answer's message: how many of how many were rejected, then each reason with its count. */
function rejectionMessage(rejected: Map<string, number>, received: number, noun: [string, string]): OtlpExportResult {
  const total = [...rejected.values()].reduce((sum, n) => sum + n, 0)
  const reasons = [...rejected.entries()].map(([reason, n]) => `${n} ${n === 1 ? noun[0] : noun[1]}: ${reason}`)
  return {
    rejected: total,
    message: total > 0 ? `${total} of ${received} ${noun[1]} rejected. ${reasons.join('; ')}` : '',
  }
}

const count = (map: Map<string, number>, key: string, n = 1) => map.set(key, (map.get(key) ?? 0) + n)

function quote(traceIds: ReadonlySet<string>): string {
  const ids = [...traceIds]
  const more = ids.length > QUOTED_TRACES ? ` and ${ids.length - QUOTED_TRACES} more` : ''
  return `${ids.slice(0, QUOTED_TRACES).join(', ')}${more}`
}

export function createOtlpService({
  store,
  ingest,
  scores,
  log,
  now,
  rootGraceMs,
  rootlessWaitMs,
  redact = null,
}: OtlpDeps): OtlpService {
  let timer: NodeJS.Timeout | null = null
  let timerAt = Number.POSITIVE_INFINITY
  let sweeping: Promise<number> | null = null
  let stopped = false
  /** Traces that failed validation: when to try each again, and the wait after that. */
  const held = new Map<string, { at: number; wait: number }>()
  const unmatched: Record<UnmatchedReason, number> = { no_span: 0, late: 0 }
  /** Log records that were not folded into a span: counted, and said in the log with the trace they named. */
  function countUnmatched(reason: UnmatchedReason, records: number, trace_ids: readonly string[]) {
    if (records === 0) return
    unmatched[reason] += records
    const why =
      reason === 'late'
        ? 'OTLP log records came after their trace was stored; not added'
        : 'OTLP log records name no span that arrived; not stored'
    log.warn({ trace_ids: trace_ids.slice(0, QUOTED_TRACES), records }, why)
  }

  /**
   * The evaluation events of a stored trace, recorded as scores (again, idempotently, when it was stored before: their
   * ids are made of where each was said). One the score road refuses (its score config says otherwise) is logged.
   */
  async function recordEvaluations(
    evaluations: readonly unknown[],
    project_id: string,
    context: { trace_id: string; project_id: string },
  ) {
    if (evaluations.length === 0) return
    const outcomes = await scores.recordEach(evaluations, { scope: project_id }, (i) => `evaluations/${i}`)
    const refused = outcomes.flatMap((o) => (o.ok ? [] : [o.error.message]))
    if (refused.length > 0) {
      log.warn(
        { ...context, reasons: refused.slice(0, QUOTED_TRACES) },
        'OTLP evaluation events not recorded as scores',
      )
    }
  }

  const dueAt = (trace: PendingTrace) =>
    Math.max(
      trace.root_received_at !== null ? trace.root_received_at + rootGraceMs : trace.last_received_at + rootlessWaitMs,
      held.get(trace.trace_id)?.at ?? 0,
    )

  /** Makes sure a sweep runs at `at` (or earlier). */
  function arm(at: number) {
    if (stopped || at >= timerAt) return
    if (timer) clearTimeout(timer)
    timerAt = at
    timer = setTimeout(
      () => {
        timer = null
        timerAt = Number.POSITIVE_INFINITY
        void sweepSafely()
      },
      Math.max(0, at - now()),
    )
    timer.unref()
  }

  /** A sweep whose failure is logged and retried later: the spans stay pending in the store meanwhile. */
  async function sweepSafely() {
    try {
      await service.materializeDue()
    } catch (err) {
      log.error({ err }, 'OTLP traces could not be materialized; will retry')
      arm(now() + RETRY_MS)
    }
  }

  /**
   * One trace's pending spans → one stored trace (or none, said in the log). Answers whether it was stored now, and
   * the spans to forget (null: they stay pending, to be tried again).
   */
  async function materialize(pending: PendingTrace): Promise<{ created: boolean; forget: string[] | null }> {
    const rows = await store.pending.get(pending.trace_id)
    if (rows.length === 0) return { created: false, forget: null }
    const spans = rows.map((row) => row.span).filter((item): item is OtlpSpan => !isLogRecord(item))
    const records = rows.map((row) => row.span).filter(isLogRecord)
    if (spans.length === 0) {
      // Log records alone: the spans they name never came within the pending window.
      countUnmatched('no_span', records.length, [pending.trace_id])
      return { created: false, forget: rows.map((row) => row.span_id) }
    }
    const { input, dropped, unmatched: strays, scores: evaluations } = assembleTrace(spans, records)
    const context = { trace_id: pending.trace_id, project_id: pending.project_id }
    let created = false
    try {
      const result = await ingest.ingestOne(input, { project_id: pending.project_id, environment: pending.environment })
      created = result.created
      if (!created) {
        // Stored already: by a run that stopped before forgetting these spans (then they are all in it), or through
        // another door with the same id.
        const held = spanIdsOf(result.trace)
        const late = rows.filter((row) => !held.has(row.span_id)).length
        if (late > 0) log.warn({ ...context, spans: late }, 'OTLP spans came after their trace was stored; not added')
      }
      if (dropped > 0)
        log.warn({ ...context, spans: dropped }, 'OTLP trace has more spans than steps allowed; extra spans not stored')
      if (created) countUnmatched('no_span', strays, [pending.trace_id])
      await recordEvaluations(evaluations, pending.project_id, context)
    } catch (err) {
      // Only what is permanent drops the spans; anything else (the store is down) leaves them pending for a retry.
      if (err instanceof TraceIdTaken) {
        log.warn({ ...context, spans: rows.length }, 'OTLP trace id is used by another project; spans not stored')
      } else if (err instanceof InvalidInput) {
        // Never on what a span carries (assembly cuts and falls back), so a bug: keep every span, say so, retry later.
        const wait = held.get(pending.trace_id)?.wait ?? INVALID_RETRY_MS
        held.set(pending.trace_id, { at: now() + wait, wait: Math.min(wait * 2, INVALID_RETRY_MAX_MS) })
        log.error(
          { ...context, err, spans: rows.length, retry_in_ms: wait },
          'OTLP trace failed validation; its spans stay pending and it will be tried again',
        )
        return { created: false, forget: null }
      } else {
        throw err
      }
    }
    return { created, forget: rows.map((row) => row.span_id) }
  }

  /**
   * Stores the due traces SWEEP_CHUNK at a time: the traces of a chunk are ingested together (so they share a
   * transaction, group-commit.ts), then their spans are forgotten in one more. A trace stored whose spans were not yet
   * forgotten (a crash in between) is found stored next time, and its spans forgotten then.
   */
  async function sweep(): Promise<number> {
    const at = now()
    let stored = 0
    let next = Number.POSITIVE_INFINITY
    const due: PendingTrace[] = []
    for (const pending of await store.pending.listTraces()) {
      const when = dueAt(pending)
      if (when > at) next = Math.min(next, when)
      else due.push(pending)
    }
    for (let i = 0; i < due.length; i += SWEEP_CHUNK) {
      const chunk = due.slice(i, i + SWEEP_CHUNK)
      const results = await Promise.allSettled(chunk.map(materialize))
      const forget: { trace_id: string; span_ids: string[] }[] = []
      let failure: { reason: unknown } | null = null
      results.forEach((result, k) => {
        if (result.status === 'rejected') {
          failure ??= { reason: result.reason }
          return
        }
        if (result.value.created) stored++
        if (result.value.forget) forget.push({ trace_id: chunk[k]!.trace_id, span_ids: result.value.forget })
      })
      await store.pending.delete(forget)
      for (const { trace_id } of forget) held.delete(trace_id)
      if (failure) throw (failure as { reason: unknown }).reason
    }
    if (next !== Number.POSITIVE_INFINITY) arm(next)
    return stored
  }

  const service: OtlpService = {
    async receive(body, owner) {
      const { spans: read, rejected } = readExportRequest(body)
      const received = read.length + [...rejected.values()].reduce((sum, n) => sum + n, 0)
      const spans = read
        .filter((span) => {
          const problem = spanOutOfBounds(span)
          if (problem !== null) count(rejected, problem)
          return problem === null
        })
        .map((span) => (redact ? redactSpan(span, redact) : span))
      const at = now()
      const outcomes = await store.pending.add(
        spans.map((span) => ({
          trace_id: span.trace_id,
          span_id: span.span_id,
          project_id: owner.project_id,
          environment: owner.environment,
          is_root: isRoot(span),
          received_at: at,
          span,
        })),
      )

      // A span whose trace is already stored: a re-send of one it holds is fine (exporters retry); any other is late.
      const heldByStored = new Map<string, Set<string>>()
      for (const [i, outcome] of outcomes.entries()) {
        const traceId = spans[i]!.trace_id
        if (outcome === 'stored' && !heldByStored.has(traceId)) {
          const trace = await store.traces.get(traceId)
          heldByStored.set(traceId, trace ? spanIdsOf(trace) : new Set())
        }
      }
      const late = new Set<string>()
      const foreign = new Set<string>()
      let lateSpans = 0
      let foreignSpans = 0
      let due = Number.POSITIVE_INFINITY
      outcomes.forEach((outcome, i) => {
        const span = spans[i]!
        if (outcome === 'stored' && !heldByStored.get(span.trace_id)?.has(span.span_id)) {
          late.add(span.trace_id)
          lateSpans++
        } else if (outcome === 'conflict') {
          foreign.add(span.trace_id)
          foreignSpans++
        } else if (outcome === 'added') {
          due = Math.min(due, at + (isRoot(span) ? rootGraceMs : rootlessWaitMs))
        }
      })
      if (lateSpans > 0) {
        count(
          rejected,
          `arrived after their trace was stored (${quote(late)}): Loupe stores a trace ${rootGraceMs} ms after its ` +
            'root span arrives (OTLP_ROOT_GRACE_MS) and never changes it afterwards',
          lateSpans,
        )
        log.warn({ trace_ids: [...late], spans: lateSpans }, 'OTLP spans came after their trace was stored; rejected')
      }
      if (foreignSpans > 0)
        count(rejected, `belong to a trace id used by another project (${quote(foreign)})`, foreignSpans)

      if (due <= now()) await sweepSafely()
      else if (due !== Number.POSITIVE_INFINITY) arm(due)

      return rejectionMessage(rejected, received, ['span', 'spans'])
    },

    async receiveLogs(body, owner) {
      const read = readLogsRequest(body)
      const received = read.records.length + read.unmatched + read.ignored
      if (read.unmatched > 0) countUnmatched('no_span', read.unmatched, [])
      const records = redact ? read.records.map((r) => redactLogRecord(r, redact)) : read.records
      const at = now()
      const outcomes = await store.pending.add(
        records.map((record) => ({
          trace_id: record.trace_id,
          span_id: logRecordKey(record),
          project_id: owner.project_id,
          environment: owner.environment,
          is_root: false,
          received_at: at,
          span: record,
        })),
      )
      const rejected = new Map<string, number>()
      const late = new Set<string>()
      const foreign = new Set<string>()
      let lateRecords = 0
      let foreignRecords = 0
      let added = false
      outcomes.forEach((outcome, i) => {
        const traceId = records[i]!.trace_id
        if (outcome === 'stored') {
          late.add(traceId)
          lateRecords++
        } else if (outcome === 'conflict') {
          foreign.add(traceId)
          foreignRecords++
        } else if (outcome === 'added') added = true
      })
      if (foreignRecords > 0)
        count(rejected, `belong to a trace id used by another project (${quote(foreign)})`, foreignRecords)
      if (lateRecords > 0) {
        countUnmatched('late', lateRecords, [...late])
        count(
          rejected,
          `arrived after their trace was stored (${quote(late)}): Loupe stores a trace ${rootGraceMs} ms after its ` +
            'root span arrives (OTLP_ROOT_GRACE_MS) and never changes it afterwards',
          lateRecords,
        )
      }
      // A trace that has only these records so far waits for its spans as a rootless one would.
      if (added) arm(at + rootlessWaitMs)
      return rejectionMessage(rejected, received, ['log record', 'log records'])
    },

    async materializeDue() {
      // One sweep at a time; a call during a sweep waits for it, then sweeps again (more may be due by then).
      while (sweeping) await sweeping.catch(() => 0)
      sweeping = sweep()
      try {
        return await sweeping
      } finally {
        sweeping = null
      }
    },

    async start() {
      stopped = false
      await sweepSafely()
    },

    stats() {
      return { failed_traces: held.size, unmatched_log_records: unmatched.no_span + unmatched.late }
    },

    unmatchedLogRecords() {
      return { ...unmatched }
    },

    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      timer = null
      timerAt = Number.POSITIVE_INFINITY
      await sweeping?.catch(() => 0)
    },
  }
  return service
}
