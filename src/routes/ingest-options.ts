// What every ingest route shares: the per-key rate limit and the documented key security.
import type { Config } from '../config.js'

/** Route config for @fastify/rate-limit: INGEST_RATE_LIMIT requests a minute per key, or none when it is 0. */
export const ingestRateLimit = (config: Config) =>
  config.ingestRateLimit > 0 ? { rateLimit: { max: config.ingestRateLimit, timeWindow: 60_000 } } : {}

/** OpenAPI security of an ingest route: a project key as a bearer token or in X-API-Key. */
export const keyAuth: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }]
