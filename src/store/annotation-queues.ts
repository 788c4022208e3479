// Annotation queues and their items, written once for both databases: the reads over a dialect's Query, the writes as
// plans (score-writes.ts) that each dialect runs in one of its transactions (sqlite/annotation.ts,
// postgres/annotation.ts). A hold is taken by one statement — an insert that, on conflict, updates the item only
// while it is free — so two annotators asking at once can never both hold one trace: SQLite runs one writer at a
// time, and PostgreSQL's insert-on-conflict locks the row and checks the condition again on its newest version.

import { type Plan, type PlanDialect, run } from './plan.js'
import type { Query } from './read-queries.js'
import type { AnnotationItemRecord, AnnotationQueueRecord, AnnotationStore } from './types.js'

const QUEUE_COLUMNS = 'queue_id, name, project_id, description, filter, score_names, created_at'
const ITEM_COLUMNS = 'trace_id, held_by, held_until, done_by, done_at'

const parsed = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T
const epoch = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))

const queueOf = (r: Record<string, unknown>): AnnotationQueueRecord => ({
  queue_id: r.queue_id as string,
  name: r.name as string,
  project_id: r.project_id as string,
  description: (r.description as string | null) ?? null,
  filter: parsed<Record<string, unknown>>(r.filter),
  score_names: parsed<string[]>(r.score_names),
  created_at: Number(r.created_at),
})

const itemOf = (r: Record<string, unknown>): AnnotationItemRecord => ({
  trace_id: r.trace_id as string,
  held_by: (r.held_by as string | null) ?? null,
  held_until: epoch(r.held_until),
  done_by: (r.done_by as string | null) ?? null,
  done_at: epoch(r.done_at),
})

function* createQueue(d: PlanDialect, q: AnnotationQueueRecord): Plan<void> {
  yield* run(
    (b) =>
      `insert into annotation_queues (${QUEUE_COLUMNS})
       values (${b(q.queue_id)}, ${b(q.name)}, ${b(q.project_id)}, ${b(q.description)}, ${d.json(b, q.filter)},
               ${d.json(b, q.score_names)}, ${b(q.created_at)})`,
  )
}

function* updateQueue(d: PlanDialect, q: AnnotationQueueRecord): Plan<boolean> {
  const rows = yield* run(
    (b) =>
      `update annotation_queues set name = ${b(q.name)}, description = ${b(q.description)},
         filter = ${d.json(b, q.filter)}, score_names = ${d.json(b, q.score_names)}
       where queue_id = ${b(q.queue_id)} returning queue_id`,
  )
  return rows.length > 0
}

function* deleteQueue(queueId: string): Plan<boolean> {
  yield* run((b) => `delete from annotation_items where queue_id = ${b(queueId)}`)
  const rows = yield* run((b) => `delete from annotation_queues where queue_id = ${b(queueId)} returning queue_id`)
  return rows.length > 0
}

function* claim(queueId: string, traceId: string, annotator: string, now: number, until: number): Plan<boolean> {
  const rows = yield* run(
    (b) =>
      `insert into annotation_items (queue_id, trace_id, held_by, held_until)
       values (${b(queueId)}, ${b(traceId)}, ${b(annotator)}, ${b(until)})
       on conflict (queue_id, trace_id) do update set held_by = excluded.held_by, held_until = excluded.held_until
       where annotation_items.done_at is null
         and (annotation_items.held_by is null or annotation_items.held_by = excluded.held_by
              or annotation_items.held_until <= ${b(now)})
       returning trace_id`,
  )
  return rows.length > 0
}

function* markDone(
  queueId: string,
  traceId: string,
  annotator: string,
  now: number,
): Plan<AnnotationItemRecord | null> {
  // Done once: a second mark keeps the first's author and time; a hold of someone else (still running) refuses it.
  const rows = yield* run(
    (b) =>
      `insert into annotation_items (queue_id, trace_id, done_by, done_at)
       values (${b(queueId)}, ${b(traceId)}, ${b(annotator)}, ${b(now)})
       on conflict (queue_id, trace_id) do update set held_by = null, held_until = null,
         done_by = coalesce(annotation_items.done_by, excluded.done_by),
         done_at = coalesce(annotation_items.done_at, excluded.done_at)
       where annotation_items.done_at is not null or annotation_items.held_by is null
         or annotation_items.held_by = excluded.done_by or annotation_items.held_until <= ${b(now)}
       returning ${ITEM_COLUMNS}`,
  )
  return rows[0] ? itemOf(rows[0]) : null
}

function* release(queueId: string, traceId: string, annotator: string): Plan<boolean> {
  const rows = yield* run(
    (b) =>
      `update annotation_items set held_by = null, held_until = null
       where queue_id = ${b(queueId)} and trace_id = ${b(traceId)} and held_by = ${b(annotator)} and done_at is null
       returning trace_id`,
  )
  return rows.length > 0
}

/** The annotation store of a dialect: `query` reads, `write` runs a plan in one transaction. */
export function createAnnotationStore(
  query: Query,
  write: <T>(plan: Plan<T>) => Promise<T>,
  d: PlanDialect,
): AnnotationStore {
  return {
    createQueue: (queue) => write(createQueue(d, queue)),
    async listQueues(projectId) {
      const rows = await query<Record<string, unknown>>(
        (b) =>
          `select ${QUEUE_COLUMNS} from annotation_queues
           ${projectId === undefined ? '' : `where project_id = ${b(projectId)}`}
           order by created_at desc, queue_id desc`,
      )
      return rows.map(queueOf)
    },
    async getQueue(queueId) {
      const [row] = await query<Record<string, unknown>>(
        (b) => `select ${QUEUE_COLUMNS} from annotation_queues where queue_id = ${b(queueId)}`,
      )
      return row ? queueOf(row) : null
    },
    updateQueue: (queue) => write(updateQueue(d, queue)),
    deleteQueue: (queueId) => write(deleteQueue(queueId)),
    async doneCounts(queueIds) {
      const out = new Map<string, number>()
      if (queueIds.length === 0) return out
      const rows = await query<{ queue_id: string; n: unknown }>(
        (b) =>
          `select queue_id, count(*) as n from annotation_items
           where ${d.inList(b, 'queue_id', queueIds)} and done_at is not null group by queue_id`,
      )
      for (const r of rows) out.set(r.queue_id, Number(r.n))
      return out
    },
    async items(queueId, traceIds) {
      const out = new Map<string, AnnotationItemRecord>()
      if (traceIds.length === 0) return out
      const rows = await query<Record<string, unknown>>(
        (b) =>
          `select ${ITEM_COLUMNS} from annotation_items
           where queue_id = ${b(queueId)} and ${d.inList(b, 'trace_id', traceIds)}`,
      )
      for (const r of rows) out.set(r.trace_id as string, itemOf(r))
      return out
    },
    async heldBy(queueId, annotator, now) {
      const rows = await query<{ trace_id: string }>(
        (b) =>
          `select trace_id from annotation_items
           where queue_id = ${b(queueId)} and held_by = ${b(annotator)} and held_until > ${b(now)} and done_at is null
           order by held_until, trace_id`,
      )
      return rows.map((r) => r.trace_id)
    },
    claim: (queueId, traceId, annotator, now, until) => write(claim(queueId, traceId, annotator, now, until)),
    markDone: (queueId, traceId, annotator, now) => write(markDone(queueId, traceId, annotator, now)),
    release: (queueId, traceId, annotator) => write(release(queueId, traceId, annotator)),
  }
}
