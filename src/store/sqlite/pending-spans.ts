// OTLP spans waiting for their trace on SQLite (the otlp_pending_spans table): kept idempotently, guarded by
// project, summed up per trace for the OTLP timer, read back in arrival order. Prepared once, like the trace writes:
// every export and every materialization runs these.
import type { PendingSpan, PendingSpanOutcome, PendingSpanStore, PendingTrace } from '../types.js'
import type { SqliteContext } from './context.js'
import type { PendingSpanRow } from './tables.js'
import { writeTransaction } from './write-transaction.js'

/** A row as better-sqlite3 returns it: the boolean as 0/1, the span still JSON text. */
type RawPendingSpanRow = Omit<PendingSpanRow, 'is_root' | 'span'> & { is_root: number; span: string }

export function createSqlitePendingSpanStore({ sqlite, logRoom }: SqliteContext): PendingSpanStore {
  const traceOwner = sqlite.prepare<[string], { project_id: string }>(
    'select project_id from traces where trace_id = ?',
  )
  const otherPendingOwner = sqlite.prepare<[string, string], { project_id: string }>(
    'select project_id from otlp_pending_spans where trace_id = ? and project_id <> ? limit 1',
  )
  const insert = sqlite.prepare<[string, string, string, string, number, number, string]>(
    `insert into otlp_pending_spans (trace_id, span_id, project_id, environment, is_root, received_at, span)
     values (?, ?, ?, ?, ?, ?, ?) on conflict do nothing`,
  )
  const summaries = sqlite.prepare<[], PendingTrace>(
    `select trace_id, max(project_id) as project_id, max(environment) as environment,
            min(case when is_root then received_at end) as root_received_at,
            max(received_at) as last_received_at, count(*) as spans
     from otlp_pending_spans group by trace_id`,
  )
  // rowid grows with every insert (it is max + 1), so this is the order the spans arrived in.
  const ofTrace = sqlite.prepare<[string], RawPendingSpanRow>(
    `select trace_id, span_id, project_id, environment, is_root, received_at, span
     from otlp_pending_spans where trace_id = ? order by rowid`,
  )
  const remove = sqlite.prepare<[string, string]>('delete from otlp_pending_spans where trace_id = ? and span_id = ?')

  /**
   * A span joins its trace's pending spans, unless that trace is already stored or belongs to another project. An
   * export carries many spans of few traces: each trace (and project) is looked up once.
   */
  const keep = writeTransaction(sqlite, (spans: PendingSpan[]): PendingSpanOutcome[] => {
    const verdicts = new Map<string, 'stored' | 'conflict' | null>()
    const verdictOf = (s: PendingSpan) => {
      const stored = traceOwner.get(s.trace_id)
      if (stored) return stored.project_id === s.project_id ? 'stored' : 'conflict'
      return otherPendingOwner.get(s.trace_id, s.project_id) ? 'conflict' : null
    }
    return spans.map((s) => {
      const key = `${s.project_id}\u0000${s.trace_id}`
      let verdict = verdicts.get(key)
      if (verdict === undefined) {
        verdict = verdictOf(s)
        verdicts.set(key, verdict)
      }
      if (verdict !== null) return verdict
      const args = [s.trace_id, s.span_id, s.project_id, s.environment, s.is_root ? 1 : 0, s.received_at] as const
      return insert.run(...args, JSON.stringify(s.span)).changes > 0 ? 'added' : 'duplicate'
    })
  })
  const forget = writeTransaction(sqlite, (spans: readonly { trace_id: string; span_ids: readonly string[] }[]) => {
    for (const { trace_id, span_ids } of spans) for (const spanId of span_ids) remove.run(trace_id, spanId)
  })

  return {
    async add(spans) {
      await logRoom()
      return keep(spans)
    },

    async listTraces() {
      return summaries.all()
    },

    async get(traceId) {
      return ofTrace.all(traceId).map((row) => ({ ...row, is_root: row.is_root === 1, span: JSON.parse(row.span) }))
    },

    async delete(spans) {
      if (spans.length > 0) forget(spans)
    },
  }
}
