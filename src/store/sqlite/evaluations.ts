// Evaluation jobs, backfill runs and rules' figures on SQLite: the shared reads and plans (evaluation-jobs.ts), the
// plans run in one write transaction.
import { createEvaluationStore } from '../evaluation-jobs.js'
import type { Plan } from '../plan.js'
import type { EvaluationStore } from '../types.js'
import type { SqliteContext } from './context.js'
import { runPlan, SQLITE_PLANS } from './plan.js'
import { writeTransaction } from './write-transaction.js'

export function createSqliteEvaluationStore({ sqlite, stmt, query }: SqliteContext): EvaluationStore {
  const inTransaction = writeTransaction(sqlite, <T>(plan: Plan<T>): T => runPlan(stmt, plan))
  const write = async <T>(plan: Plan<T>): Promise<T> => inTransaction(plan) as T
  return createEvaluationStore(query, write, SQLITE_PLANS)
}
