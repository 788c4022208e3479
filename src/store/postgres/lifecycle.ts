// The PostgreSQL database's lifecycle: the pool opened (its connections' parsers, its lost connections logged), the
// migrations applied under an advisory lock (replicas starting together do not race); then what the store answers
// of the database itself: ping, the write probe, stats, the close, and the replica feed (LISTEN/NOTIFY) that brings
// traces stored by other replicas to this one.
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'
import type { Trace } from '../../../schemas/index.js'
import { packageRoot } from '../../lib/paths.js'
import type { LifecycleStore } from '../types.js'
import { PROBE_BYTES } from '../write-health.js'
import type { PostgresContext, PostgresDrizzle } from './context.js'
import { decodeText, parseEncodedJson } from './nul.js'
import { createReplicaFeed, type FeedLog } from './replica-feed.js'
import { type Queryable, transactionsOf } from './statements.js'
import { apiKeys, projects, type TraceRow } from './tables.js'
import { createPostgresSearchCounts, fromRow, SELECT_TRACE } from './trace-rows.js'
import { fillSearchText, rebuildRollups } from './trace-writes.js'

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

const SILENT: FeedLog = { info() {}, warn() {} }

/** Opens (and migrates) the database `url` names: the context its sub-stores are made from. */
export async function openPostgres(url: string, options: PostgresStoreOptions = {}): Promise<PostgresContext> {
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
  const db: PostgresDrizzle = drizzle(pool, { schema: { projects, apiKeys } })

  if (options.migrate !== false) {
    try {
      await migrateLocked(pool, schema)
    } catch (err) {
      await pool.end().catch(() => {})
      throw err
    }
  }

  return {
    pool,
    db,
    schema,
    ...transactionsOf(pool),
    searchCounts: createPostgresSearchCounts(),
    channel: channelOf(schema),
    origin: randomUUID(),
    feed: null,
    async connect() {
      const client = new pg.Client({ ...clientConfig, application_name: `loupe-feed ${schema}`.slice(0, 63) })
      await client.connect()
      return client
    },
    log,
  }
}

export function createPostgresLifecycle(
  ctx: PostgresContext,
  options: Pick<PostgresStoreOptions, 'feedReconnectMs'> = {},
): LifecycleStore {
  const { pool, schema, transaction, searchCounts } = ctx
  return {
    dialect: 'postgresql',
    blocksEventLoop: false,

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
      await ctx.feed?.close()
      ctx.feed = null
      if (!pool.ended) await pool.end()
    },

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

    // PostgreSQL's autovacuum makes the space of deleted rows reusable by itself.
    async reclaimSpace() {
      return false
    },

    async followReplicas(listener: (traces: readonly Trace[]) => void) {
      if (ctx.feed) throw new Error('this store already follows its replicas')
      const started = createReplicaFeed({
        connect: ctx.connect,
        channel: ctx.channel,
        origin: ctx.origin,
        bySeq: (seqs) => tracesBySeq(pool, seqs),
        after: (seq, limit) => tracesAfter(pool, seq, limit),
        maxSeq: () => maxSeq(pool),
        deliver: listener,
        log: ctx.log,
        reconnectMs: options.feedReconnectMs,
      })
      await started.start()
      ctx.feed = started
      return async () => {
        if (ctx.feed === started) ctx.feed = null
        await started.close()
      }
    },
  }
}

/** Traces by their seq numbers, in seq order. */
async function tracesBySeq(db: Queryable, seqs: readonly number[]): Promise<(Trace & { seq: number })[]> {
  const rows = await db.query<TraceRow & { seq: number }>(
    `${SELECT_TRACE.replace(' from', ', seq from')} where seq = any($1::int8[]) order by seq`,
    [seqs],
  )
  return rows.rows.map((row) => {
    const { seq, ...trace } = row
    return { ...fromRow(trace), seq }
  })
}

/** Traces stored after seq `after`, oldest first, at most `limit`. */
async function tracesAfter(db: Queryable, after: number, limit: number): Promise<(Trace & { seq: number })[]> {
  const rows = await db.query<{ seq: number }>('select seq from traces where seq > $1 order by seq limit $2', [
    after,
    limit,
  ])
  return rows.rows.length === 0
    ? []
    : tracesBySeq(
        db,
        rows.rows.map((r) => r.seq),
      )
}

async function maxSeq(db: Queryable): Promise<number> {
  const rows = await db.query<{ seq: number | null }>('select max(seq) as seq from traces')
  return rows.rows[0]?.seq ?? 0
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
