// Abuse limits that apply to every route: 503 with Retry-After when the process is saturated (under-pressure),
// and a per-address request rate (rate-limit; ingest routes replace it with their per-key limit).
import rateLimit from '@fastify/rate-limit'
import underPressure from '@fastify/under-pressure'
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { Overloaded } from '../errors.js'
import { hashApiKey } from '../lib/api-keys.js'
import { presentedKey } from './auth.js'

/** Seconds a client is told to wait when the server is saturated. */
const PRESSURE_RETRY_AFTER_S = 5

declare module 'fastify' {
  interface FastifyInstance {
    /** Route config of an ingest route: its per-key rate limit (or none). */
    ingestRateLimit: { max: number; timeWindow: number; keyGenerator: (request: FastifyRequest) => string } | false
  }
}

export default fp(
  async (app) => {
    const { config } = app
    // better-sqlite3 answers on the event loop, so a saturated store shows as event-loop delay: both are caught here.
    await app.register(underPressure, {
      maxEventLoopDelay: config.maxEventLoopDelayMs,
      maxHeapUsedBytes: config.maxHeapUsedBytes,
      retryAfter: PRESSURE_RETRY_AFTER_S,
      customError: Overloaded,
    })
    await app.register(rateLimit, {
      global: config.rateLimit > 0,
      max: config.rateLimit,
      timeWindow: 60_000,
      keyGenerator: (request) => `ip:${request.ip}`,
    })
    app.decorate(
      'ingestRateLimit',
      config.ingestRateLimit > 0
        ? {
            max: config.ingestRateLimit,
            timeWindow: 60_000,
            // Per key: the hash of the presented key (never the key itself, and no database read), else the address.
            keyGenerator: (request: FastifyRequest) => {
              const key = presentedKey(request)
              return key ? `key:${hashApiKey(key)}` : `ip:${request.ip}`
            },
          }
        : false,
    )
  },
  { name: 'loupe-limits', dependencies: ['loupe-config'] },
)
