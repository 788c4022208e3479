// Datasets, their items and experiments on PostgreSQL: the shared reads and plans (src/store/datasets.ts), the plans
// run statement by statement in one transaction.
import { createDatasetStore, type DatasetDialect } from '../datasets.js'
import type { Plan } from '../plan.js'
import type { DatasetStore } from '../types.js'
import type { PostgresContext } from './context.js'
import { POSTGRES_PLANS, runPlan } from './plan.js'
import { queryWith } from './statements.js'

/** jsonb comes back parsed (through the U+0000 escape, lifecycle.ts). */
const POSTGRES_DATASETS: DatasetDialect = { ...POSTGRES_PLANS, readJson: (value) => value ?? null }

export function createPostgresDatasetStore({ pool, transaction }: PostgresContext): DatasetStore {
  const write = <T>(plan: Plan<T>): Promise<T> => transaction((client) => runPlan(client, plan))
  return createDatasetStore(queryWith(pool), write, POSTGRES_DATASETS)
}
