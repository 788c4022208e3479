// Evaluation jobs, backfill runs and rules' figures on PostgreSQL: the shared reads (evaluation-jobs.ts) on the pool,
// the plans run statement by statement in one transaction.
import { createEvaluationStore } from '../evaluation-jobs.js'
import type { EvaluationStore } from '../types.js'
import type { PostgresContext } from './context.js'
import { POSTGRES_PLANS, runPlan } from './plan.js'
import { queryWith } from './statements.js'

export function createPostgresEvaluationStore({ pool, transaction }: PostgresContext): EvaluationStore {
  return createEvaluationStore(
    queryWith(pool),
    (plan) => transaction((client) => runPlan(client, plan)),
    POSTGRES_PLANS,
  )
}
