// Deleting traces and projects: in small batches (each one short transaction that takes the traces out of the
// rollups), resting between batches as long as the last one held the store so that reads and ingest stay fast
// while a large deletion runs; each batch is announced on /ws as trace.deleted, and its space handed back where the store can.
import { setTimeout as sleep } from 'node:timers/promises'
import type { DeletedTrace } from '../../schemas/index.js'
import { ProjectNotFound, TraceNotFound } from '../errors.js'
import type { EventHub } from '../events/hub.js'
import type { ProjectRemoval, Store, TraceFilter } from '../store/types.js'

/** Traces deleted per transaction, at most. */
export const DELETE_BATCH = 500
/** The first batch of a deletion, before its pace is known (at 1M traces 50 took about 100 ms); it may double each batch. */
const FIRST_BATCH = 10
/**
 * How long one batch should hold the store: the next batch is sized from how long the last took, so a read or an
 * ingest that arrives meanwhile waits about this long (SQLite answers on the event loop), whatever the traces' size.
 */
export const BATCH_BUDGET_MS = 15
/**
 * The same where queries do not run on the event loop (PostgreSQL): a batch holds only the rollup rows it changes,
 * which an ingest touching the same rows waits for, while reads go on from their snapshots. A batch there also costs
 * a fixed ~20 ms of round trips, which a 15 ms budget would spend on a handful of traces each time. Reads still share
 * the machine's cores and the event loop with a batch (its statements, and working out its rollup changes): at 100 ms
 * a read during a deletion of 100k traces out of 1M sometimes waited 50–60 ms; at 50 ms the longest wait was 38–42 ms,
 * for about a quarter less pace.
 */
export const ASYNC_BATCH_BUDGET_MS = 50

export interface DeletionService {
  /** Deletes one trace within `scope` (null: any project); 404 when it is unknown or outside the scope. */
  deleteTrace(traceId: string, scope: string | null): Promise<void>
  /** Deletes every trace matching the filter, batch by batch; resolves with how many, per project. */
  deleteMatching(
    filter: TraceFilter,
    options?: { max?: number; shouldStop?: () => boolean },
  ): Promise<Map<string, number>>
  /** Revokes a project's keys, deletes its traces, then the project with its keys and pending OTLP spans. */
  deleteProject(projectId: string): Promise<ProjectRemoval & { traces: number }>
}

export interface DeletionDeps {
  store: Store
  hub: EventHub
  now: () => number
  batch?: number
}

const count = (byProject: Map<string, number>, deleted: readonly DeletedTrace[]) => {
  for (const d of deleted) byProject.set(d.project_id, (byProject.get(d.project_id) ?? 0) + 1)
}

export const totalOf = (byProject: ReadonlyMap<string, number>) => [...byProject.values()].reduce((a, b) => a + b, 0)

export function createDeletionService({ store, hub, now, batch = DELETE_BATCH }: DeletionDeps): DeletionService {
  const budget = store.blocksEventLoop ? BATCH_BUDGET_MS : ASYNC_BATCH_BUDGET_MS
  /**
   * One step that holds the store (a batch, a step of giving space back), then a rest as long as the step held it: a
   * request takes several turns of the event loop (body, hooks, handler), and one turn alone would let the next step
   * in before it is answered. Two steps never follow each other without a rest.
   */
  async function step<T>(work: () => Promise<T>): Promise<{ result: T; took: number }> {
    const started = performance.now()
    const result = await work()
    const took = performance.now() - started
    await sleep(Math.min(Math.max(took, 1), 4 * budget))
    return { result, took }
  }

  /** What the batches left of the freed space goes back too, a short step at a time. */
  async function reclaimRest() {
    while ((await step(() => store.reclaimSpace())).result) {}
  }

  async function deleteMatching(
    filter: TraceFilter,
    { max = Number.POSITIVE_INFINITY, shouldStop = () => false }: { max?: number; shouldStop?: () => boolean } = {},
  ) {
    const byProject = new Map<string, number>()
    let total = 0
    let size = Math.min(batch, FIRST_BATCH)
    while (total < max && !shouldStop()) {
      const limit = Math.min(size, max - total)
      const { result: deleted, took } = await step(() => store.traces.delete({ filter, limit }))
      count(byProject, deleted)
      total += deleted.length
      hub.publishDeleted(deleted)
      if (deleted.length < limit) break
      // At most twice the last size: a batch that ran from cached pages says little of the next one, and at 1M traces
      // a batch five times the size of a fast one often took 100 ms or more.
      const paced = Math.round((size * budget) / Math.max(took, 1))
      size = Math.max(1, Math.min(batch, 2 * size, paced))
      // The space a batch freed goes back as the next step, so that the file does not grow meanwhile.
      await step(() => store.reclaimSpace())
    }
    await reclaimRest()
    return byProject
  }

  return {
    async deleteTrace(traceId, scope) {
      const deleted = await store.traces.delete({
        filter: { project_id: scope ?? undefined },
        trace_ids: [traceId],
        limit: 1,
      })
      if (deleted.length === 0) throw new TraceNotFound(traceId)
      hub.publishDeleted(deleted)
      await reclaimRest()
    },

    deleteMatching,

    async deleteProject(projectId) {
      if (!(await store.projects.get(projectId))) throw new ProjectNotFound(projectId)
      // No key of the project may store a trace once its deletion has begun.
      for (const key of await store.projects.listApiKeys(projectId)) {
        if (key.revoked_at === null) await store.projects.revokeApiKey(key.key_id, now())
      }
      let traces = 0
      // A trace stored meanwhile (an OTLP trace falling due) is deleted by one more round.
      for (;;) {
        traces += totalOf(await deleteMatching({ project_id: projectId }))
        const removed = await store.projects.delete(projectId)
        if (removed === 'not-found') throw new ProjectNotFound(projectId)
        if (removed !== 'has-traces') return { ...removed, traces }
      }
    },
  }
}
