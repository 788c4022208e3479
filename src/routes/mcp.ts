// POST /mcp: the MCP server over Streamable HTTP (docs/api.md, MCP), stateless — each POST gets a server and a
// transport of its own, built for its caller, and the SDK's transport answers it. GET and DELETE answer 405: there is
// no session to resume or end, and no stream of the server's own. Hidden from the OpenAPI document: its messages are
// JSON-RPC, defined by the MCP specification, not REST operations.
//
// The tools ask their questions of the services the REST routes call — the same functions, each with the scope its
// REST route would have for the caller's credential and the project the question names (`app.scopeAs`) — so scope
// rules and answers are those of the REST API, without a second HTTP request per question. A refusal or failure
// carries the status and message the REST route would answer.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify'
import type { FailuresQuery, Filled, ListTraceSummariesResponse } from '../../schemas/index.js'
import { authorize, type Credential, type Mode, type Principal } from '../lib/access-policy.js'
import { createMcpServer } from '../mcp/server.js'
import type { McpSource } from '../mcp/source.js'
import { createMcpTools } from '../mcp/tools.js'
import { errorStatus } from '../plugins/errors.js'
import { analyticsOf, failuresOf } from './analytics.js'
import { getSession, listSessions } from './sessions.js'

/** A REST question's failure as the SDK's client reports it: its status, and its message after it. */
class RestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(`${status} ${message}`)
  }
}

/** The caller's questions asked of the services, each within the scope its REST route would give the caller. */
function inProcessSource(app: FastifyInstance, request: FastifyRequest): McpSource {
  /** Runs `ask` within the scope of a read naming `project_id`; its failure as the REST route would answer it. */
  async function read<T>(project_id: string | undefined, ask: (scope: string | null) => Promise<T>): Promise<T> {
    try {
      return await ask(app.scopeAs(request, 'read', { project_id }))
    } catch (err) {
      throw restError(request, err as FastifyError)
    }
  }
  return {
    listTraceSummaries: (query) =>
      read(query.project_id, (scope) =>
        app.traces.list({ ...query, fields: 'summary' }, scope),
      ) as Promise<ListTraceSummariesResponse>,
    getTrace: (traceId) => read(undefined, (scope) => app.traces.get(traceId, scope)),
    failures: (query) =>
      read(query.project_id, (scope) => failuresOf(app, scope, (query as Filled<FailuresQuery, 'limit'>).limit)),
    analytics: (query) => read(query.project_id, (scope) => analyticsOf(app, scope)),
    score: async (input) => {
      try {
        const scope = app.scopeAs(request, 'score', {})
        return (await app.scores.recordOne(input, { scope, publicKey: request.apiKey?.kind === 'public' })).score
      } catch (err) {
        throw restError(request, err as FastifyError)
      }
    },
    sessions: {
      list: (query) => read(query.project_id, (scope) => listSessions(app, query, scope)),
      get: (sessionId, query) => read(query.project_id, (scope) => getSession(app, sessionId, query, scope)),
    },
  }
}

/** A service's failure as its REST route answers it (a 5xx logged, and told as no more than its status). */
function restError(request: FastifyRequest, err: FastifyError): RestError {
  const { statusCode, message } = errorStatus(err)
  if (statusCode >= 500 && statusCode !== 503) request.log.error({ err }, 'an MCP tool failed')
  return new RestError(statusCode, message)
}

/** The credential a request was let in with, as the access policy knows it. */
function credentialOf(principal: Principal): Credential {
  return principal.kind === 'open' ? { kind: 'none' } : principal
}

const mcp: FastifyPluginAsync = async (app) => {
  const tools = createMcpTools(app.validators.body)
  const mode: Mode = app.config.adminToken === null ? 'open' : 'protected'

  // POST /mcp
  app.post('/mcp', { config: { access: 'read' }, schema: { hide: true } }, async (request, reply) => {
    // add_score is offered to whoever POST /scores would let record a score.
    const writes = authorize(mode, credentialOf(request.principal), 'score').allow
    const server: Server = createMcpServer({ tools, source: inProcessSource(app, request), writes })
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    // The transport writes the answer itself: the headers set so far (CORS) go with it.
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) reply.raw.setHeader(name, value)
    }
    reply.hijack()
    reply.raw.on('close', () => {
      void transport.close()
      void server.close()
    })
    try {
      await server.connect(transport)
      await transport.handleRequest(request.raw, reply.raw, request.body)
    } catch (err) {
      request.log.error({ err }, 'the MCP transport failed')
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' })
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }))
      } else reply.raw.destroy()
    }
  })

  // GET /mcp, DELETE /mcp
  app.route({
    method: ['GET', 'DELETE'],
    url: '/mcp',
    config: { access: 'read' },
    schema: { hide: true },
    handler: async (_request, reply) =>
      reply
        .code(405)
        .header('allow', 'POST')
        .send({
          jsonrpc: '2.0',
          error: {
            code: -32000,
            message:
              'Method not allowed: this MCP server is stateless (no session, no stream of its own); POST each message',
          },
          id: null,
        }),
  })
}

export default mcp
