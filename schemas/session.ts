// Sessions (a conversation: the traces that share a session_id) and users (the traces that share a user_id), each
// summed up from rollups kept in the same transaction as the traces.
import { type Static, type TArray, type TInteger, type TSchema, type TUnsafe, Type } from '@sinclair/typebox'
import { LimitQuery, Nullable, Page, Ref, TimestampQuery, UtcTimestamp } from './common.js'
import {
  listSessionsExample,
  listUsersExample,
  sessionDetailExample,
  sessionSummaryExample,
  userDetailExample,
  userSummaryExample,
} from './examples.js'
import { scoreSummary } from './score.js'
import { TraceSchema } from './trace.js'

const totals = {
  traces: Type.Integer({ description: 'Its traces.' }),
  first_at: UtcTimestamp,
  last_at: UtcTimestamp,
  latency_total: Type.Number({ description: 'Σ latency of its traces, ms (exact to the microsecond).' }),
  token_count: Type.Integer({ description: 'Σ token_count of its traces.' }),
  cost: Type.Number({ description: 'Σ cost of its priced traces, USD (exact to the nano-dollar).' }),
  unpriced: Type.Integer({ description: 'Of its traces, those without a cost.' }),
  failed: Type.Integer({ description: 'Of its traces, those failed.' }),
  warnings: Type.Integer({ description: 'Of its traces, those with status warning.' }),
  scores: scoreSummary(
    'Per score name: how many scores it has and their mean value (scores of its traces, and of a session itself).',
  ),
}

export const SessionSummarySchema = Type.Object(
  {
    session_id: Type.String(),
    project_id: Type.String(),
    user_id: Nullable(
      Type.String({ description: 'The user of its earliest trace that names one (ties: the smallest user_id).' }),
    ),
    ...totals,
  },
  { $id: 'SessionSummarySchema', additionalProperties: false, examples: [sessionSummaryExample] },
)
export type SessionSummary = Static<typeof SessionSummarySchema>

export const UserSummarySchema = Type.Object(
  {
    user_id: Type.String(),
    project_id: Type.String(),
    sessions: Type.Integer({ description: 'Sessions whose user this is.' }),
    ...totals,
  },
  { $id: 'UserSummarySchema', additionalProperties: false, examples: [userSummaryExample] },
)
export type UserSummary = Static<typeof UserSummarySchema>

const ActivityQuery = {
  project_id: Type.Optional(Type.String({ description: 'Only this project.' })),
  since: Type.Optional(TimestampQuery('Active at or after: last_at ≥ since.')),
  until: Type.Optional(TimestampQuery('Active before: first_at < until.')),
  limit: Type.Optional(LimitQuery),
  offset: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0, description: 'Items to skip.' }),
  ),
}

/** A list of sessions or users: newest activity first, ties broken by its id, then its project. */
const ActivityPage = <T extends TSchema>(item: T, noun: string, id: 'session_id' | 'user_id', example: unknown) =>
  Page(
    Ref(item),
    {
      total: `${noun} matching the filters (not just this page).`,
      items: `Newest activity first (last_at desc, then ${id} desc, then project_id desc).`,
    },
    { examples: [example] },
  )

/** A session_id or user_id in a path. */
const ActivityId = Type.String({ minLength: 1, maxLength: 256 })

/** The query of one session or user: which project's (ids are per project), and at most how many of what it holds. */
const DetailQuery = (noun: 'session' | 'user', limit: TInteger) =>
  Type.Object({
    project_id: Type.Optional(
      Type.String({ description: `The project of the ${noun} (default: the most recently active one with this id).` }),
    ),
    limit: Type.Optional(limit),
  })

/** One session or user: its summary under its noun, then what it holds (a session its traces, a user its sessions). */
const ActivityDetail = <
  N extends 'session' | 'user',
  S extends TSchema,
  H extends 'traces' | 'sessions',
  I extends TSchema,
>(
  noun: N,
  summary: S,
  holds: H,
  item: I,
  description: string,
  example: unknown,
) =>
  Type.Object(
    { [noun]: Ref(summary), [holds]: Type.Array(Ref(item), { description }) } as Record<N, TUnsafe<Static<S>>> &
      Record<H, TArray<TUnsafe<Static<I>>>>,
    { examples: [example] },
  )

// GET /sessions
export const ListSessionsQuery = Type.Object({
  ...ActivityQuery,
  user_id: Type.Optional(Type.String({ description: 'Only the sessions of this user.' })),
})
export type ListSessionsQuery = Static<typeof ListSessionsQuery>

export const ListSessionsResponse = ActivityPage(SessionSummarySchema, 'Sessions', 'session_id', listSessionsExample)
export type ListSessionsResponse = Static<typeof ListSessionsResponse>

// GET /sessions/{session_id}
export const SessionParams = Type.Object({ session_id: ActivityId })
export const SessionQuery = DetailQuery(
  'session',
  Type.Integer({ minimum: 1, maximum: 1000, default: 1000, description: 'At most this many traces (1–1000).' }),
)
export type SessionQuery = Static<typeof SessionQuery>

export const SessionDetailResponse = ActivityDetail(
  'session',
  SessionSummarySchema,
  'traces',
  TraceSchema,
  'The conversation in order: oldest first.',
  sessionDetailExample,
)
export type SessionDetailResponse = Static<typeof SessionDetailResponse>

// GET /users
export const ListUsersQuery = Type.Object(ActivityQuery)
export type ListUsersQuery = Static<typeof ListUsersQuery>

export const ListUsersResponse = ActivityPage(UserSummarySchema, 'Users', 'user_id', listUsersExample)
export type ListUsersResponse = Static<typeof ListUsersResponse>

// GET /users/{user_id}
export const UserParams = Type.Object({ user_id: ActivityId })
export const UserQuery = DetailQuery('user', LimitQuery)
export type UserQuery = Static<typeof UserQuery>

export const UserDetailResponse = ActivityDetail(
  'user',
  UserSummarySchema,
  'sessions',
  SessionSummarySchema,
  'Its sessions, newest activity first.',
  userDetailExample,
)
export type UserDetailResponse = Static<typeof UserDetailResponse>
