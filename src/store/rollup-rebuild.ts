// Rebuilding the rollups from the traces: what a store does when a migration changed how rollups are kept (it sets
// `rollups_stale` in loupe_meta). Both stores read the traces in chunks and add them up with the same rollupDeltas
// that ingest uses, inside one transaction, so the result is exactly what ingesting every trace again would give.
import { toUtcIso } from '../lib/time.js'
import type { RollupInput } from './rollups.js'

/** The columns a rebuild (and a deletion) reads, in SQL. */
export const ROLLUP_SOURCE_COLUMNS =
  'project_id, environment, model, status, retry_count, latency, token_count, tokens_reported, cost, session_id, ' +
  'user_id, created_at'

/** Traces read (and added up) at a time. */
export const REBUILD_CHUNK = 10_000

/** The columns a rebuild reads: what the rollups count, with created_at as stored (epoch ms). */
export type RollupRow = Omit<RollupInput, 'created_at' | 'tokens_reported'> & {
  created_at: number
  tokens_reported: boolean | number
}

export const rollupInput = (row: RollupRow): RollupInput => ({
  project_id: row.project_id,
  environment: row.environment,
  model: row.model,
  status: row.status,
  retry_count: row.retry_count,
  latency: row.latency,
  token_count: row.token_count,
  cost: row.cost,
  session_id: row.session_id,
  user_id: row.user_id,
  // SQLite keeps a boolean as 0 or 1.
  tokens_reported: Boolean(row.tokens_reported),
  created_at: toUtcIso(row.created_at),
})
