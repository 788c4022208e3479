// Configuration: ConfigSchema, defaults, and loadConfig(env) — the only place environment variables are read.
import { type Static, Type } from '@sinclair/typebox'
import envSchema from 'env-schema'
import { compilePatterns, DETECTORS, type Detector, type RedactionSettings } from './ingest/redact.js'

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

/** Environment variables Loupe reads, with their defaults. */
export const ConfigSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'TCP port.' }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1', description: 'Interface to listen on.' }),
  DATABASE_URL: Type.String({
    minLength: 1,
    default: './data/loupe.db',
    description: 'SQLite file (bare path or `file:` URL) or `:memory:`.',
  }),
  SLOW_THRESHOLD_MS: Type.Number({
    minimum: 0,
    default: 5000,
    description: 'A trace this slow (ms) or slower is slow.',
  }),
  LOG_LEVEL: Type.Union(
    LOG_LEVELS.map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  BODY_LIMIT: Type.Integer({ minimum: 1024, default: 1_048_576, description: 'Largest JSON body in bytes.' }),
  INGEST_RATE_LIMIT: Type.Integer({
    minimum: 0,
    default: 600_000,
    description:
      'Traces (OTLP: spans) per minute per API key, smoothed (a token bucket holding a minute’s worth); 0 turns the limit off.',
  }),
  OTLP_BODY_LIMIT: Type.Integer({
    minimum: 1024,
    default: 4_194_304,
    description: 'Largest OTLP body on POST /v1/traces in bytes, as sent and after gzip decompression.',
  }),
  OTLP_ROOT_GRACE_MS: Type.Integer({
    minimum: 0,
    default: 1000,
    description:
      "How long after an OTLP trace's root span arrives Loupe waits for more of its spans before storing it.",
  }),
  OTLP_ROOTLESS_WAIT_MS: Type.Integer({
    minimum: 0,
    default: 30_000,
    description: 'An OTLP trace whose root span never arrives is stored once none of its spans arrived for this long.',
  }),
  WS_HEARTBEAT_MS: Type.Integer({ minimum: 100, default: 30_000, description: 'Ping interval of /ws.' }),
  WS_MAX_BUFFER_BYTES: Type.Integer({
    minimum: 1024,
    default: 1_048_576,
    description: 'A /ws peer with more unsent bytes than this is dropped.',
  }),
  LOUPE_ADMIN_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      description: 'Turns on protected mode: every route but GET / and /health needs this token or a project key.',
    }),
  ),
  METRICS_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      description: 'In protected mode, a token that may read GET /metrics (and nothing else); the admin token may too.',
    }),
  ),
  RATE_LIMIT: Type.Integer({
    minimum: 0,
    default: 1200,
    description: 'Requests per minute per client address on every route but ingest; 0 turns the limit off.',
  }),
  WS_MAX_CONNECTIONS: Type.Integer({
    minimum: 1,
    default: 10_000,
    description: 'Open /ws connections at most; one more is refused with 503.',
  }),
  WS_MAX_FRAMES_PER_SECOND: Type.Integer({
    minimum: 1,
    default: 50,
    description: 'Frames a /ws client may send per second; more are answered with one error and ignored.',
  }),
  REQUEST_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 30_000,
    description: 'A request must arrive and be answered within this many ms (408 / 503 otherwise).',
  }),
  MAX_EVENT_LOOP_DELAY_MS: Type.Integer({
    minimum: 0,
    default: 1000,
    description: 'Mean event-loop delay over which requests get 503 with Retry-After; 0 turns the check off.',
  }),
  TRUST_PROXY: Type.String({
    default: '',
    description:
      'Behind a reverse proxy: `true` (believe X-Forwarded-For from any peer) or comma-separated proxy ' +
      'addresses/CIDRs; empty: the socket address is the client.',
  }),
  REDACT_DETECTORS: Type.String({
    default: '',
    description:
      'Built-in redaction at ingest, comma-separated: `email`, `card`, `api_key`, `phone`, or `all`; empty: off.',
  }),
  REDACT_PATTERNS: Type.String({
    default: '',
    description: 'Operator redaction regexes at ingest: a JSON array of JavaScript regex sources; empty: none.',
  }),
  MAX_HEAP_USED_BYTES: Type.Integer({
    minimum: 0,
    default: 0,
    description: 'Heap use over which requests get 503 with Retry-After; 0 turns the check off.',
  }),
})
export type Env = Static<typeof ConfigSchema>

