// OTLP spans waiting for their trace on PostgreSQL (the otlp_pending_spans table): the same rules as SQLite's
// (src/store/sqlite/pending-spans.ts) — kept idempotently, guarded by project, summed up per trace for the OTLP
// timer, read back in arrival order. Span JSON goes through the U+0000 escape like every stored text (nul.ts).
import type { PendingSpan, PendingSpanOutcome, PendingSpanStore, PendingTrace } from '../types.js'
import type { PostgresContext } from './context.js'
import { encodeJson, parseEncodedJson } from './nul.js'

export function createPostgresPendingSpanStore({ pool, transaction }: PostgresContext): PendingSpanStore {
  return {
    async add(spans) {
      if (spans.length === 0) return []
      // A few statements for the whole export, not three per span: who holds each trace, which projects its
      // pending spans belong to, then one insert of the spans that may be kept. The outcomes are decided span by
      // span, in order, as if each were added alone.
      const traceIds = [...new Set(spans.map((s) => s.trace_id))]
      return transaction(async (client) => {
        const owners = new Map(
          (
            await client.query<{ trace_id: string; project_id: string }>(
              'select trace_id, project_id from trace_ids where trace_id = any($1::text[])',
              [traceIds],
            )
          ).rows.map((r) => [r.trace_id, r.project_id]),
        )
        const pendingProjects = new Map<string, Set<string>>()
        const pendingOf = (traceId: string) => {
          let set = pendingProjects.get(traceId)
          if (!set) {
            set = new Set()
            pendingProjects.set(traceId, set)
          }
          return set
        }
        const waiting = await client.query<{ trace_id: string; project_id: string }>(
          'select distinct trace_id, project_id from otlp_pending_spans where trace_id = any($1::text[])',
          [traceIds],
        )
        for (const r of waiting.rows) pendingOf(r.trace_id).add(r.project_id)

        const outcomes: (PendingSpanOutcome | undefined)[] = []
        const keyOf = (s: PendingSpan) => JSON.stringify([s.project_id, s.trace_id, s.span_id])
        const candidates: PendingSpan[] = []
        const candidateAt = new Map<string, number>()
        spans.forEach((s, i) => {
          const owner = owners.get(s.trace_id)
          if (owner !== undefined) {
            outcomes.push(owner === s.project_id ? 'stored' : 'conflict')
            return
          }
          const projects = pendingOf(s.trace_id)
          if ([...projects].some((p) => p !== s.project_id)) {
            outcomes.push('conflict')
            return
          }
          // Decided once the insert answers; a second copy within the export is a duplicate of the first.
          outcomes.push(candidateAt.has(keyOf(s)) ? 'duplicate' : undefined)
          if (!candidateAt.has(keyOf(s))) {
            candidateAt.set(keyOf(s), i)
            candidates.push(s)
          }
          projects.add(s.project_id)
        })
        if (candidates.length > 0) {
          const inserted = await client.query<Pick<PendingSpan, 'project_id' | 'trace_id' | 'span_id'>>(
            `insert into otlp_pending_spans (project_id, trace_id, span_id, environment, is_root, received_at, span)
             select project_id, trace_id, span_id, environment, is_root, received_at, span::jsonb
             from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bool[], $6::int8[], $7::text[])
               with ordinality as t(project_id, trace_id, span_id, environment, is_root, received_at, span, ord)
             order by ord
             on conflict do nothing returning project_id, trace_id, span_id`,
            [
              candidates.map((s) => s.project_id),
              candidates.map((s) => s.trace_id),
              candidates.map((s) => s.span_id),
              candidates.map((s) => s.environment),
              candidates.map((s) => s.is_root),
              candidates.map((s) => s.received_at),
              candidates.map((s) => encodeJson(s.span)),
            ],
          )
          const added = new Set(inserted.rows.map((r) => keyOf(r as PendingSpan)))
          for (const [key, i] of candidateAt) outcomes[i] = added.has(key) ? 'added' : 'duplicate'
        }
        return outcomes as PendingSpanOutcome[]
      })
    },

    async listTraces() {
      const result = await pool.query<PendingTrace>(
        `select trace_id, max(project_id) as project_id, max(environment) as environment,
                min(case when is_root then received_at end) as root_received_at,
                max(received_at) as last_received_at, count(*)::int as spans
         from otlp_pending_spans group by trace_id`,
      )
      return result.rows
    },

    async get(traceId) {
      const result = await pool.query<Omit<PendingSpan, 'span'> & { span: string }>(
        `select trace_id, span_id, project_id, environment, is_root, received_at, span::text as span
         from otlp_pending_spans where trace_id = $1 order by seq`,
        [traceId],
      )
      return result.rows.map((row) => ({ ...row, span: parseEncodedJson(row.span) as PendingSpan['span'] }))
    },

    async delete(spans) {
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
