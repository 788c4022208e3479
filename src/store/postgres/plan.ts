// How the shared plans (src/store/plan.ts) run on PostgreSQL: the dialect's pieces of their SQL, and the
// driver that runs a plan's statements one by one inside the caller's transaction (scores.ts, trace-writes.ts).
import { JsonParam, type Plan, type PlanDialect } from '../plan.js'
import { encodeJson, encodeText } from './nul.js'
import { prepared, type Queryable } from './statements.js'

export const POSTGRES_PLANS: PlanDialect = {
  // The directory row of the trace, locked until commit: a deletion of the trace waits for this transaction, and one
  // that committed first leaves no row to find.
  lockTrace: (b, traceId) => `select 1 as found from trace_ids where trace_id = ${b(traceId)} for key share`,
  inList: (b, column, values) => `${column} = any(${b(values.map(encodeText))}::text[])`,
  stepCount: 'jsonb_array_length(steps)',
  float: (expression) => `(${expression})::float8`,
  json: (b, value) => `${b(new JsonParam(value))}::jsonb`,
  skipLocked: 'for update skip locked',
  bool: (value) => (value ? 'true' : 'false'),
}

/** Runs a plan's statements in order on `db` (inside the caller's transaction). */
export async function runPlan<T>(db: Queryable, plan: Plan<T>): Promise<T> {
  let step = plan.next()
  while (!step.done) {
    const params: unknown[] = []
    const text = step.value.build((value) => {
      params.push(
        value instanceof JsonParam ? encodeJson(value.value) : typeof value === 'string' ? encodeText(value) : value,
      )
      return `$${params.length}`
    })
    step = plan.next(await prepared<Record<string, unknown>>(db, text, params))
  }
  return step.value
}
