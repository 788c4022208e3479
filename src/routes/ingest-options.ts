// What every ingest route shares: its access (a project key, checked before the body is read) and per-key rate
// limit, and the documented key security.
import type { FastifyInstance } from 'fastify'

/** Route config of an ingest route, for the access policy (plugins/auth.ts) and the rate limiter (plugins/limits.ts). */
export const ingestConfig = (app: FastifyInstance) => ({ access: 'ingest', rateLimit: app.ingestRateLimit }) as const

/** OpenAPI security of an ingest route: a project key as a bearer token or in X-API-Key. */
export const keyAuth: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }]
