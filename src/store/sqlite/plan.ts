// How the shared plans (src/store/plan.ts) run on SQLite: the dialect's pieces of their SQL, and the
// driver that runs a plan's statements synchronously on a connection — the event loop's (scores.ts) or the background
// worker's, whose trace deletions take their scores with them (trace-writes.ts).
import type Database from 'better-sqlite3'
import type { Plan, PlanDialect } from '../plan.js'

export const SQLITE_PLANS: PlanDialect = {
  lockTrace: (b, traceId) => `select 1 as found from traces where trace_id = ${b(traceId)}`,
  inList: (b, column, values) => `${column} in (select value from json_each(${b(JSON.stringify(values))}))`,
  stepCount: 'json_array_length(steps)',
  float: (expression) => `cast(${expression} as real)`,
  json: (b, value) => b(JSON.stringify(value)),
  // One connection writes, one transaction at a time: no claim can pass over another's.
  skipLocked: '',
  bool: (value) => (value ? '1' : '0'),
}

/** Runs a plan's statements in order on this connection (inside the caller's transaction, if any). */
export function runPlan<T>(stmt: (text: string) => Database.Statement, plan: Plan<T>): T {
  let step = plan.next()
  while (!step.done) {
    const params: unknown[] = []
    const text = step.value.build((value) => {
      params.push(value)
      return '?'
    })
    const s = stmt(text)
    if (s.reader) step = plan.next(s.all(...params) as Record<string, unknown>[])
    else {
      s.run(...params)
      step = plan.next([])
    }
  }
  return step.value
}
