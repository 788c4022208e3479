// The PostgreSQL store, for several Loupe replicas on one database: opened (and migrated) by lifecycle.ts, composed of
// one sub-store per domain, each in its own file (traces.ts, activity.ts, projects.ts, prices.ts, pending-spans.ts,
// alerts.ts, scores.ts, annotation.ts) over one shared context.
import type pg from 'pg'
import type { Store } from '../types.js'
import { createPostgresActivityStore } from './activity.js'
import { createPostgresAlertStore } from './alerts.js'
import { createPostgresAnnotationStore } from './annotation.js'
import { createPostgresEvaluationStore } from './evaluations.js'
import { createPostgresEvaluatorStore } from './evaluators.js'
import { createPostgresLifecycle, openPostgres, type PostgresStoreOptions } from './lifecycle.js'
import { createPostgresPendingSpanStore } from './pending-spans.js'
import { createPostgresPriceStore } from './prices.js'
import { createPostgresProjectStore } from './projects.js'
import type { ReplicaFeed } from './replica-feed.js'
import { createPostgresScoreStore } from './scores.js'
import { createPostgresTraceStore } from './traces.js'

export { channelOf, type PostgresStoreOptions, postgresTarget } from './lifecycle.js'

export async function createPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<Store & { pool: pg.Pool; schema: string; feed(): ReplicaFeed | null }> {
  const ctx = await openPostgres(url, options)
  return {
    ...createPostgresLifecycle(ctx, options),
    pool: ctx.pool,
    schema: ctx.schema,
    feed: () => ctx.feed,
    traces: createPostgresTraceStore(ctx),
    activity: createPostgresActivityStore(ctx),
    projects: createPostgresProjectStore(ctx),
    prices: createPostgresPriceStore(ctx),
    pending: createPostgresPendingSpanStore(ctx),
    alerts: createPostgresAlertStore(ctx),
    scores: createPostgresScoreStore(ctx),
    evaluators: createPostgresEvaluatorStore(ctx),
    evaluations: createPostgresEvaluationStore(ctx),
    annotation: createPostgresAnnotationStore(ctx),
  }
}
