// What every ingest route shares: its access (a project key, checked before the body is read) and per-key rate
// limit (the documented security follows from the access: lib/openapi-operation.ts).
/**
 * Route config of an ingest route: its access, for the policy (plugins/auth.ts); the per-address request limit does
 * not apply — ingest has its own per-key limit on traces (plugins/limits.ts, `app.takeIngest`).
 */
export const ingestConfig = () => ({ access: 'ingest', rateLimit: false }) as const
