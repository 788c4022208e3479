// The in-process event hub: ingest publishes stored traces, the /ws plugin (and anything else) listens.
import type { DeletedTrace, Score, Trace } from '../../schemas/index.js'

export type TraceListener = (traces: readonly Trace[]) => void
export type DeletionListener = (deleted: readonly DeletedTrace[]) => void
/** What happened to some scores, as /ws names it. */
export type ScoreEventType = 'score.created' | 'score.deleted'
export type ScoreListener = (type: ScoreEventType, scores: readonly Score[]) => void

export interface EventHub {
  /** Announces traces that have just been stored (each exactly once). */
  publish(traces: readonly Trace[]): void
  /** Returns the function that stops listening. */
  subscribe(listener: TraceListener): () => void
  readonly listenerCount: number
  /** Announces traces that have just been deleted. */
  publishDeleted(deleted: readonly DeletedTrace[]): void
  subscribeDeleted(listener: DeletionListener): () => void
  /** Announces scores that have just been stored (each exactly once) or deleted. */
  publishScores(type: ScoreEventType, scores: readonly Score[]): void
  subscribeScores(listener: ScoreListener): () => void
}

export function createEventHub(onListenerError: (err: unknown) => void = () => {}): EventHub {
  const listeners = new Set<TraceListener>()
  const deletionListeners = new Set<DeletionListener>()
  const scoreListeners = new Set<ScoreListener>()
  /** Calls every listener; one faulty listener must not keep the others, or the acknowledged write, from completing. */
  const notify = <T, A extends unknown[] = []>(
    set: ReadonlySet<(...args: [...A, readonly T[]]) => void>,
    items: readonly T[],
    ...before: A
  ) => {
    if (items.length === 0) return
    for (const listener of set) {
      try {
        listener(...before, items)
      } catch (err) {
        onListenerError(err)
      }
    }
  }
  return {
    publish(traces) {
      notify(listeners, traces)
    },
    publishDeleted(deleted) {
      notify(deletionListeners, deleted)
    },
    publishScores(type, scores) {
      notify(scoreListeners, scores, type)
    },
    subscribeScores(listener) {
      scoreListeners.add(listener)
      return () => scoreListeners.delete(listener)
    },
    subscribeDeleted(listener) {
      deletionListeners.add(listener)
      return () => deletionListeners.delete(listener)
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    get listenerCount() {
      return listeners.size
    },
  }
}
