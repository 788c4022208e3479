// POST /mcp: the MCP server over Streamable HTTP (docs/api.md, MCP), stateless — each POST gets a server and a
// transport of its own, built for its caller, and the SDK's transport answers it. GET and DELETE answer 405: there is
// no session to resume or end, and no stream of the server's own. Hidden from the OpenAPI document: its messages are
// JSON-RPC, defined by the MCP specification, not REST operations.
//
// The tools ask their questions of the REST routes themselves, in-process (`app.inject`) with the caller's own
// credential headers: scope rules, validation and answers are those of the REST API, enforced in one place, and a
// tool's answer is by construction the REST answer to the same question.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify'
import { authorize, type Credential, type Mode, type Principal } from '../lib/access-policy.js'
import { createMcpServer } from '../mcp/server.js'
import type { McpSource } from '../mcp/source.js'
import { createMcpTools } from '../mcp/tools.js'

/** The headers a credential arrives in on /mcp; the inner requests carry the same. */
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key'] as const

/** A REST call's failure as the SDK's client reports it: its status, and its message after it. */
class RestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(`${status} ${message}`)
  }
}

type QueryValues = Record<string, string | number | boolean | null | undefined>

/** The caller's questions asked of the app's own routes, as the caller (credential, address). */
function inProcessSource(app: FastifyInstance, request: FastifyRequest): McpSource {
  const credential: Record<string, string> = {}
  for (const name of CREDENTIAL_HEADERS) {
    const value = request.headers[name]
    if (typeof value === 'string') credential[name] = value
  }
  async function call<T>(method: 'GET' | 'POST', url: string, query: object = {}, body?: unknown): Promise<T> {
    const q: Record<string, string> = {}
    for (const [key, value] of Object.entries(query as QueryValues)) {
      if (value !== undefined && value !== null) q[key] = String(value)
    }
    const res = await app.inject({
      method,
      url,
      query: q,
      headers: body === undefined ? credential : { ...credential, 'content-type': 'application/json' },
      payload: body === undefined ? undefined : JSON.stringify(body),
      remoteAddress: request.ip,
    })
    let json: unknown
    try {
      json = JSON.parse(res.body)
    } catch {
      json = undefined
    }
    if (res.statusCode >= 400) {
      const message = (json as { message?: unknown } | undefined)?.message
      throw new RestError(res.statusCode, typeof message === 'string' ? message : res.statusMessage)
    }
    return json as T
  }
  const id = encodeURIComponent
  return {
    listTraceSummaries: (query) => call('GET', '/traces', { ...query, fields: 'summary' }),
    getTrace: (traceId) => call('GET', `/traces/${id(traceId)}`),
    failures: (query) => call('GET', '/failures', query),
    analytics: (query) => call('GET', '/analytics', query),
    score: (input) => call('POST', '/scores', {}, input),
    sessions: {
      list: (query) => call('GET', '/sessions', query),
      get: (sessionId, query) => call('GET', `/sessions/${id(sessionId)}`, query),
    },
  }
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
