// The embedded SQLite store: opened (and migrated) by lifecycle.ts, composed of one sub-store per domain, each in its
// own file (traces.ts, activity.ts, projects.ts, prices.ts, pending-spans.ts, alerts.ts,
// scores.ts, annotation.ts) over one shared context.
import type { Store } from '../types.js'
import { createSqliteActivityStore } from './activity.js'
import { createSqliteAlertStore } from './alerts.js'
import { createSqliteAnnotationStore } from './annotation.js'
import type { SqliteDatabase } from './driver.js'
import { createSqliteEvaluationStore } from './evaluations.js'
import { createSqliteEvaluatorStore } from './evaluators.js'
import { createSqliteLifecycle, openSqlite, type SqliteStoreOptions } from './lifecycle.js'
import { createSqlitePendingSpanStore } from './pending-spans.js'
import { createSqlitePriceStore } from './prices.js'
import { createSqliteProjectStore } from './projects.js'
import { createSqliteScoreStore } from './scores.js'
import { createSqliteTraceStore } from './traces.js'

export { DEFAULT_WAL_MAX_BYTES, type SqliteStoreOptions, sqlitePath } from './lifecycle.js'

export function createSqliteStore(url: string, options: SqliteStoreOptions = {}): Store & { raw: SqliteDatabase } {
  const ctx = openSqlite(url, options)
  return {
    ...createSqliteLifecycle(ctx),
    raw: ctx.sqlite,
    traces: createSqliteTraceStore(ctx),
    activity: createSqliteActivityStore(ctx),
    projects: createSqliteProjectStore(ctx),
    prices: createSqlitePriceStore(ctx),
    pending: createSqlitePendingSpanStore(ctx),
    alerts: createSqliteAlertStore(ctx),
    scores: createSqliteScoreStore(ctx),
    evaluators: createSqliteEvaluatorStore(ctx),
    evaluations: createSqliteEvaluationStore(ctx),
    annotation: createSqliteAnnotationStore(ctx),
  }
}
