// Scores on PostgreSQL: the shared plans (score-writes.ts) run statement by statement in one transaction, the shared
// reads (score-reads.ts) on the pool.

import type { Plan } from '../plan.js'
import { createScoreReads } from '../score-reads.js'
import { deleteScore, deleteScoreConfig, insertScores, putScoreConfig } from '../score-writes.js'
import type { ScoreStore } from '../types.js'
import type { PostgresContext } from './context.js'
import { POSTGRES_PLANS, runPlan } from './plan.js'
import { queryWith } from './statements.js'

export function createPostgresScoreStore({ pool, transaction }: PostgresContext): ScoreStore {
  const reads = createScoreReads(queryWith(pool), POSTGRES_PLANS)
  const write = <T>(plan: Plan<T>): Promise<T> => transaction((client) => runPlan(client, plan))
  return {
    ...reads,
    insert: (scores) => write(insertScores(POSTGRES_PLANS, scores)),
    delete: (scoreId) => write(deleteScore(POSTGRES_PLANS, scoreId)),
    putConfig: (config) => write(putScoreConfig(POSTGRES_PLANS, config)),
    deleteConfig: (name) => write(deleteScoreConfig(name)),
  }
}
