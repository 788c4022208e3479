// Scores on SQLite: the shared plans (score-writes.ts) run synchronously in one write transaction, the shared reads
// (score-reads.ts) over the context's prepared statements.
import { createScoreReads } from '../score-reads.js'
import { deleteScore, deleteScoreConfig, insertScores, type Plan, putScoreConfig } from '../score-writes.js'
import type { ScoreStore } from '../types.js'
import type { SqliteContext } from './context.js'
import { runPlan, SQLITE_SCORES } from './score-plan.js'
import { writeTransaction } from './write-transaction.js'

export function createSqliteScoreStore({ sqlite, stmt, query }: SqliteContext): ScoreStore {
  const reads = createScoreReads(query, SQLITE_SCORES)
  const inTransaction = writeTransaction(sqlite, <T>(plan: Plan<T>): T => runPlan(stmt, plan))
  const write = async <T>(plan: Plan<T>): Promise<T> => inTransaction(plan) as T
  return {
    ...reads,
    insert: (scores) => write(insertScores(SQLITE_SCORES, scores)),
    delete: (scoreId) => write(deleteScore(SQLITE_SCORES, scoreId)),
    putConfig: (config) => write(putScoreConfig(SQLITE_SCORES, config)),
    deleteConfig: (name) => write(deleteScoreConfig(name)),
  }
}
