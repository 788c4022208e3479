// Evaluator rules on SQLite (the evaluators table), through Drizzle.
import { asc, eq } from 'drizzle-orm'
import type { EvaluatorStore } from '../types.js'
import { rowExists, type SqliteContext } from './context.js'
import { evaluators } from './tables.js'
import { writeTransaction } from './write-transaction.js'

export function createSqliteEvaluatorStore({ sqlite, db }: SqliteContext): EvaluatorStore {
  return {
    async list() {
      return db.select().from(evaluators).orderBy(asc(evaluators.created_at), asc(evaluators.evaluator_id)).all()
    },

    async get(evaluatorId) {
      return db.select().from(evaluators).where(eq(evaluators.evaluator_id, evaluatorId)).get() ?? null
    },

    async put(rule) {
      return writeTransaction(sqlite, () => {
        const existed = rowExists(db, evaluators, evaluators.evaluator_id, rule.evaluator_id)
        db.insert(evaluators).values(rule).onConflictDoUpdate({ target: evaluators.evaluator_id, set: rule }).run()
        return !existed
      })()
    },

    async delete(evaluatorId) {
      return db.delete(evaluators).where(eq(evaluators.evaluator_id, evaluatorId)).run().changes > 0
    },
  }
}
