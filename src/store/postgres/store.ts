// The PostgreSQL store, for several Loupe replicas on one database: a modest pool, migrations applied at start under
// an advisory lock (replicas starting together do not race), projects and keys through Drizzle, traces through
// trace-queries.ts, and the replica feed (LISTEN/NOTIFY) that brings traces stored by other replicas to this one.
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { asc, eq, sql } from 'drizzle-orm'
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'
import type { Project, Trace } from '../../../schemas/index.js'
import { packageRoot } from '../../lib/paths.js'
import { fromZonelessIso } from '../../lib/time.js'
import { apiKeyFromRow, type KeyRow, keyContextFromRow } from '../key-rows.js'
import {
  activeKeyByHash,
  activeKeyById,
  keyOrder,
  keyProjectJoin,
  keysOf,
  keyWithProjectColumns,
  projectDeletion,
  projectFromRow,
  projectOrder,
  runStepsAsync,
} from '../project-keys.js'
import { repriceAll } from '../reprice.js'
import { ROLLUP_TABLES } from '../rollups.js'
import { walkChunks } from '../trace-reads.js'
import type { KeyContext, Store } from '../types.js'
import { PROBE_BYTES } from '../write-health.js'
import { createPostgresAlerts } from './alerts.js'
import { decodeText, encodeText, parseEncodedJson } from './nul.js'
import { createPendingSpanQueries } from './pending-spans.js'
import { createReplicaFeed, type FeedLog, type ReplicaFeed } from './replica-feed.js'
import { apiKeys, modelPrices, projectRetention, projects } from './tables.js'
import {
  createPostgresSearchCounts,
  deleteTraces,
  fillSearchText,
  getTrace,
  insertTraces,
  maxSeq,
  rebuildRollups,
  repriceChunk,
  traceReads,
  tracesAfter,
  tracesBySeq,
} from './trace-queries.js'

type Db = NodePgDatabase<{ projects: typeof projects; apiKeys: typeof apiKeys }>

export interface PostgresStoreOptions {
  /** Most connections the pool opens (default 10); the replica feed holds one more. */
  poolSize?: number
  /** Run the committed migrations at open (default true). */
  migrate?: boolean
  log?: FeedLog
  /** First reconnect delay of the replica feed after its listening connection drops (default 250 ms). */
  feedReconnectMs?: number
  /** How the pool's connections name themselves to the server (`application_name`; default `loupe`). */
  applicationName?: string
}

/** A schema name Loupe accepts in `?schema=`: a plain lower-case identifier, so it needs no quoting anywhere. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/** `postgres://…[?schema=name]` → the driver's connection string and the schema Loupe's tables live in. */
export function postgresTarget(url: string): { connectionString: string; schema: string } {
  const parsed = new URL(url)
  const schema = parsed.searchParams.get('schema') ?? 'public'
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(`DATABASE_URL: schema must be a lower-case identifier ([a-z_][a-z0-9_]*), got '${schema}'`)
  }
  parsed.searchParams.delete('schema')
  return { connectionString: parsed.toString(), schema }
}

/** The NOTIFY channel of one schema: replicas of another Loupe on the same database never hear this one. */
export const channelOf = (schema: string) => (schema === 'public' ? 'loupe_traces' : `loupe_traces_${schema}`)

const { builtins } = pg.types
/**
 * Parsers for this store's connections only (not the whole process): counts, sums and epoch ms come back as numbers
 * (all far below 2^53), and text/jsonb are read back through the U+0000 escape (nul.ts).
 */
const TYPES = {
  getTypeParser(oid: number, format?: string) {
    if (format === 'binary') return pg.types.getTypeParser(oid, 'binary')
    switch (oid) {
      case builtins.INT8:
      case builtins.NUMERIC:
        return (value: string) => Number(value)
      case builtins.TEXT:
        return decodeText
      case builtins.JSONB:
      case builtins.JSON:
        return parseEncodedJson
      default:
        return pg.types.getTypeParser(oid, 'text')
    }
  },
} as pg.CustomTypesConfig

const rowToProject = (row: typeof projects.$inferSelect): Project => projectFromRow(row, decodeText)

/** Project names are stored through the U+0000 escape (nul.ts). */
const decoded = <R extends KeyRow>(row: R): R => ({ ...row, project_name: decodeText(row.project_name) })

/** Errors after which the same transaction, tried again, may well succeed. */
const RETRYABLE = new Set(['40001', '40P01']) // serialization failure, deadlock detected
const TRANSACTION_ATTEMPTS = 5

const SILENT: FeedLog = { info() {}, warn() {} }

