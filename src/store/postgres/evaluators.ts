// Evaluator rules on PostgreSQL (the evaluators table), through Drizzle.
import { asc, eq, sql } from 'drizzle-orm'
import type { EvaluatorStore } from '../types.js'
import type { PostgresContext } from './context.js'
import { evaluators } from './tables.js'

export function createPostgresEvaluatorStore({ db }: PostgresContext): EvaluatorStore {
  return {
    async list() {
      return db.select().from(evaluators).orderBy(asc(evaluators.created_at), asc(evaluators.evaluator_id))
    },

    async get(evaluatorId) {
      const [row] = await db.select().from(evaluators).where(eq(evaluators.evaluator_id, evaluatorId))
      return row ?? null
    },

    async put(rule) {
      const rows = await db
        .insert(evaluators)
        .values(rule)
        .onConflictDoUpdate({ target: evaluators.evaluator_id, set: rule })
        .returning({ created: sql<boolean>`xmax = 0` })
      return rows[0]?.created === true
    },

    async delete(evaluatorId) {
      const rows = await db
        .delete(evaluators)
        .where(eq(evaluators.evaluator_id, evaluatorId))
        .returning({ id: evaluators.evaluator_id })
      return rows.length > 0
    },
  }
}
