// Annotation queues on PostgreSQL: the shared reads (annotation-queues.ts) on the pool, the plans run statement by
// statement in one transaction.
import { createAnnotationStore } from '../annotation-queues.js'
import type { AnnotationStore } from '../types.js'
import type { PostgresContext } from './context.js'
import { POSTGRES_PLANS, runPlan } from './plan.js'
import { queryWith } from './statements.js'

export function createPostgresAnnotationStore({ pool, transaction }: PostgresContext): AnnotationStore {
  return createAnnotationStore(
    queryWith(pool),
    (plan) => transaction((client) => runPlan(client, plan)),
    POSTGRES_PLANS,
  )
}
