// One error handler: 4xx pass their message through (it names the field); store outages become 503; anything else is
// logged and answered with a bare 500, never a stack trace.
import { STATUS_CODES } from 'node:http'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { ApiError } from '../../schemas/index.js'
import { isStoreUnavailableError } from '../store/index.js'

/**
 * The error body every route answers with, its status set on the reply (and `Retry-After` for a 503). Routes that
 * must answer in another encoding (OTLP) encode this same body their own way.
 */
export function errorReply(err: FastifyError, request: FastifyRequest, reply: FastifyReply): ApiError {
  let statusCode = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500
  let message = err.message
  let code = err.code
  if (statusCode >= 500 && isStoreUnavailableError(err)) {
    statusCode = 503
    message = 'the store is unavailable, try again shortly'
    code = 'LOUPE_STORE_UNAVAILABLE'
    reply.header('retry-after', '5')
  }
  if (statusCode >= 500) {
    request.log.error({ err }, 'request failed')
    if (statusCode !== 503) message = 'Internal Server Error'
  }
  reply.code(statusCode)
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message, code }
}

export default fp(
  async (app) => {
    app.setErrorHandler((err: FastifyError, request, reply) => {
      reply.send(errorReply(err, request, reply))
    })
    app.setNotFoundHandler((request, reply) => {
      reply.code(404).send({
        statusCode: 404,
        error: 'Not Found',
        message: `Route ${request.method} ${request.url.split('?')[0]} not found`,
        code: 'LOUPE_ROUTE_NOT_FOUND',
      })
    })
  },
  { name: 'loupe-errors' },
)
