// Group commit: the traces of concurrent writes (single POST /traces, batches, OTLP traces) that arrive while the event
// loop turns, or while the previous group is being committed, are stored in one transaction, and each write learns
// its outcomes only once that transaction has committed. Many small requests then cost one commit, not one each.
//
// A group that fails as a whole (an error inside the transaction, which rolls it back) is stored again write by
// write, each in its own transaction, so that a trace the store refuses fails its own request and no other.
import type { PricedTrace } from '../store/reported-cost.js'
import type { InsertOutcome, TraceStore } from '../store/types.js'

export interface GroupCommitOptions {
  /** Most traces in one transaction; a write that would go beyond waits for the next group (default 2000). */
  maxTraces?: number
}

export interface GroupCommit {
  /** Stores these traces with whatever else is waiting; outcomes in input order, once committed. */
  insertTraces(traces: readonly PricedTrace[]): Promise<InsertOutcome[]>
}

interface Waiting {
  traces: readonly PricedTrace[]
  resolve: (outcomes: InsertOutcome[]) => void
  reject: (err: unknown) => void
}

export function createGroupCommit(
  traces: Pick<TraceStore, 'insert'>,
  { maxTraces = 2000 }: GroupCommitOptions = {},
): GroupCommit {
  let queue: Waiting[] = []
  /** A flush is scheduled (setImmediate) or a group is being committed: new writes wait for it. */
  let busy = false

  /** Takes the next group off the queue: writes in arrival order up to maxTraces (at least one write). */
  function nextGroup(): Waiting[] {
    let n = 0
    let total = 0
    while (n < queue.length && (n === 0 || total + queue[n]!.traces.length <= maxTraces)) {
      total += queue[n]!.traces.length
      n++
    }
    const group = queue.slice(0, n)
    queue = queue.slice(n)
    return group
  }

  /** Commits one group; never throws (each write's promise carries its own outcome or error). */
  async function commit(group: Waiting[]): Promise<void> {
    if (group.length === 1) {
      const [only] = group as [Waiting]
      await traces.insert([...only.traces]).then(only.resolve, only.reject)
      return
    }
    let outcomes: InsertOutcome[]
    try {
      outcomes = await traces.insert(group.flatMap((w) => w.traces))
    } catch {
      // Rolled back as a whole: each write on its own, so that only the one at fault fails.
      for (const write of group) await traces.insert([...write.traces]).then(write.resolve, write.reject)
      return
    }
    let at = 0
    for (const write of group) {
      write.resolve(outcomes.slice(at, at + write.traces.length))
      at += write.traces.length
    }
  }

  /** Commits groups until the queue is empty; one group at a time, so the next one gathers meanwhile. */
  async function drain(): Promise<void> {
    try {
      while (queue.length > 0) await commit(nextGroup())
    } finally {
      busy = false
    }
  }

  return {
    insertTraces(traces) {
      if (traces.length === 0) return Promise.resolve([])
      return new Promise<InsertOutcome[]>((resolve, reject) => {
        queue.push({ traces, resolve, reject })
        if (busy) return
        busy = true
        // Once the event loop has turned, every request read meanwhile is in the queue.
        setImmediate(() => void drain())
      })
    },
  }
}
