// The embedded SQLite store (better-sqlite3 through Drizzle): migrations at open, every query of the Store interface.
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import Database from 'better-sqlite3'
import { and, asc, count, desc, eq, gt, gte, inArray, isNull, lt, lte, ne, type SQL, sql } from 'drizzle-orm'
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import type { ApiKey, Project, Trace } from '../../../schemas/index.js'
import {
  type BucketTotals,
  CHART_BUCKETS,
  chartPoints,
  chartWindow,
  HOUR_MS,
  mean,
  p95Index,
  percentage,
  RECENT_FAILURES,
  sortBreakdown,
} from '../../analytics/math.js'
import { packageRoot } from '../../lib/paths.js'
import { fromZonelessIso, toUtcIso, toZonelessIso } from '../../lib/time.js'
import type {
  ApiKeyRecord,
  InsertOutcome,
  KeyContext,
  PendingSpan,
  PendingSpanOutcome,
  PendingTrace,
  Store,
  TraceFilter,
} from '../types.js'
import { type ApiKeyRow, apiKeys, otlpPendingSpans, projects, type TraceRow, traces } from './tables.js'

const tables = { projects, apiKeys, traces, otlpPendingSpans }
type Db = BetterSQLite3Database<typeof tables>

/** `:memory:`, a bare path, or a `file:` URL → what better-sqlite3 opens. */
export function sqlitePath(url: string): string {
  if (url === ':memory:' || url === 'file::memory:') return ':memory:'
  if (url.startsWith('file://')) return new URL(url).pathname
  if (url.startsWith('file:')) return url.slice('file:'.length)
  return url
}

const rowToTrace = (row: TraceRow): Trace => ({ ...row, created_at: toUtcIso(row.created_at) })
const traceToRow = (trace: Trace): TraceRow => ({ ...trace, created_at: Date.parse(trace.created_at) })

const rowToProject = (row: typeof projects.$inferSelect): Project => ({
  ...row,
  created_at: toZonelessIso(row.created_at),
})

const optionalTime = (ms: number | null) => (ms === null ? null : toZonelessIso(ms))

function whereOf(filter: TraceFilter): SQL | undefined {
  const f = filter
  return and(
    f.project_id !== undefined ? eq(traces.project_id, f.project_id) : undefined,
    f.status !== undefined ? eq(traces.status, f.status) : undefined,
    f.model !== undefined ? eq(traces.model, f.model) : undefined,
    f.environment !== undefined ? eq(traces.environment, f.environment) : undefined,
    f.session_id !== undefined ? eq(traces.session_id, f.session_id) : undefined,
    f.user_id !== undefined ? eq(traces.user_id, f.user_id) : undefined,
    f.min_latency !== undefined ? gte(traces.latency, f.min_latency) : undefined,
    f.max_latency !== undefined ? lte(traces.latency, f.max_latency) : undefined,
    f.min_tokens !== undefined ? gte(traces.token_count, f.min_tokens) : undefined,
    f.max_tokens !== undefined ? lte(traces.token_count, f.max_tokens) : undefined,
    f.since !== undefined ? gte(traces.created_at, f.since) : undefined,
    f.until !== undefined ? lt(traces.created_at, f.until) : undefined,
  )
}

const newestFirst = [desc(traces.created_at), desc(traces.trace_id)]

export interface SqliteStoreOptions {
  /** Run the committed migrations at open (default true). */
  migrate?: boolean
}

