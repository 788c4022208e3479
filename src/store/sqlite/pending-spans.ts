// OTLP spans waiting for their trace on SQLite (the otlp_pending_spans table): kept idempotently, guarded by
// project, summed up per trace for the OTLP timer, read back in arrival order.
import type Database from 'better-sqlite3'
import { and, count, eq, inArray, ne, sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/better-sqlite3'
import type { PendingSpan, PendingSpanOutcome, PendingTrace, Store } from '../types.js'
import { otlpPendingSpans as p } from './tables.js'

/** SQLite bounds the parameters of one statement: deletes go in chunks of this many span ids. */
const DELETE_CHUNK = 500

type PendingSpanQueries = Pick<
  Store,
  'addPendingSpans' | 'listPendingTraces' | 'getPendingSpans' | 'deletePendingSpans'
>

export function createPendingSpanQueries(sqlite: Database.Database): PendingSpanQueries {
  const db = drizzle(sqlite, { schema: { otlpPendingSpans: p } })
  const traceOwner = sqlite.prepare<[string], { project_id: string }>(
    'select project_id from traces where trace_id = ?',
  )
  const otherPendingOwner = db
    .select({ project_id: p.project_id })
    .from(p)
    .where(and(eq(p.trace_id, sql.placeholder('id')), ne(p.project_id, sql.placeholder('project'))))
    .limit(1)
    .prepare()

  /** A span joins its trace's pending spans, unless that trace is already stored or belongs to another project. */
  const keep = sqlite.transaction((spans: PendingSpan[]): PendingSpanOutcome[] =>
    spans.map((span) => {
      const stored = traceOwner.get(span.trace_id)
      if (stored) return stored.project_id === span.project_id ? 'stored' : 'conflict'
      if (otherPendingOwner.get({ id: span.trace_id, project: span.project_id })) return 'conflict'
      const { changes } = db.insert(p).values(span).onConflictDoNothing().run()
      return changes > 0 ? 'added' : 'duplicate'
    }),
  )

  return {
    async addPendingSpans(spans) {
      return keep(spans)
    },

    async listPendingTraces(): Promise<PendingTrace[]> {
      return db
        .select({
          trace_id: p.trace_id,
          project_id: sql<string>`max(${p.project_id})`,
          environment: sql<PendingTrace['environment']>`max(${p.environment})`,
          root_received_at: sql<number | null>`min(case when ${p.is_root} then ${p.received_at} end)`,
          last_received_at: sql<number>`max(${p.received_at})`,
          spans: count(),
        })
        .from(p)
        .groupBy(p.trace_id)
        .all()
    },

    async getPendingSpans(traceId) {
      return (
        db
          .select()
          .from(p)
          .where(eq(p.trace_id, traceId))
          // rowid grows with every insert (it is max + 1), so this is the order the spans arrived in.
          .orderBy(sql`rowid`)
          .all()
      )
    },

    async deletePendingSpans(traceId, spanIds) {
      for (let i = 0; i < spanIds.length; i += DELETE_CHUNK) {
        db.delete(p)
          .where(and(eq(p.trace_id, traceId), inArray(p.span_id, spanIds.slice(i, i + DELETE_CHUNK))))
          .run()
      }
    },
  }
}
