// Scores on SQLite: the shared plans (score-writes.ts) run synchronously in one write transaction, the shared reads
// (score-reads.ts) over the context's prepared statements.

import type { Plan } from '../plan.js'
import { createScoreReads } from '../score-reads.js'
import { deleteScore, deleteScoreConfig, insertScores, putScoreConfig } from '../score-writes.js'
import type { ScoreStore } from '../types.js'
import type { SqliteContext } from './context.js'
import { runPlan, SQLITE_PLANS } from './plan.js'
import { writeTransaction } from './write-transaction.js'

export function createSqliteScoreStore({ sqlite, stmt, query }: SqliteContext): ScoreStore {
  const reads = createScoreReads(query, SQLITE_PLANS)
  const inTransaction = writeTransaction(sqlite, <T>(plan: Plan<T>): T => runPlan(stmt, plan))
  const write = async <T>(plan: Plan<T>): Promise<T> => inTransaction(plan) as T
  return {
    ...reads,
    insert: (scores) => write(insertScores(SQLITE_PLANS, scores)),
    delete: (scoreId) => write(deleteScore(SQLITE_PLANS, scoreId)),
    putConfig: (config) => write(putScoreConfig(SQLITE_PLANS, config)),
    deleteConfig: (name) => write(deleteScoreConfig(name)),
  }
}
