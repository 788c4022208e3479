// The in-process event hub: ingest publishes stored traces, the /ws plugin (and anything else) listens.
import type { Trace } from '../../schemas/index.js'

export type TraceListener = (traces: readonly Trace[]) => void

export interface EventHub {
  /** Announces traces that have just been stored (each exactly once). */
  publish(traces: readonly Trace[]): void
  /** Returns the function that stops listening. */
  subscribe(listener: TraceListener): () => void
  readonly listenerCount: number
}

export function createEventHub(onListenerError: (err: unknown) => void = () => {}): EventHub {
  const listeners = new Set<TraceListener>()
  return {
    publish(traces) {
      if (traces.length === 0) return
      for (const listener of listeners) {
        // One faulty listener must not keep the others, or the acknowledged ingest, from completing.
        try {
          listener(traces)
        } catch (err) {
          onListenerError(err)
        }
      }
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
