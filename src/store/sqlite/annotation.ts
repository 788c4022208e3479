// Annotation queues on SQLite: the shared reads and plans (annotation-queues.ts), the plans run in one write
// transaction.
import { createAnnotationStore } from '../annotation-queues.js'
import type { Plan } from '../plan.js'
import type { AnnotationStore } from '../types.js'
import type { SqliteContext } from './context.js'
import { runPlan, SQLITE_PLANS } from './plan.js'
import { writeTransaction } from './write-transaction.js'

export function createSqliteAnnotationStore({ sqlite, stmt, query }: SqliteContext): AnnotationStore {
  const inTransaction = writeTransaction(sqlite, <T>(plan: Plan<T>): T => runPlan(stmt, plan))
  const write = async <T>(plan: Plan<T>): Promise<T> => inTransaction(plan) as T
  return createAnnotationStore(query, write, SQLITE_PLANS)
}