export function createSqliteStore(url: string, options: SqliteStoreOptions = {}): Store & { raw: Database.Database } {
  const path = sqlitePath(url)
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const sqlite = new Database(path)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma('busy_timeout = 5000')
  const db: Db = drizzle(sqlite, { schema: tables })
  if (options.migrate !== false) migrate(db, { migrationsFolder: join(packageRoot(), 'drizzle', 'sqlite') })

  const traceById = db
    .select()
    .from(traces)
    .where(eq(traces.trace_id, sql.placeholder('id')))
    .prepare()
  const insertTrace = (row: TraceRow) => db.insert(traces).values(row).run()

  const storeTraces = sqlite.transaction((batch: Trace[]): InsertOutcome[] =>
    batch.map((trace) => {
      const existing = traceById.get({ id: trace.trace_id })
      if (existing) {
        return existing.project_id === trace.project_id
          ? { kind: 'exists', trace: rowToTrace(existing) }
          : { kind: 'conflict', trace_id: trace.trace_id }
      }
      insertTrace(traceToRow(trace))
      return { kind: 'created', trace }
    }),
  )

  const traceOwner = db
    .select({ project_id: traces.project_id })
    .from(traces)
    .where(eq(traces.trace_id, sql.placeholder('id')))
    .prepare()
  const pendingOwner = db
    .select({ project_id: otlpPendingSpans.project_id })
    .from(otlpPendingSpans)
    .where(
      and(
        eq(otlpPendingSpans.trace_id, sql.placeholder('id')),
        ne(otlpPendingSpans.project_id, sql.placeholder('project')),
      ),
    )
    .limit(1)
    .prepare()

  /** A span joins its trace's pending spans, unless that trace is already stored or belongs to another project. */
  const keepPendingSpans = sqlite.transaction((spans: PendingSpan[]): PendingSpanOutcome[] =>
    spans.map((span) => {
      const stored = traceOwner.get({ id: span.trace_id })
      if (stored) return stored.project_id === span.project_id ? 'stored' : 'conflict'
      if (pendingOwner.get({ id: span.trace_id, project: span.project_id })) return 'conflict'
      const { changes } = db.insert(otlpPendingSpans).values(span).onConflictDoNothing().run()
      return changes > 0 ? 'added' : 'duplicate'
    }),
  )

  const keyRowToApiKey = (row: ApiKeyRow & { project_name: string }): ApiKey => ({
    key_id: row.key_id,
    key_preview: row.key_preview,
    project_id: row.project_id,
    project_name: row.project_name,
    environment: row.environment,
    created_at: toZonelessIso(row.created_at),
    last_used_at: optionalTime(row.last_used_at),
    revoked_at: optionalTime(row.revoked_at),
  })
  const keysWithProject = () =>
    db
      .select({
        key_id: apiKeys.key_id,
        project_id: apiKeys.project_id,
        key_hash: apiKeys.key_hash,
        key_preview: apiKeys.key_preview,
        environment: apiKeys.environment,
        created_at: apiKeys.created_at,
        last_used_at: apiKeys.last_used_at,
        revoked_at: apiKeys.revoked_at,
        project_name: projects.name,
      })
      .from(apiKeys)
      .innerJoin(projects, eq(projects.project_id, apiKeys.project_id))

  const listNewest = (where: SQL | undefined, limit: number, offset = 0) =>
    db
      .select()
      .from(traces)
      .where(where)
      .orderBy(...newestFirst)
      .limit(limit)
      .offset(offset)
      .all()
      .map(rowToTrace)

  /** The counts that /analytics and /failures must agree on, from one query. */
  const failureCounts = (where: SQL | undefined, slowThresholdMs: number) =>
    db
      .select({
        total: count(),
        success: sql<number>`coalesce(sum(${traces.status} = 'success'), 0)`,
        failed: sql<number>`coalesce(sum(${traces.status} = 'failed'), 0)`,
        warning: sql<number>`coalesce(sum(${traces.status} = 'warning'), 0)`,
        retries: sql<number>`coalesce(sum(${traces.retry_count} > 0), 0)`,
        slow: sql<number>`coalesce(sum(${traces.latency} >= ${slowThresholdMs}), 0)`,
        latencySum: sql<number>`coalesce(sum(${traces.latency}), 0)`,
        tokens: sql<number>`coalesce(sum(${traces.token_count}), 0)`,
      })
      .from(traces)
      .where(where)
      .get() ?? { total: 0, success: 0, failed: 0, warning: 0, retries: 0, slow: 0, latencySum: 0, tokens: 0 }

  const breakdown = (column: SQL, where: SQL | undefined) =>
    sortBreakdown(
      db
        .select({ key: sql<string>`${column}`, count: count() })
        .from(traces)
        .where(where)
        .groupBy(column)
        .all(),
    )

  return {
    dialect: 'sqlite',
    raw: sqlite,

    async ping() {
      sqlite.prepare('select 1').get()
    },

    async close() {
      if (sqlite.open) sqlite.close()
    },

    async createProject(project, key) {
      return sqlite.transaction(() => {
        const taken = db
          .select({ id: projects.project_id })
          .from(projects)
          .where(eq(projects.project_id, project.project_id))
          .get()
        if (taken) return false
        db.insert(projects)
          .values({ ...project, created_at: fromZonelessIso(project.created_at) })
          .run()
        db.insert(apiKeys).values(key).run()
        return true
      })()
    },

    async listProjects() {
      return db
        .select()
        .from(projects)
        .orderBy(asc(projects.created_at), asc(projects.project_id))
        .all()
        .map(rowToProject)
    },

    async getProject(projectId) {
      const row = db.select().from(projects).where(eq(projects.project_id, projectId)).get()
      return row ? rowToProject(row) : null
    },

    async createApiKey(key: ApiKeyRecord) {
      db.insert(apiKeys).values(key).run()
    },

    async listApiKeys(projectId) {
      return keysWithProject()
        .where(projectId !== undefined ? eq(apiKeys.project_id, projectId) : undefined)
        .orderBy(asc(apiKeys.created_at), asc(apiKeys.key_id))
        .all()
        .map(keyRowToApiKey)
    },

    async findApiKey(keyHash): Promise<KeyContext | null> {
      const row = keysWithProject()
        .where(and(eq(apiKeys.key_hash, keyHash), isNull(apiKeys.revoked_at)))
        .get()
      return row
        ? {
            key_id: row.key_id,
            project_id: row.project_id,
            project_name: row.project_name,
            environment: row.environment,
            last_used_at: row.last_used_at,
          }
        : null
    },

    async touchApiKey(keyId, at) {
      db.update(apiKeys).set({ last_used_at: at }).where(eq(apiKeys.key_id, keyId)).run()
    },

    async revokeApiKey(keyId, at) {
      db.update(apiKeys)
        .set({ revoked_at: at })
        .where(and(eq(apiKeys.key_id, keyId), isNull(apiKeys.revoked_at)))
        .run()
      const row = keysWithProject().where(eq(apiKeys.key_id, keyId)).get()
      return row ? keyRowToApiKey(row) : null
    },

    async insertTraces(batch) {
      return storeTraces(batch)
    },

    async getTrace(traceId) {
      const row = traceById.get({ id: traceId })
      return row ? rowToTrace(row) : null
    },

    async listTraces(filter, page) {
      const where = whereOf(filter)
      const total = db.select({ n: count() }).from(traces).where(where).get()?.n ?? 0
      return { total, items: total > page.offset ? listNewest(where, page.limit, page.offset) : [] }
    },

    async analytics({ project_id, now, slowThresholdMs }) {
      const scope = whereOf({ project_id })
      const c = failureCounts(scope, slowThresholdMs)
      const p95 =
        c.total === 0
          ? 0
          : (db
              .select({ latency: traces.latency })
              .from(traces)
              .where(scope)
              .orderBy(asc(traces.latency))
              .limit(1)
              .offset(p95Index(c.total))
              .get()?.latency ?? 0)
      const { start, end } = chartWindow(now)
      const bucket = sql<number>`(${traces.created_at} - ${start}) / ${HOUR_MS}`
      const buckets: BucketTotals[] = db
        .select({
          bucket,
          traces: count(),
          tokens: sql<number>`coalesce(sum(${traces.token_count}), 0)`,
          latencySum: sql<number>`coalesce(sum(${traces.latency}), 0)`,
        })
        .from(traces)
        .where(and(scope, gte(traces.created_at, start), lt(traces.created_at, end)))
        .groupBy(bucket)
        .all()
        .filter((b) => b.bucket >= 0 && b.bucket < CHART_BUCKETS)
      return {
        summary: {
          total_traces: c.total,
          success_rate: percentage(c.success, c.total),
          average_latency: mean(c.latencySum, c.total),
          p95_latency: p95,
          total_token_usage: c.tokens,
          failed_traces: c.failed,
          warning_traces: c.warning,
          retries: c.retries,
          slow_requests: c.slow,
        },
        charts: chartPoints(start, buckets),
        status_breakdown: breakdown(sql`${traces.status}`, scope),
        model_breakdown: breakdown(sql`coalesce(${traces.model}, 'unknown')`, scope),
        project_breakdown: breakdown(sql`${traces.project_id}`, scope),
        recent_failures: listNewest(and(scope, eq(traces.status, 'failed')), RECENT_FAILURES),
      }
    },

    async failures({ project_id, limit, slowThresholdMs }) {
      const scope = whereOf({ project_id })
      const c = failureCounts(scope, slowThresholdMs)
      return {
        failed_traces: listNewest(and(scope, eq(traces.status, 'failed')), limit),
        retries: listNewest(and(scope, gt(traces.retry_count, 0)), limit),
        slow_requests: listNewest(and(scope, gte(traces.latency, slowThresholdMs)), limit),
        totals: { failed_traces: c.failed, retries: c.retries, slow_requests: c.slow },
      }
    },

    async addPendingSpans(spans) {
      return keepPendingSpans(spans)
    },

    async listPendingTraces(): Promise<PendingTrace[]> {
      const p = otlpPendingSpans
      return db
        .select({
          trace_id: p.trace_id,
          project_id: sql<string>`max(${p.project_id})`,
          environment: sql<PendingTrace['environment']>`max(${p.environment})`,
          root_received_at: sql<number | null>`min(case when ${p.is_root} then ${p.received_at} end)`,
          last_received_at: sql<number>`max(${p.received_at})`,
          spans: count(),
        })
        .from(p)
        .groupBy(p.trace_id)
        .all()
    },

    async getPendingSpans(traceId) {
      return (
        db
          .select()
          .from(otlpPendingSpans)
          .where(eq(otlpPendingSpans.trace_id, traceId))
          // rowid grows with every insert (it is max + 1), so this is the order the spans arrived in.
          .orderBy(sql`rowid`)
          .all()
      )
    },

    async deletePendingSpans(traceId, spanIds) {
      // Chunked: SQLite bounds the number of bound parameters in one statement.
      for (let i = 0; i < spanIds.length; i += 500) {
        db.delete(otlpPendingSpans)
          .where(
            and(eq(otlpPendingSpans.trace_id, traceId), inArray(otlpPendingSpans.span_id, spanIds.slice(i, i + 500))),
          )
          .run()
      }
    },
  }
}
