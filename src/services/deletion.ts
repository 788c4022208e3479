// Deleting traces and projects: in small batches (each one short transaction that takes the traces out of the
// rollups), yielding to the event loop between batches so that reads and ingest stay fast while a large deletion
// runs; each batch is announced on /ws as trace.deleted, and its space handed back where the store can.
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { ProjectNotFound, TraceNotFound } from '../errors.js'
import type { EventHub } from '../events/hub.js'
import type { DeletedTrace, ProjectRemoval, Store, TraceFilter } from '../store/types.js'

/** Traces deleted per transaction. */
export const DELETE_BATCH = 500

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
  async function deleteMatching(
    filter: TraceFilter,
    { max = Number.POSITIVE_INFINITY, shouldStop = () => false }: { max?: number; shouldStop?: () => boolean } = {},
  ) {
    const byProject = new Map<string, number>()
    let total = 0
    while (total < max && !shouldStop()) {
      const deleted = await store.deleteTraces({ filter, limit: Math.min(batch, max - total) })
      count(byProject, deleted)
      total += deleted.length
      hub.publishDeleted(deleted)
      if (deleted.length > 0) await store.reclaimSpace()
      if (deleted.length < batch) break
      // Between two batches, every request that waited gets its turn.
      await yieldToLoop()
    }
    return byProject
  }

  return {
    async deleteTrace(traceId, scope) {
      const deleted = await store.deleteTraces({
        filter: { project_id: scope ?? undefined },
        trace_ids: [traceId],
        limit: 1,
      })
      if (deleted.length === 0) throw new TraceNotFound(traceId)
      hub.publishDeleted(deleted)
      await store.reclaimSpace()
    },

    deleteMatching,

    async deleteProject(projectId) {
      if (!(await store.getProject(projectId))) throw new ProjectNotFound(projectId)
      // No key of the project may store a trace once its deletion has begun.
      for (const key of await store.listApiKeys(projectId)) {
        if (key.revoked_at === null) await store.revokeApiKey(key.key_id, now())
      }
      let traces = 0
      // A trace stored meanwhile (an OTLP trace falling due) is deleted by one more round.
      for (;;) {
        traces += totalOf(await deleteMatching({ project_id: projectId }))
        const removed = await store.deleteProject(projectId)
        if (removed === 'not-found') throw new ProjectNotFound(projectId)
        if (removed !== 'has-traces') return { ...removed, traces }
      }
    },
  }
}
