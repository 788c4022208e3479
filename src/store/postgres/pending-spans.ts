// OTLP spans waiting for their trace on PostgreSQL (the otlp_pending_spans table): the same rules as SQLite's
// (src/store/sqlite/pending-spans.ts) — kept idempotently, guarded by project, summed up per trace for the OTLP
// timer, read back in arrival order. Span JSON goes through the U+0000 escape like every stored text (nul.ts).
import type pg from 'pg'
import type { PendingSpan, PendingSpanOutcome, PendingTrace, Store } from '../types.js'
import { encodeJson, parseEncodedJson } from './nul.js'
import type { Queryable } from './trace-queries.js'

type PendingSpanQueries = Pick<
  Store,
  'addPendingSpans' | 'listPendingTraces' | 'getPendingSpans' | 'deletePendingSpans'
>

export function createPendingSpanQueries(
  pool: pg.Pool,
  transaction: <T>(fn: (client: Queryable) => Promise<T>) => Promise<T>,
): PendingSpanQueries {
  return {
    async addPendingSpans(spans) {
      if (spans.length === 0) return []
      return transaction(async (client) => {
        const outcomes: PendingSpanOutcome[] = []
        for (const s of spans) {
          const stored = await client.query<{ project_id: string }>(
            'select project_id from trace_ids where trace_id = $1',
            [s.trace_id],
          )
          const owner = stored.rows[0]
          if (owner) {
            outcomes.push(owner.project_id === s.project_id ? 'stored' : 'conflict')
            continue
          }
          const other = await client.query(
            'select 1 from otlp_pending_spans where trace_id = $1 and project_id <> $2 limit 1',
            [s.trace_id, s.project_id],
          )
          if (other.rows.length > 0) {
            outcomes.push('conflict')
            continue
          }
          const inserted = await client.query(
            `insert into otlp_pending_spans (project_id, trace_id, span_id, environment, is_root, received_at, span)
             values ($1, $2, $3, $4, $5, $6, $7::jsonb) on conflict do nothing returning 1`,
            [s.project_id, s.trace_id, s.span_id, s.environment, s.is_root, s.received_at, encodeJson(s.span)],
          )
          outcomes.push(inserted.rows.length > 0 ? 'added' : 'duplicate')
        }
        return outcomes
      })
    },

    async listPendingTraces() {
      const result = await pool.query<PendingTrace>(
        `select trace_id, max(project_id) as project_id, max(environment) as environment,
                min(case when is_root then received_at end) as root_received_at,
                max(received_at) as last_received_at, count(*)::int as spans
         from otlp_pending_spans group by trace_id`,
      )
      return result.rows
    },

    async getPendingSpans(traceId) {
      const result = await pool.query<Omit<PendingSpan, 'span'> & { span: string }>(
        `select trace_id, span_id, project_id, environment, is_root, received_at, span::text as span
         from otlp_pending_spans where trace_id = $1 order by seq`,
        [traceId],
      )
      return result.rows.map((row) => ({ ...row, span: parseEncodedJson(row.span) as PendingSpan['span'] }))
    },

    async deletePendingSpans(spans) {
      const pairs = spans.flatMap(({ trace_id, span_ids }) => span_ids.map((spanId) => [trace_id, spanId] as const))
      if (pairs.length === 0) return
      await pool.query(
        `delete from otlp_pending_spans where (trace_id, span_id) in
           (select * from unnest($1::text[], $2::text[]))`,
        [pairs.map(([traceId]) => traceId), pairs.map(([, spanId]) => spanId)],
      )
    },
  }
}
