// GET / and GET /health.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { HealthResponse, RootResponse } from '../../schemas/index.js'
import { StoreUnavailable } from '../errors.js'
import { version } from '../lib/version.js'
import { errorReply } from '../plugins/errors.js'
import { describeStoreUnavailable } from '../store/index.js'

const WRITE_FAILURES = {
  full: 'the database is full (out of disk space?): writes fail until it has room',
  read_only: 'the database is read-only: writes fail until it is writable',
} as const

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
        summary: 'Readiness: the database answers and takes writes',
        response: { 200: HealthResponse, 503: HealthResponse },
      },
    },
    async (request, reply) => {
      const uptime_seconds = Math.round(process.uptime())
      const dialect = app.store.dialect
      // Answered like every other 503 (code, Retry-After, one log line), with the health fields beside it.
      const unavailable = (message: string, database: HealthResponse['database']) =>
        reply.send({
          ...errorReply(new StoreUnavailable(message), request, reply),
          status: 'unavailable' as const,
          version,
          uptime_seconds,
          database,
        })
      try {
        await app.store.ping()
      } catch (err) {
        return unavailable(describeStoreUnavailable(err), { status: 'down', dialect })
      }
      // A read answering says nothing of writes: a full disk shows only when one fails.
      const writes = await app.storeWrites.check()
      if (writes !== 'ok') {
        const since = app.storeWrites.since()
        return unavailable(WRITE_FAILURES[writes], {
          status: writes,
          dialect,
          ...(since === null ? {} : { writes_failing_since: new Date(since).toISOString() }),
        })
      }
      return {
        status: 'ok' as const,
        version,
        uptime_seconds,
        database: { status: 'up' as const, dialect },
        otlp: app.otlp.stats(),
      }
    },
  )
}

export default health
