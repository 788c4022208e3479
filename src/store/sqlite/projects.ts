// Projects, their API keys and retention settings on SQLite, through Drizzle: the queries' pieces are the shared ones
// (src/store/project-keys.ts), run synchronously inside better-sqlite3's transactions.
import { eq, sql } from 'drizzle-orm'
import { fromZonelessIso } from '../../lib/time.js'
import { apiKeyFromRow, keyContextFromRow } from '../key-rows.js'
import { keyQueries, projectDeletion, projectFromRow, projectOrder, runSteps } from '../project-keys.js'
import { ROLLUP_TABLES } from '../rollups.js'
import type { KeyContext, ProjectStore } from '../types.js'
import { rowExists, type SqliteContext } from './context.js'
import { apiKeys, projectRetention, projects } from './tables.js'
import { writeTransaction } from './write-transaction.js'

export function createSqliteProjectStore({ sqlite, db }: SqliteContext): ProjectStore {
  const keys = keyQueries(apiKeys, projects)
  const keysWithProject = () => db.select(keys.columns).from(apiKeys).innerJoin(projects, keys.join)
  // Every authenticated request looks its key up: prepared once, so no request builds this query again.
  const liveKeyByHash = keysWithProject()
    .where(keys.liveByHash(sql.placeholder('hash')))
    .prepare()

  return {
    async create(project, key) {
      return writeTransaction(sqlite, () => {
        if (rowExists(db, projects, projects.project_id, project.project_id)) return false
        db.insert(projects)
          .values({ ...project, created_at: fromZonelessIso(project.created_at) })
          .run()
        db.insert(apiKeys).values(key).run()
        return true
      })()
    },

    async list() {
      return db
        .select()
        .from(projects)
        .orderBy(...projectOrder(projects))
        .all()
        .map((row) => projectFromRow(row))
    },

    async get(projectId) {
      const row = db.select().from(projects).where(eq(projects.project_id, projectId)).get()
      return row ? projectFromRow(row) : null
    },

    async delete(projectId) {
      return writeTransaction(sqlite, () =>
        runSteps(projectDeletion(ROLLUP_TABLES), ({ sql, read }) => {
          const statement = sqlite.prepare(sql)
          return read ? statement.all(projectId).length : statement.run(projectId).changes
        }),
      )()
    },

    async createApiKey(key) {
      db.insert(apiKeys).values(key).run()
    },

    async listApiKeys(projectId) {
      return keysWithProject()
        .where(keys.of(projectId))
        .orderBy(...keys.order)
        .all()
        .map(apiKeyFromRow)
    },

    async findApiKey(keyHash): Promise<KeyContext | null> {
      const row = liveKeyByHash.get({ hash: keyHash })
      return row ? keyContextFromRow(row) : null
    },

    async touchApiKey(keyId, at) {
      db.update(apiKeys).set({ last_used_at: at }).where(eq(apiKeys.key_id, keyId)).run()
    },

    async revokeApiKey(keyId, at) {
      db.update(apiKeys).set({ revoked_at: at }).where(keys.liveById(keyId)).run()
      const row = keysWithProject().where(eq(apiKeys.key_id, keyId)).get()
      return row ? apiKeyFromRow(row) : null
    },

    async listRetention() {
      return db.select().from(projectRetention).all()
    },

    async setRetention(projectId, settings) {
      if (!rowExists(db, projects, projects.project_id, projectId)) return false
      db.insert(projectRetention)
        .values({ project_id: projectId, ...settings })
        .onConflictDoUpdate({ target: projectRetention.project_id, set: settings })
        .run()
      return true
    },
  }
}
