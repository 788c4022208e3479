// Scores on PostgreSQL: the shared plans (score-writes.ts) run statement by statement in one transaction, the shared
// reads (score-reads.ts) on the pool.
import { createScoreReads } from '../score-reads.js'
import { deleteScore, deleteScoreConfig, insertScores, type Plan, putScoreConfig } from '../score-writes.js'
import type { ScoreStore } from '../types.js'
import type { PostgresContext } from './context.js'
import { POSTGRES_SCORES, runPlan } from './score-plan.js'
import { queryWith } from './statements.js'

export function createPostgresScoreStore({ pool, transaction }: PostgresContext): ScoreStore {
  const reads = createScoreReads(queryWith(pool), POSTGRES_SCORES)
  const write = <T>(plan: Plan<T>): Promise<T> => transaction((client) => runPlan(client, plan))
  return {
    ...reads,
    insert: (scores) => write(insertScores(POSTGRES_SCORES, scores)),
    delete: (scoreId) => write(deleteScore(POSTGRES_SCORES, scoreId)),
    putConfig: (config) => write(putScoreConfig(POSTGRES_SCORES, config)),
    deleteConfig: (name) => write(deleteScoreConfig(name)),
  }
}