export async function createPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<Store & { pool: pg.Pool; schema: string; feed(): ReplicaFeed | null }> {
  const { connectionString, schema } = postgresTarget(url)
  const log = options.log ?? SILENT
  const clientConfig: pg.ClientConfig = {
    connectionString,
    types: TYPES,
    application_name: options.applicationName ?? 'loupe',
    // Unqualified table names (Drizzle's, the migrations') resolve in Loupe's schema.
    options: schema === 'public' ? undefined : `-c search_path=${schema}`,
    connectionTimeoutMillis: 5000,
  }
  const pool = new pg.Pool({ ...clientConfig, max: options.poolSize ?? 10, idleTimeoutMillis: 30_000 })
  // A connection the server drops (restart, failover, pg_terminate_backend) must never bring the process down. The
  // pool listens for errors only while a connection is idle; a connection checked out by a query or a transaction
  // would emit an unhandled 'error'. So every connection gets a listener of its own as it is made: the query in
  // flight fails (and is answered 503), the pool discards the connection and opens a new one for the next query.
  pool.on('connect', (client) => {
    client.on('error', (err) => log.warn({ err }, 'postgres: a connection was lost'))
  })
  pool.on('error', (err) => log.warn({ err }, 'postgres: idle connection lost'))
  const db: Db = drizzle(pool, { schema: { projects, apiKeys } })

  if (options.migrate !== false) {
    try {
      await migrateLocked(pool, schema)
    } catch (err) {
      await pool.end().catch(() => {})
      throw err
    }
  }

  const origin = randomUUID()
  const channel = channelOf(schema)
  let feed: ReplicaFeed | null = null

  /** Runs `fn` in a transaction, again on a deadlock or serialization failure. */
  async function transaction<T>(fn: (client: pg.PoolClient) => Promise<T>, begin = 'begin'): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await pool.connect()
      let broken: Error | undefined
      try {
        await client.query(begin)
        const result = await fn(client)
        await client.query('commit')
        return result
      } catch (err) {
        await client.query('rollback').catch((e: Error) => {
          broken = e
        })
        const code = (err as { code?: string }).code
        if (attempt < TRANSACTION_ATTEMPTS && code !== undefined && RETRYABLE.has(code)) continue
        throw err
      } finally {
        client.release(broken)
      }
    }
  }

  /** Reads of several statements see one snapshot (totals, histograms and pages agree with each other). */
  const snapshot = <T>(fn: (client: pg.PoolClient) => Promise<T>) =>
    transaction(fn, 'begin isolation level repeatable read read only')

  const searchCounts = createPostgresSearchCounts()
  const reads = (client: pg.ClientBase) => traceReads(client, searchCounts)

  const pendingSpans = createPendingSpanQueries(pool, transaction)
  const { alerts, windowStats } = createPostgresAlerts(pool, db)

  const keysWithProject = () =>
    db
      .select(keyWithProjectColumns(apiKeys, projects))
      .from(apiKeys)
      .innerJoin(projects, keyProjectJoin(apiKeys, projects))
  // Every authenticated request looks its key up: built once and prepared on each connection once, so no request
  // builds this query again nor has it parsed and planned.
  const liveKeyByHash = keysWithProject()
    .where(activeKeyByHash(apiKeys, sql.placeholder('hash')))
    .prepare('loupe_live_key_by_hash')

  return {
    dialect: 'postgresql',
    blocksEventLoop: false,
    pool,
    schema,
    feed: () => feed,

    async ping() {
      await pool.query('select 1')
    },

    async probeWrite() {
      await transaction(async (client) => {
        // Hex of random bytes: TOAST cannot compress it into less than the space the probe is for.
        await client.query(
          `insert into loupe_meta (key, value)
           values ('write_probe', (select string_agg(md5(random()::text), '') from generate_series(1, $1::int / 32)))
           on conflict (key) do update set value = excluded.value`,
          [PROBE_BYTES],
        )
        await client.query(`delete from loupe_meta where key = 'write_probe'`)
      })
    },

    async close() {
      await feed?.close()
      feed = null
      if (!pool.ended) await pool.end()
    },

    async createProject(project, key) {
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

    async listProjects() {
      const rows = await db
        .select()
        .from(projects)
        .orderBy(...projectOrder(projects))
      return rows.map(rowToProject)
    },

    async getProject(projectId) {
      const [row] = await db
        .select()
        .from(projects)
        .where(eq(projects.project_id, encodeText(projectId)))
      return row ? rowToProject(row) : null
    },

    async createApiKey(key) {
      await db.insert(apiKeys).values(key)
    },

    async listApiKeys(projectId) {
      const rows = await keysWithProject()
        .where(keysOf(apiKeys, projectId === undefined ? undefined : encodeText(projectId)))
        .orderBy(...keyOrder(apiKeys))
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
      await db.update(apiKeys).set({ revoked_at: at }).where(activeKeyById(apiKeys, keyId))
      const [row] = await keysWithProject().where(eq(apiKeys.key_id, keyId))
      return row ? apiKeyFromRow(decoded(row)) : null
    },

    async insertTraces(batch) {
      if (batch.length === 0) return []
      return transaction(async (client) => {
        const { outcomes, seqs } = await insertTraces(client, batch, { channel, origin })
        // Before the commit: a catch-up running meanwhile must already know these are ours.
        feed?.own(seqs)
        return outcomes
      })
    },

    async getTrace(traceId) {
      return getTrace(pool, encodeText(traceId))
    },

    async listTraces(filter, page) {
      return snapshot((client) => reads(client).listTraces(filter, page))
    },

    async listTraceSummaries(filter, page) {
      return snapshot((client) => reads(client).listTraceSummaries(filter, page))
    },

    async analytics(params) {
      return snapshot((client) => reads(client).analytics(params))
    },

    async failures(params) {
      return snapshot((client) => reads(client).failures(params))
    },

    async deleteTraces(selection) {
      const { deleted, counts } = await transaction((client) => deleteTraces(client, selection, searchCounts))
      // Committed: the search counts this instance keeps are brought past the deletion.
      searchCounts.passed(counts)
      return deleted
    },

    async deleteProject(rawProjectId) {
      const projectId = encodeText(rawProjectId)
      return transaction((client) =>
        runStepsAsync(projectDeletion([...ROLLUP_TABLES, 'activity_counts']), async ({ sql, read, lock }) => {
          // Deletes return a row each so that the count comes back the same way as a read's.
          const text = `${sql.replace('?', '$1')}${lock ? ' for update' : read ? '' : ' returning 1'}`
          return (await client.query(text, [projectId])).rows.length
        }),
      )
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

    // PostgreSQL's autovacuum makes the space of deleted rows reusable by itself.
    async reclaimSpace() {
      return false
    },

    walkTraces(filter, chunk, each) {
      return walkChunks(
        (after, limit, mark) => snapshot((client) => reads(client).afterCursor(filter, after, limit, mark)),
        chunk,
        each,
      )
    },

    alerts,
    windowStats,

    async stats() {
      // The tables (with their indexes and TOAST) of this store's schema: another schema's Loupe is not counted.
      const { rows } = await pool.query<{ traces: number; bytes: number }>(
        `select (select coalesce(sum(traces), 0) from rollup_totals) as traces,
                (select coalesce(sum(pg_total_relation_size(c.oid)), 0) from pg_class c
                   join pg_namespace n on n.oid = c.relnamespace
                  where n.nspname = $1 and c.relkind = 'r') as bytes`,
        [schema],
      )
      return {
        traces: Number(rows[0]?.traces ?? 0),
        bytes: Number(rows[0]?.bytes ?? 0),
        search_full_counts: searchCounts.fullCounts(),
      }
    },

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

    async listPriceRules() {
      return db.select().from(modelPrices).orderBy(asc(modelPrices.pattern))
    },

    async putPriceRule(rule) {
      const rows = await db
        .insert(modelPrices)
        .values(rule)
        .onConflictDoUpdate({ target: modelPrices.pattern, set: rule })
        .returning({ created: sql<boolean>`xmax = 0` })
      return rows[0]?.created === true
    },

    async deletePriceRule(pattern) {
      const rows = await db
        .delete(modelPrices)
        .where(eq(modelPrices.pattern, pattern))
        .returning({ p: modelPrices.pattern })
      return rows.length > 0
    },

    async repriceTraces(since, reprice) {
      return repriceAll((from) =>
        transaction((client) => repriceChunk(client, from, since ?? Number.MIN_SAFE_INTEGER, reprice)),
      )
    },

    ...pendingSpans,

    async followReplicas(listener: (traces: readonly Trace[]) => void) {
      if (feed) throw new Error('this store already follows its replicas')
      const started = createReplicaFeed({
        connect: async () => {
          const client = new pg.Client({ ...clientConfig, application_name: `loupe-feed ${schema}`.slice(0, 63) })
          await client.connect()
          return client
        },
        channel,
        origin,
        bySeq: (seqs) => tracesBySeq(pool, seqs),
        after: (seq, limit) => tracesAfter(pool, seq, limit),
        maxSeq: () => maxSeq(pool),
        deliver: listener,
        log,
        reconnectMs: options.feedReconnectMs,
      })
      await started.start()
      feed = started
      return async () => {
        if (feed === started) feed = null
        await started.close()
      }
    },
  }
}

/** Applies the committed migrations, one replica at a time: the others wait on the lock, then find nothing to do. */
async function migrateLocked(pool: pg.Pool, schema: string): Promise<void> {
  const client = await pool.connect()
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', [`loupe:migrate:${schema}`])
    try {
      await client.query(`create schema if not exists ${schema}`)
      await migrate(drizzle(client), {
        migrationsFolder: join(packageRoot(), 'drizzle', 'postgres'),
        migrationsSchema: schema,
      })
      // A migration that changed how rollups are kept asks for them to be recounted: once, by the replica holding
      // the lock, in one transaction.
      const { rows } = await client.query(`select 1 from loupe_meta where key = 'rollups_stale'`)
      if (rows.length > 0) {
        await client.query('begin')
        try {
          await rebuildRollups(client)
          await client.query('commit')
        } catch (err) {
          await client.query('rollback').catch(() => {})
          throw err
        }
      }
      const search = await client.query(`select 1 from loupe_meta where key = 'search_stale'`)
      if (search.rows.length > 0) await fillSearchText(client)
    } finally {
      await client.query('select pg_advisory_unlock(hashtext($1))', [`loupe:migrate:${schema}`])
    }
  } finally {
    client.release()
  }
}
