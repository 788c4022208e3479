// GET /sessions, GET /sessions/{session_id}, GET /users, GET /users/{user_id}: conversations and who had them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import {
  errorResponses,
  type Filled,
  ListSessionsQuery,
  ListSessionsResponse,
  ListUsersQuery,
  ListUsersResponse,
  SessionDetailResponse,
  SessionParams,
  SessionQuery,
  UserDetailResponse,
  UserParams,
  UserQuery,
} from '../../schemas/index.js'
import { SessionNotFound, UserNotFound } from '../errors.js'
import { parseTimestamp } from '../lib/time.js'

/** A query timestamp as epoch ms (the schema's format already refused anything else). */
const epoch = (value: string | undefined) => (value === undefined ? undefined : (parseTimestamp(value) ?? undefined))

/** GET /sessions's answer within a scope (null: every project); the MCP tools ask it too. */
export function listSessions(
  app: FastifyInstance,
  query: ListSessionsQuery,
  scope: string | null,
): Promise<ListSessionsResponse> {
  const { limit, offset, since, until, user_id } = query as Filled<ListSessionsQuery, 'limit' | 'offset'>
  return app.store.activity.listSessions(
    { project_id: scope ?? undefined, user_id, since: epoch(since), until: epoch(until) },
    { limit, offset },
  )
}

/** GET /sessions/{session_id}'s answer within a scope; 404 when it has no trace there. The MCP tools ask it too. */
export async function getSession(
  app: FastifyInstance,
  sessionId: string,
  query: SessionQuery,
  scope: string | null,
): Promise<SessionDetailResponse> {
  const found = await app.store.activity.getSession(
    sessionId,
    scope ?? undefined,
    (query as Filled<SessionQuery, 'limit'>).limit,
  )
  if (!found) throw new SessionNotFound(sessionId)
  return found
}

const sessions: FastifyPluginAsyncTypebox = async (app) => {
  // GET /sessions
  app.get(
    '/sessions',
    {
      config: { access: 'read' },
      schema: {
        tags: ['sessions'],
        operationId: 'listSessions',
        summary: 'Sessions (traces sharing a session_id), newest activity first',
        querystring: ListSessionsQuery,
        response: { 200: ListSessionsResponse, ...errorResponses(400) },
      },
    },
    async (request) => listSessions(app, request.query, request.scope),
  )

  // GET /sessions/{session_id}
  app.get(
    '/sessions/:session_id',
    {
      config: { access: 'read' },
      schema: {
        tags: ['sessions'],
        operationId: 'getSession',
        summary: 'A session and its traces, oldest first (the conversation in order)',
        params: SessionParams,
        querystring: SessionQuery,
        response: { 200: SessionDetailResponse, ...errorResponses(400, 404) },
      },
    },
    async (request) => getSession(app, request.params.session_id, request.query, request.scope),
  )

  // GET /users
  app.get(
    '/users',
    {
      config: { access: 'read' },
      schema: {
        tags: ['sessions'],
        operationId: 'listUsers',
        summary: 'Users (traces sharing a user_id), newest activity first',
        querystring: ListUsersQuery,
        response: { 200: ListUsersResponse, ...errorResponses(400) },
      },
    },
    async (request) => {
      const { limit, offset, since, until } = request.query as Filled<ListUsersQuery, 'limit' | 'offset'>
      return app.store.activity.listUsers(
        { project_id: request.scope ?? undefined, since: epoch(since), until: epoch(until) },
        { limit, offset },
      )
    },
  )

  // GET /users/{user_id}
  app.get(
    '/users/:user_id',
    {
      config: { access: 'read' },
      schema: {
        tags: ['sessions'],
        operationId: 'getUser',
        summary: 'A user and its sessions, newest activity first',
        params: UserParams,
        querystring: UserQuery,
        response: { 200: UserDetailResponse, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const { user_id } = request.params
      const found = await app.store.activity.getUser(
        user_id,
        request.scope ?? undefined,
        (request.query as Filled<UserQuery, 'limit'>).limit,
      )
      if (!found) throw new UserNotFound(user_id)
      return found
    },
  )
}

export default sessions
