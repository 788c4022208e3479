// The retention job: every RETENTION_INTERVAL_MS it deletes, project by project, the traces older than the
// project's retention in days and the oldest past its maximum count (the project's own settings, else the
// server's). It deletes through the deletion service — small batches, rollups kept exact, trace.deleted announced —
// and reports what it deleted in the log and in /metrics.
import type { ProjectRetention, RetentionSettings } from '../../schemas/index.js'
import { repeatEvery } from '../lib/repeat.js'
import type { Store } from '../store/types.js'
import { type DeletionService, totalOf } from './deletion.js'

const DAY_MS = 86_400_000

export interface RetentionDefaults {
  retentionDays: number
  retentionMaxTraces: number
}

export interface RetentionReport {
  project_id: string
  reason: 'age' | 'count'
  deleted: number
}

export interface RetentionService {
  /** A project's settings and what applies to it; null when there is no such project. */
  get(projectId: string): Promise<ProjectRetention | null>
  /** Sets a project's own settings; null when there is no such project. */
  set(projectId: string, settings: RetentionSettings): Promise<ProjectRetention | null>
  /** One pass over every project; resolves with what it deleted. */
  runOnce(): Promise<RetentionReport[]>
  start(): void
  /** Stops the timer and waits for a pass in progress (it stops between two batches). */
  stop(): Promise<void>
}

export interface RetentionDeps {
  store: Store
  deletion: DeletionService
  defaults: RetentionDefaults
  intervalMs: number
  now: () => number
  onDeleted: (report: RetentionReport) => void
  onError: (err: unknown) => void
}

/** What applies: a project's own value when it has one, else the server's (0: off). */
export const effective = (own: RetentionSettings | undefined, defaults: RetentionDefaults) => ({
  retention_days: own?.retention_days ?? defaults.retentionDays,
  retention_max_traces: own?.retention_max_traces ?? defaults.retentionMaxTraces,
})

export function createRetentionService(deps: RetentionDeps): RetentionService {
  const { store, deletion, defaults } = deps
  let running: Promise<RetentionReport[]> | null = null
  let stopped = false
  const shouldStop = () => stopped

  const describe = (projectId: string, own: RetentionSettings | undefined): ProjectRetention => ({
    project_id: projectId,
    retention_days: own?.retention_days ?? null,
    retention_max_traces: own?.retention_max_traces ?? null,
    effective: effective(own, defaults),
  })

  async function pass(): Promise<RetentionReport[]> {
    const reports: RetentionReport[] = []
    const own = new Map((await store.projects.listRetention()).map((r) => [r.project_id, r]))
    for (const project of await store.projects.list()) {
      if (stopped) break
      const { retention_days: days, retention_max_traces: max } = effective(own.get(project.project_id), defaults)
      const project_id = project.project_id
      if (days > 0) {
        const until = deps.now() - days * DAY_MS
        const deleted = totalOf(await deletion.deleteMatching({ project_id, until }, { shouldStop }))
        if (deleted > 0) reports.push({ project_id, reason: 'age', deleted })
      }
      if (max > 0 && !stopped) {
        // The rollups count the project's traces: no scan.
        const { total } = await store.traces.list({ project_id }, { limit: 0, offset: 0 })
        if (total > max) {
          const deleted = totalOf(await deletion.deleteMatching({ project_id }, { max: total - max, shouldStop }))
          if (deleted > 0) reports.push({ project_id, reason: 'count', deleted })
        }
      }
    }
    for (const report of reports) deps.onDeleted(report)
    return reports
  }

  const service: RetentionService = {
    async get(projectId) {
      if (!(await store.projects.get(projectId))) return null
      const own = (await store.projects.listRetention()).find((r) => r.project_id === projectId)
      return describe(projectId, own)
    },

    async set(projectId, settings) {
      if (!(await store.projects.setRetention(projectId, settings))) return null
      return describe(projectId, settings)
    },

    runOnce() {
      // One pass at a time: a manual run joins the one under way.
      running ??= pass().finally(() => {
        running = null
      })
      return running
    },

    start() {
      stopped = false
      job.start()
    },

    async stop() {
      stopped = true
      job.stop()
      await running?.catch(() => [])
    },
  }
  const job = repeatEvery(deps.intervalMs, () => service.runOnce(), deps.onError)
  return service
}
