// Sessions and users on SQLite: the shared reads of their rollups (src/store/activity-reads.ts) over the context's
// prepared statements, a session's traces through the trace store's primitive select.
import { createActivityReads } from '../activity-reads.js'
import type { ActivityStore } from '../types.js'
import type { SqliteContext } from './context.js'
import { sqliteTraceReadQueries } from './traces.js'

export function createSqliteActivityStore(ctx: SqliteContext): ActivityStore {
  return createActivityReads({ query: ctx.query, select: sqliteTraceReadQueries(ctx).select })
}
