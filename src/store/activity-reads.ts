// GET /sessions and GET /users, shared by every store: pages of the session and user rollups (newest activity first,
// through their last_at indexes) and a session's traces (through the session index), never a scan of the traces.
import type {
  SessionDetailResponse,
  SessionSummary,
  Trace,
  UserDetailResponse,
  UserSummary,
} from '../../schemas/index.js'
import { toUsd } from '../analytics/math.js'
import { toUtcIso } from '../lib/time.js'
import type { Query, Selection } from './read-queries.js'
import { type ActivityDelta, type SessionDelta, sumRollups, type UserDelta } from './rollups.js'
import { activityKey, scoreMeansOf } from './score-reads.js'
import type { ActivityFilter } from './types.js'

/** Rows of the sessions and users rollups, as read back. */
type ActivityRow = ActivityDelta
type SessionRow = SessionDelta
type UserRow = UserDelta

export interface ActivityQueries {
  query: Query
  select(selection: Selection): Promise<Trace[]>
  /** How many sessions or users there are (of a project), where the store keeps that count; else they are counted. */
  countAll?(kind: 'sessions' | 'users', projectId: string | undefined): Promise<number>
}

const TABLE = { sessions: 'session_totals', users: 'user_totals' } as const
const ID = { sessions: 'session_id', users: 'user_id' } as const

function activityWhere(kind: keyof typeof TABLE, f: ActivityFilter & { id?: string }, bind: (v: unknown) => string) {
  const clauses: string[] = []
  if (f.project_id !== undefined) clauses.push(`project_id = ${bind(f.project_id)}`)
  if (f.id !== undefined) clauses.push(`${ID[kind]} = ${bind(f.id)}`)
  if (kind === 'sessions' && f.user_id !== undefined) clauses.push(`user_id = ${bind(f.user_id)}`)
  if (f.since !== undefined) clauses.push(`last_at >= ${bind(f.since)}`)
  if (f.until !== undefined) clauses.push(`first_at < ${bind(f.until)}`)
  return clauses.length > 0 ? `where ${clauses.join(' and ')}` : ''
}

function totalsOf(row: ActivityRow) {
  const sums = sumRollups([row])
  return {
    traces: Number(row.traces),
    first_at: toUtcIso(Number(row.first_at)),
    last_at: toUtcIso(Number(row.last_at)),
    latency_total: Number(sums.latencyMicros) / 1000,
    token_count: Number(sums.tokens),
    cost: toUsd(sums.costNanos),
    unpriced: Number(row.unpriced),
    failed: Number(row.failed),
    warnings: Number(row.warnings),
  }
}

const toSession = (row: SessionRow, scores: Map<string, SessionSummary['scores']>): SessionSummary => ({
  session_id: row.session_id,
  project_id: row.project_id,
  user_id: row.user_id,
  ...totalsOf(row),
  scores: scores.get(activityKey(row.project_id, row.session_id)) ?? {},
})

export function createActivityReads(q: ActivityQueries) {
  /** Sessions with their score means (one grouped read for the page). */
  const toSessions = async (list: readonly SessionRow[]) => {
    const means = await scoreMeansOf(
      q.query,
      'session_id',
      list.map((r) => ({ project_id: r.project_id, id: r.session_id })),
    )
    return list.map((row) => toSession(row, means))
  }

  const rows = <R>(kind: keyof typeof TABLE, f: ActivityFilter & { id?: string }, limit: number, offset: number) =>
    q.query<R>(
      (bind) =>
        `select * from ${TABLE[kind]} ${activityWhere(kind, f, bind)}
         order by last_at desc, ${ID[kind]} desc, project_id desc limit ${bind(limit)} offset ${bind(offset)}`,
    )
  const count = async (kind: keyof typeof TABLE, f: ActivityFilter) => {
    if (q.countAll && f.user_id === undefined && f.since === undefined && f.until === undefined) {
      return q.countAll(kind, f.project_id)
    }
    const [row] = await q.query<{ n: number }>(
      (bind) => `select count(*) as n from ${TABLE[kind]} ${activityWhere(kind, f, bind)}`,
    )
    return Number(row?.n ?? 0)
  }

  /** Users with how many sessions are theirs (one grouped count through the sessions' user index). */
  async function toUsers(list: UserRow[]): Promise<UserSummary[]> {
    if (list.length === 0) return []
    const counts = await q.query<{ project_id: string; user_id: string; n: number }>(
      (bind) =>
        `select project_id, user_id, count(*) as n from session_totals
         where user_id in (${[...new Set(list.map((u) => u.user_id))].map(bind).join(', ')})
         group by project_id, user_id`,
    )
    const sessions = new Map(counts.map((c) => [activityKey(c.project_id, c.user_id), Number(c.n)]))
    const means = await scoreMeansOf(
      q.query,
      'user_id',
      list.map((r) => ({ project_id: r.project_id, id: r.user_id })),
    )
    return list.map((row) => ({
      user_id: row.user_id,
      project_id: row.project_id,
      sessions: sessions.get(activityKey(row.project_id, row.user_id)) ?? 0,
      ...totalsOf(row),
      scores: means.get(activityKey(row.project_id, row.user_id)) ?? {},
    }))
  }

  return {
    async listSessions(f: ActivityFilter, page: { limit: number; offset: number }) {
      const total = await count('sessions', f)
      const items = total > page.offset ? await rows<SessionRow>('sessions', f, page.limit, page.offset) : []
      return { total, items: await toSessions(items) }
    },

    /** A session (of a project, else the most recently active one with this id) and its traces, oldest first. */
    async getSession(sessionId: string, projectId: string | undefined, limit: number) {
      const [row] = await rows<SessionRow>('sessions', { project_id: projectId, id: sessionId }, 1, 0)
      if (!row) return null
      const traces = await q.select({
        filter: { project_id: row.project_id, session_id: sessionId },
        limit,
        offset: 0,
        ordering: { sort: 'created_at', order: 'asc' },
      })
      const [session] = await toSessions([row])
      return { session: session!, traces } satisfies SessionDetailResponse
    },

    async listUsers(f: ActivityFilter, page: { limit: number; offset: number }) {
      const scope = { project_id: f.project_id, since: f.since, until: f.until }
      const total = await count('users', scope)
      const items = total > page.offset ? await rows<UserRow>('users', scope, page.limit, page.offset) : []
      return { total, items: await toUsers(items) }
    },

    /** A user (of a project, else the most recently active one with this id) and its sessions, newest first. */
    async getUser(userId: string, projectId: string | undefined, limit: number) {
      const [row] = await rows<UserRow>('users', { project_id: projectId, id: userId }, 1, 0)
      if (!row) return null
      const [user] = await toUsers([row])
      const sessions = await rows<SessionRow>('sessions', { project_id: row.project_id, user_id: userId }, limit, 0)
      return { user: user!, sessions: await toSessions(sessions) } satisfies UserDetailResponse
    },
  }
}

export type ActivityReads = ReturnType<typeof createActivityReads>
