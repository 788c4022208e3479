// What every ingest route shares: its access (a project key, checked before the body is read) and per-key rate
// limit, and the documented key security.
/**
 * Route config of an ingest route: its access, for the policy (plugins/auth.ts); the per-address request limit does
 * not apply — ingest has its own per-key limit on traces (plugins/limits.ts, `app.takeIngest`).
 */
export const ingestConfig = () => ({ access: 'ingest', rateLimit: false }) as const

/** OpenAPI security of an ingest route: a project key as a bearer token or in X-API-Key. */
export const keyAuth: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }]
