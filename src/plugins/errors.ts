// One error handler: 4xx pass their message through (it names the field); store outages become 503 saying what is
// wrong with the store; every 503 carries Retry-After; anything else is logged and answered with a bare 500, never a
// stack trace. Unknown routes are a JSON 404, rate-limited per address like every other route.
import { STATUS_CODES } from 'node:http'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { ApiError } from '../../schemas/index.js'
import { CODE_BY_STATUS, FALLBACK_CODE, RETRY_AFTER_S, StoreUnavailable } from '../errors.js'
import { describeStoreUnavailable, isStoreUnavailableError } from '../store/index.js'

/**
 * The error body every route answers with, its status (and any Retry-After) set on the reply. Routes that must
 * answer in another encoding (OTLP) encode this same body their own way.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    /** The content types a route's body may have, for the 415 that refuses another (default: JSON). */
    accepts?: readonly string[]
  }
}

/** An error's status, message and code as a client is told them (a 5xx other than 503 is told no more than that). */
export function errorStatus(err: FastifyError): { statusCode: number; message: string; code: string | undefined } {
  if (err.statusCode === undefined || err.statusCode < 400 || err.statusCode >= 500) {
    if (isStoreUnavailableError(err)) {
      const unavailable = new StoreUnavailable(describeStoreUnavailable(err))
      return { statusCode: 503, message: unavailable.message, code: unavailable.code }
    }
  }
  const statusCode = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500
  const message = statusCode >= 500 && statusCode !== 503 ? 'Internal Server Error' : err.message
  return { statusCode, message, code: err.code }
}

export function errorReply(err: FastifyError, request: FastifyRequest, reply: FastifyReply): ApiError {
  const told = errorStatus(err)
  const { statusCode } = told
  let { message, code } = told
  const retryAfterS = (err as { retryAfterS?: unknown }).retryAfterS
  if (typeof retryAfterS === 'number' && !reply.hasHeader('retry-after'))
    reply.header('retry-after', String(retryAfterS))
  if (statusCode === 503) {
    // Expected under load or while the store is down: one line, no stack, and a hint for the client.
    request.log.warn({ code, cause: err.message }, 'service unavailable')
    if (!reply.hasHeader('retry-after')) reply.header('retry-after', String(RETRY_AFTER_S))
  } else if (statusCode >= 500) request.log.error({ err }, 'request failed')
  if (typeof code !== 'string' || !code.startsWith('LOUPE_')) {
    if (statusCode === 415) message = unsupportedMediaType(request)
    code = CODE_BY_STATUS[statusCode] ?? FALLBACK_CODE
  }
  reply.code(statusCode)
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message, code }
}

/** A 415 that says what the route takes (its `accepts`, else JSON) and what was sent. */
function unsupportedMediaType(request: FastifyRequest): string {
  const sent = request.headers['content-type']
  const accepts = request.routeOptions.config?.accepts ?? ['application/json']
  const was = sent
    ? `Content-Type '${sent}' is not accepted here`
    : 'a body without a Content-Type is not accepted here'
  const hint = accepts.includes('application/json') ? " (curl: -H 'content-type: application/json')" : ''
  return `${was}: send ${accepts.join(' or ')}${hint}`
}

export default fp(
  async (app) => {
    app.setErrorHandler((err: FastifyError, request, reply) => {
      reply.send(errorReply(err, request, reply))
    })
    const limited = app.config.rateLimit > 0
    app.setNotFoundHandler(limited ? { preHandler: app.rateLimit() } : {}, (request, reply) => {
      reply.code(404).send({
        statusCode: 404,
        error: 'Not Found',
        message: `Route ${request.method} ${request.url.split('?')[0]} not found`,
        code: 'LOUPE_ROUTE_NOT_FOUND',
      })
    })
  },
  { name: 'loupe-errors', dependencies: ['loupe-config', 'loupe-limits'] },
)
