// What every PostgreSQL sub-store is made from: the pool and Drizzle over it, the transactions and snapshots run on
// it, the search counts the trace store keeps, and what the replica feed shares with the trace writes (lifecycle.ts
// opens it).
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import type pg from 'pg'
import type { FeedLog, ReplicaFeed } from './replica-feed.js'
import type { transactionsOf } from './statements.js'
import type { apiKeys, projects } from './tables.js'
import type { PostgresSearchCounts } from './trace-rows.js'

export type PostgresDrizzle = NodePgDatabase<{ projects: typeof projects; apiKeys: typeof apiKeys }>

export interface PostgresContext extends ReturnType<typeof transactionsOf> {
  pool: pg.Pool
  db: PostgresDrizzle
  /** The schema Loupe's tables live in (`?schema=`, else public). */
  schema: string
  searchCounts: PostgresSearchCounts
  /** The NOTIFY channel of this schema, and this store's id in its notifications (its own are skipped). */
  channel: string
  origin: string
  /** The feed of other replicas' traces while this store follows them: told of the traces this store stores. */
  feed: ReplicaFeed | null
  /** A new connection of its own, off the pool (a LISTEN holds its connection for good). */
  connect(): Promise<pg.Client>
  log: FeedLog
}
