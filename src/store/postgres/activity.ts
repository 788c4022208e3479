// Sessions and users on PostgreSQL: the shared reads of their rollups (src/store/activity-reads.ts), each request in
// one read-only snapshot, a session's traces through the trace store's primitive select, and the totals from the
// sessions and users counted per project (activity_counts).
import type pg from 'pg'
import { createActivityReads } from '../activity-reads.js'
import type { ActivityStore } from '../types.js'
import type { PostgresContext } from './context.js'
import { queryWith } from './statements.js'
import { postgresTraceReadQueries } from './traces.js'

export function createPostgresActivityStore({ snapshot, searchCounts }: PostgresContext): ActivityStore {
  const reads = (client: pg.ClientBase) => {
    const query = queryWith(client)
    return createActivityReads({
      query,
      select: postgresTraceReadQueries(client, searchCounts).select,
      async countAll(kind, projectId) {
        const [row] = await query<{ n: number }>(
          (bind) =>
            `select coalesce(sum(${kind}), 0) as n from activity_counts where ${projectId === undefined ? 'true' : `project_id = ${bind(projectId)}`}`,
        )
        return row?.n ?? 0
      },
    })
  }
  return {
    async listSessions(filter, page) {
      return snapshot((client) => reads(client).listSessions(filter, page))
    },

    async getSession(sessionId, projectId, limit) {
      return snapshot((client) => reads(client).getSession(sessionId, projectId, limit))
    },

    async listUsers(filter, page) {
      return snapshot((client) => reads(client).listUsers(filter, page))
    },

    async getUser(userId, projectId, limit) {
      return snapshot((client) => reads(client).getUser(userId, projectId, limit))
    },
  }
}