/** What buildApp needs. Field names say their unit. */
export interface Config {
  port: number
  host: string
  databaseUrl: string
  slowThresholdMs: number
  logLevel: (typeof LOG_LEVELS)[number]
  bodyLimit: number
  ingestRateLimit: number
  otlpBodyLimit: number
  otlpRootGraceMs: number
  otlpRootlessWaitMs: number
  wsHeartbeatMs: number
  wsMaxBufferBytes: number
  /** Protected mode when set (CONTRACT §5); null: open mode. */
  adminToken: string | null
  /** May read GET /metrics in protected mode (besides the admin token); null: none. */
  metricsToken: string | null
  /** Per client address per minute, on every route but ingest; 0: off. */
  rateLimit: number
  wsMaxConnections: number
  wsMaxFramesPerSecond: number
  requestTimeoutMs: number
  /** under-pressure thresholds; 0: that check is off. */
  maxEventLoopDelayMs: number
  maxHeapUsedBytes: number
  /** What ingest redacts before anything is stored or announced (off by default). */
  redaction: RedactionSettings
  /** Fastify's trustProxy: which X-Forwarded-For hops to believe (for the client address of rate limits and logs). */
  trustProxy: boolean | string[]
}

/** TRUST_PROXY as Fastify takes it: `true`/`false`, or a list of proxy addresses. */
function parseTrustProxy(text: string): boolean | string[] {
  const value = text.trim()
  if (value === '' || value === 'false') return false
  if (value === 'true') return true
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
}

/** REDACT_DETECTORS as a list of detectors; throws naming the unknown one. */
function parseDetectors(text: string): Detector[] {
  const names = text
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '')
  if (names.includes('all')) return [...DETECTORS]
  for (const name of names) {
    if (!(DETECTORS as readonly string[]).includes(name)) {
      throw new Error(`REDACT_DETECTORS: unknown detector '${name}' (known: ${DETECTORS.join(', ')}, all)`)
    }
  }
  return names as Detector[]
}

/** REDACT_PATTERNS: a JSON array of regex sources, each of which must compile. */
function parsePatterns(text: string): string[] {
  if (text.trim() === '') return []
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new Error(`REDACT_PATTERNS must be a JSON array of regex strings, e.g. ["ACME-\\d{6}"]`)
  }
  if (!Array.isArray(parsed) || !parsed.every((p) => typeof p === 'string' && p !== '')) {
    throw new Error('REDACT_PATTERNS must be a JSON array of non-empty regex strings')
  }
  compilePatterns(parsed)
  return parsed
}

const fromEnv = (env: Env): Config => ({
  port: env.PORT,
  host: env.HOST,
  databaseUrl: env.DATABASE_URL,
  slowThresholdMs: env.SLOW_THRESHOLD_MS,
  logLevel: env.LOG_LEVEL,
  bodyLimit: env.BODY_LIMIT,
  ingestRateLimit: env.INGEST_RATE_LIMIT,
  otlpBodyLimit: env.OTLP_BODY_LIMIT,
  otlpRootGraceMs: env.OTLP_ROOT_GRACE_MS,
  otlpRootlessWaitMs: env.OTLP_ROOTLESS_WAIT_MS,
  wsHeartbeatMs: env.WS_HEARTBEAT_MS,
  wsMaxBufferBytes: env.WS_MAX_BUFFER_BYTES,
  adminToken: env.LOUPE_ADMIN_TOKEN ?? null,
  metricsToken: env.METRICS_TOKEN ?? null,
  rateLimit: env.RATE_LIMIT,
  wsMaxConnections: env.WS_MAX_CONNECTIONS,
  wsMaxFramesPerSecond: env.WS_MAX_FRAMES_PER_SECOND,
  requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
  maxEventLoopDelayMs: env.MAX_EVENT_LOOP_DELAY_MS,
  maxHeapUsedBytes: env.MAX_HEAP_USED_BYTES,
  trustProxy: parseTrustProxy(env.TRUST_PROXY),
  redaction: { detectors: parseDetectors(env.REDACT_DETECTORS), patterns: parsePatterns(env.REDACT_PATTERNS) },
})

/** Every default, as a Config (what tests and embedders start from). */
export const defaultConfig = (): Config => loadConfig({})

/**
 * Reads and validates the configuration. Precedence: explicit overrides > environment > defaults.
 * Throws an Error naming the variable when a value is invalid.
 */
export function loadConfig(env: NodeJS.ProcessEnv, overrides: Partial<Config> = {}): Config {
  const known = Object.fromEntries(
    Object.keys(ConfigSchema.properties)
      .filter((k) => env[k] !== undefined && env[k] !== '')
      .map((k) => [k, env[k]]),
  )
  let parsed: Env
  try {
    parsed = envSchema<Env>({ schema: ConfigSchema, data: known, env: false, dotenv: false })
  } catch (err) {
    throw new Error(`invalid configuration: ${(err as Error).message}`)
  }
  try {
    return { ...fromEnv(parsed), ...overrides }
  } catch (err) {
    throw new Error(`invalid configuration: ${(err as Error).message}`)
  }
}
