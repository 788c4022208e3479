// The operator's price overrides on PostgreSQL (the model_prices table), through Drizzle.
import { asc, eq, sql } from 'drizzle-orm'
import type { PriceStore } from '../types.js'
import type { PostgresContext } from './context.js'
import { modelPrices } from './tables.js'

export function createPostgresPriceStore({ db }: PostgresContext): PriceStore {
  return {
    async list() {
      return db.select().from(modelPrices).orderBy(asc(modelPrices.pattern))
    },

    async put(rule) {
      const rows = await db
        .insert(modelPrices)
        .values(rule)
        .onConflictDoUpdate({ target: modelPrices.pattern, set: rule })
        .returning({ created: sql<boolean>`xmax = 0` })
      return rows[0]?.created === true
    },

    async delete(pattern) {
      const rows = await db
        .delete(modelPrices)
        .where(eq(modelPrices.pattern, pattern))
        .returning({ p: modelPrices.pattern })
      return rows.length > 0
    },
  }
}
