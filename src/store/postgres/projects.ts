// Projects, their API keys and retention settings on PostgreSQL, through Drizzle: the queries' pieces are the shared
// ones (src/store/project-keys.ts), run asynchronously through the pool; free text through the U+0000 escape.
import { eq, sql } from 'drizzle-orm'
import type { Project } from '../../../schemas/index.js'
import { fromZonelessIso } from '../../lib/time.js'
import { apiKeyFromRow, type KeyRow, keyContextFromRow } from '../key-rows.js'
import { keyQueries, projectDeletion, projectFromRow, projectOrder, runStepsAsync } from '../project-keys.js'
import { ROLLUP_TABLES } from '../rollups.js'
import type { KeyContext, ProjectStore } from '../types.js'
import type { PostgresContext } from './context.js'
import { decodeText, encodeText } from './nul.js'
import { apiKeys, projectRetention, projects } from './tables.js'

const rowToProject = (row: typeof projects.$inferSelect): Project => projectFromRow(row, decodeText)

/** Project names are stored through the U+0000 escape (nul.ts). */
const decoded = <R extends KeyRow>(row: R): R => ({ ...row, project_name: decodeText(row.project_name) })

export function createPostgresProjectStore({ db, transaction }: PostgresContext): ProjectStore {
  const keys = keyQueries(apiKeys, projects)
  const keysWithProject = () => db.select(keys.columns).from(apiKeys).innerJoin(projects, keys.join)
  // Every authenticated request looks its key up: built once and prepared on each connection once, so no request
  // builds this query again nor has it parsed and planned.
  const liveKeyByHash = keysWithProject()
    .where(keys.liveByHash(sql.placeholder('hash')))
    .prepare('loupe_live_key_by_hash')

  return {
    async create(project, key) {
      return db.transaction(async (tx) => {
        const inserted = await tx
          .insert(projects)
          .values({
            ...project,
            name: encodeText(project.name),
            description: encodeText(project.description),
            created_at: fromZonelessIso(project.created_at),
          })
          .onConflictDoNothing()
          .returning({ id: projects.project_id })
        if (inserted.length === 0) return false
        await tx.insert(apiKeys).values(key)
        return true
      })
    },

    async list() {
      const rows = await db
        .select()
        .from(projects)
        .orderBy(...projectOrder(projects))
      return rows.map(rowToProject)
    },

    async get(projectId) {
      const [row] = await db
        .select()
        .from(projects)
        .where(eq(projects.project_id, encodeText(projectId)))
      return row ? rowToProject(row) : null
    },

    async delete(rawProjectId) {
      const projectId = encodeText(rawProjectId)
      return transaction((client) =>
        runStepsAsync(projectDeletion([...ROLLUP_TABLES, 'activity_counts']), async ({ sql, read, lock }) => {
          // Deletes return a row each so that the count comes back the same way as a read's.
          const text = `${sql.replace('?', '$1')}${lock ? ' for update' : read ? '' : ' returning 1'}`
          return (await client.query(text, [projectId])).rows.length
        }),
      )
    },

    async createApiKey(key) {
      await db.insert(apiKeys).values(key)
    },

    async listApiKeys(projectId) {
      const rows = await keysWithProject()
        .where(keys.of(projectId === undefined ? undefined : encodeText(projectId)))
        .orderBy(...keys.order)
      return rows.map((row) => apiKeyFromRow(decoded(row)))
    },

    async findApiKey(keyHash): Promise<KeyContext | null> {
      const [row] = await liveKeyByHash.execute({ hash: keyHash })
      return row ? keyContextFromRow(decoded(row)) : null
    },

    async touchApiKey(keyId, at) {
      await db.update(apiKeys).set({ last_used_at: at }).where(eq(apiKeys.key_id, keyId))
    },

    async revokeApiKey(rawKeyId, at) {
      const keyId = encodeText(rawKeyId)
      await db.update(apiKeys).set({ revoked_at: at }).where(keys.liveById(keyId))
      const [row] = await keysWithProject().where(eq(apiKeys.key_id, keyId))
      return row ? apiKeyFromRow(decoded(row)) : null
    },

    async listRetention() {
      return db.select().from(projectRetention)
    },

    async setRetention(rawProjectId, settings) {
      const projectId = encodeText(rawProjectId)
      const [found] = await db.select().from(projects).where(eq(projects.project_id, projectId))
      if (!found) return false
      await db
        .insert(projectRetention)
        .values({ project_id: projectId, ...settings })
        .onConflictDoUpdate({ target: projectRetention.project_id, set: settings })
      return true
    },
  }
}
