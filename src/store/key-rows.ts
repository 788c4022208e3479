// An API key row joined with its project's name, as both stores read it, and the two shapes built from it: the
// listing form (never the secret nor its hash) and the context a presented key resolves to.
import type { ApiKey } from '../../schemas/index.js'
import { toZonelessIso } from '../lib/time.js'
import type { KeyContext } from './types.js'

/** An API key as listed (ApiKeySchema), with its times as the store keeps them: epoch ms. */
export type KeyRow = Omit<ApiKey, 'created_at' | 'last_used_at' | 'revoked_at'> & {
  created_at: number
  last_used_at: number | null
  revoked_at: number | null
}

const optionalTime = (ms: number | null) => (ms === null ? null : toZonelessIso(ms))

export const apiKeyFromRow = (row: KeyRow): ApiKey => ({
  key_id: row.key_id,
  key_preview: row.key_preview,
  project_id: row.project_id,
  project_name: row.project_name,
  environment: row.environment,
  kind: row.kind,
  created_at: toZonelessIso(row.created_at),
  last_used_at: optionalTime(row.last_used_at),
  revoked_at: optionalTime(row.revoked_at),
})

export const keyContextFromRow = (row: KeyRow): KeyContext => ({
  key_id: row.key_id,
  project_id: row.project_id,
  project_name: row.project_name,
  environment: row.environment,
  kind: row.kind,
  last_used_at: row.last_used_at,
})
