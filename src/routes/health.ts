// GET / and GET /health.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { HealthResponse, RootResponse } from '../../schemas/index.js'
import { StoreUnavailable } from '../errors.js'
import { version } from '../lib/version.js'
import { errorReply } from '../plugins/errors.js'
import { describeStoreUnavailable } from '../store/index.js'

const health: FastifyPluginAsyncTypebox = async (app) => {
  // GET /
  app.get(
    '/',
    {
      // Health checks answer a load balancer whatever one address does: no per-address request limit.
      config: { access: 'public', rateLimit: false },
      schema: { operationId: 'getRoot', tags: ['health'], summary: 'Health check', response: { 200: RootResponse } },
    },
    async () => ({ message: 'Loupe is running' }),
  )

  // GET /health
  app.get(
    '/health',
    {
      config: { access: 'public', rateLimit: false },
      schema: {
        tags: ['health'],
        operationId: 'getHealth',
        summary: 'Readiness: the database answers',
        response: { 200: HealthResponse, 503: HealthResponse },
      },
    },
    async (request, reply) => {
      const uptime_seconds = Math.round(process.uptime())
      try {
        await app.store.ping()
        return {
          status: 'ok' as const,
          version,
          uptime_seconds,
          database: { status: 'up' as const, dialect: app.store.dialect },
          otlp: app.otlp.stats(),
        }
      } catch (err) {
        // Answered like every other 503 (code, Retry-After, one log line), with the health fields beside it.
        const unavailable = new StoreUnavailable(describeStoreUnavailable(err))
        return reply.send({
          ...errorReply(unavailable, request, reply),
          status: 'unavailable' as const,
          version,
          uptime_seconds,
          database: { status: 'down' as const, dialect: app.store.dialect },
        })
      }
    },
  )
}

export default health
