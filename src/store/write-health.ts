// Whether the store takes writes, as GET /health and /metrics report it. A database that is full (a full disk:
// SQLITE_FULL, PostgreSQL's 53100) or read-only still answers reads, so a read (the health check's ping) cannot tell;
// what tells is a write. Every write of the store is watched: one that fails for want of space or of permission sets
// the state, the next that succeeds in adding rows clears it. While the state is not ok, a check writes (and removes) a probe row of
// PROBE_BYTES at most every PROBE_EVERY_MS, so that the state clears once there is room again even when no client
// writes (a load balancer that trusts the health check sends none).
import { RETRY_AFTER_S } from '../errors.js'
import { writeFailureOf } from './errors.js'
import type { LifecycleStore, Store } from './types.js'

export type WriteState = 'ok' | 'full' | 'read_only'

export interface WriteHealth {
  /** ok, or why the last write failed (until one succeeds). */
  state(): WriteState
  /** Epoch ms of the first failed write of the current state; null while ok. */
  since(): number | null
  /** The state, after a probe write when it is not ok and the last probe is older than PROBE_EVERY_MS. */
  check(): Promise<WriteState>
}

/** How often, at most, a store that cannot take writes is probed again. */
export const PROBE_EVERY_MS = RETRY_AFTER_S * 1000

/** The probe's size: more than a page, so that a database without a free page cannot take it. */
export const PROBE_BYTES = 65_536

/**
 * Which methods write: `adds` (rows that need space: its success clears the state), `changes` (in place or
 * removing: its failure sets the state, but its success proves nothing, a full disk still takes an update that fits
 * in its page), false (reads). Classed sub-store by sub-store: a new method of the store must be classed here, or the
 * build fails.
 */
type Writes = 'adds' | 'changes' | false
type Methods<T> = Exclude<keyof T, 'dialect' | 'blocksEventLoop'>
type SubStoreName = Exclude<keyof Store, keyof LifecycleStore>

const LIFECYCLE_WRITES: Record<Methods<LifecycleStore>, Writes> = {
  ping: false,
  probeWrite: 'adds',
  close: false,
  stats: false,
  reclaimSpace: 'changes',
  followReplicas: false,
}

const WRITES: { [S in SubStoreName]: Record<keyof Store[S], Writes> } = {
  traces: {
    insert: 'adds',
    get: false,
    list: false,
    listSummaries: false,
    analytics: false,
    failures: false,
    walk: false,
    delete: 'changes',
    reprice: 'changes',
  },
  scores: {
    targets: false,
    insert: 'adds',
    get: false,
    list: false,
    ofTrace: false,
    summaries: false,
    means: false,
    ofTraces: false,
    delete: 'changes',
    analytics: false,
    windowMean: false,
    listConfigs: false,
    getConfig: false,
    putConfig: 'adds',
    deleteConfig: 'changes',
  },
  evaluators: {
    list: false,
    get: false,
    put: 'adds',
    delete: 'changes',
  },
  evaluations: {
    enqueue: 'adds',
    claim: 'changes',
    release: 'changes',
    finish: 'changes',
    retry: 'changes',
    nextDue: false,
    pending: false,
    pendingOfExperiment: false,
    stats: false,
    forget: 'changes',
    createRun: 'adds',
    getRun: false,
    listRuns: false,
    leaseRun: 'changes',
    advanceRun: 'adds',
    endRun: 'changes',
  },
  datasets: {
    create: 'adds',
    list: false,
    get: false,
    update: 'changes',
    delete: 'changes',
    itemCounts: false,
    addItems: 'adds',
    listItems: false,
    getItem: false,
    itemVersions: false,
    putVersion: 'adds',
    sourceTraceIds: false,
    createExperiment: 'adds',
    getExperiment: false,
    listExperiments: false,
    experimentTraces: false,
  },
  annotation: {
    createQueue: 'adds',
    listQueues: false,
    getQueue: false,
    updateQueue: 'changes',
    deleteQueue: 'changes',
    doneCounts: false,
    items: false,
    heldBy: false,
    claim: 'adds',
    markDone: 'adds',
    release: 'changes',
  },
  activity: {
    listSessions: false,
    getSession: false,
    listUsers: false,
    getUser: false,
  },
  projects: {
    create: 'adds',
    list: false,
    get: false,
    delete: 'changes',
    createApiKey: 'adds',
    listApiKeys: false,
    findApiKey: false,
    touchApiKey: 'changes',
    revokeApiKey: 'changes',
    listRetention: false,
    setRetention: 'changes',
  },
  prices: {
    list: false,
    put: 'adds',
    delete: 'changes',
  },
  pending: {
    add: 'adds',
    listTraces: false,
    get: false,
    delete: 'changes',
  },
  alerts: {
    createRule: 'adds',
    listRules: false,
    deleteRule: 'changes',
    recordEvaluation: 'adds',
    listEvents: false,
    pendingEvents: false,
    setDelivery: 'changes',
    windowStats: false,
  },
}

/**
 * `store` with its writes watched, sub-store by sub-store (every other member is the store's own, `raw` or `pool`
 * too), and the state they give. `now` is for tests.
 */
export function watchWrites<S extends Store>(
  store: S,
  now: () => number = Date.now,
): { store: S; health: WriteHealth } {
  let state: WriteState = 'ok'
  let since: number | null = null
  let probedAt = Number.NEGATIVE_INFINITY
  const succeeded = () => {
    state = 'ok'
    since = null
  }
  const failed = (err: unknown) => {
    const failure = writeFailureOf(err)
    if (failure === null) return
    if (state !== failure) since = now()
    state = failure
  }
  const watch = <T extends object>(target: T, writes: Record<string, Writes>): T => {
    const watched = Object.create(target) as T
    for (const [name, kind] of Object.entries(writes)) {
      if (!kind) continue
      const method = (target as Record<string, unknown>)[name]
      if (typeof method !== 'function') continue
      Object.defineProperty(watched, name, {
        value: async (...args: unknown[]) => {
          try {
            const result = await method.apply(target, args)
            if (kind === 'adds') succeeded()
            return result
          } catch (err) {
            failed(err)
            throw err
          }
        },
      })
    }
    return watched
  }
  const watched = watch(store, LIFECYCLE_WRITES)
  for (const [name, writes] of Object.entries(WRITES)) {
    Object.defineProperty(watched, name, { value: watch(store[name as SubStoreName], writes) })
  }
  return {
    store: watched,
    health: {
      state: () => state,
      since: () => since,
      async check() {
        if (state !== 'ok' && now() - probedAt >= PROBE_EVERY_MS) {
          probedAt = now()
          // Its failure is recorded by the watch; any other (the database down) is the ping's to report.
          await watched.probeWrite().catch(() => {})
        }
        return state
      },
    },
  }
}
