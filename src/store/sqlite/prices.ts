// The operator's price overrides on SQLite (the model_prices table), through Drizzle.
import { asc, eq } from 'drizzle-orm'
import type { PriceStore } from '../types.js'
import { rowExists, type SqliteContext } from './context.js'
import { modelPrices } from './tables.js'
import { writeTransaction } from './write-transaction.js'

export function createSqlitePriceStore({ sqlite, db }: SqliteContext): PriceStore {
  return {
    async list() {
      return db.select().from(modelPrices).orderBy(asc(modelPrices.pattern)).all()
    },

    async put(rule) {
      return writeTransaction(sqlite, () => {
        const existed = rowExists(db, modelPrices, modelPrices.pattern, rule.pattern)
        db.insert(modelPrices).values(rule).onConflictDoUpdate({ target: modelPrices.pattern, set: rule }).run()
        return !existed
      })()
    },

    async delete(pattern) {
      return db.delete(modelPrices).where(eq(modelPrices.pattern, pattern)).run().changes > 0
    },
  }
}
