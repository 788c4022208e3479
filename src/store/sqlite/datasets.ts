// Datasets, their items and experiments on SQLite: the shared reads and plans (src/store/datasets.ts), the plans run
// in one write transaction.
import { createDatasetStore, type DatasetDialect } from '../datasets.js'
import type { Plan } from '../plan.js'
import type { DatasetStore } from '../types.js'
import type { SqliteContext } from './context.js'
import { runPlan, SQLITE_PLANS } from './plan.js'
import { writeTransaction } from './write-transaction.js'

/** SQLite keeps JSON as its text. */
const SQLITE_DATASETS: DatasetDialect = {
  ...SQLITE_PLANS,
  readJson: (value) => (value === null || value === undefined ? null : JSON.parse(value as string)),
}

export function createSqliteDatasetStore({ sqlite, stmt, query }: SqliteContext): DatasetStore {
  const inTransaction = writeTransaction(sqlite, <T>(plan: Plan<T>): T => runPlan(stmt, plan))
  const write = async <T>(plan: Plan<T>): Promise<T> => inTransaction(plan) as T
  return createDatasetStore(query, write, SQLITE_DATASETS)
}
