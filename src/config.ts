// Configuration: ConfigSchema (every setting once: its type, bounds, default, meaning and environment variable),
// the Config type decoded from it, and loadConfig(env) — the only place environment variables are read.
import {
  type Static,
  type StaticDecode,
  type TLiteral,
  type TSchema,
  type TUnion,
  Type,
  TypeGuard,
} from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { SettingError } from './errors.js'
import { compilePatterns, DETECTORS, type Detector } from './ingest/redact.js'
import { DEFAULT_WAL_MAX_BYTES } from './store/sqlite/store.js'

const LogLevel = Type.Union(
  [
    Type.Literal('fatal'),
    Type.Literal('error'),
    Type.Literal('warn'),
    Type.Literal('info'),
    Type.Literal('debug'),
    Type.Literal('trace'),
    Type.Literal('silent'),
  ],
  { default: 'info', description: 'Log level of the JSON logs.' },
)

/** The log levels LOG_LEVEL (and `loupe serve --log-level`) accept. */
export const LOG_LEVELS: readonly Config['logLevel'][] = LogLevel.anyOf.map((l) => l.const)

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
      throw new SettingError(
        `REDACT_DETECTORS must be a comma-separated list of ${DETECTORS.join(', ')} or all (got ${JSON.stringify(text)}: '${name}' is unknown).`,
      )
    }
  }
  return names as Detector[]
}

/** LOUPE_JUDGE_BASE_URL: an http(s) URL (an OpenAI-compatible API's base, without /chat/completions); '' none. */
function parseJudgeUrl(text: string): string | null {
  if (text.trim() === '') return null
  let url: URL | null = null
  try {
    url = new URL(text.trim())
  } catch {}
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
    throw new SettingError(
      `LOUPE_JUDGE_BASE_URL must be the http(s) URL of an OpenAI-compatible API, such as https://api.openai.com/v1, without credentials in it (got ${JSON.stringify(text)}).`,
    )
  }
  return url.toString().replace(/\/+$/, '')
}

/** REDACT_PATTERNS: a JSON array of regex sources, each of which must compile. */
function parsePatterns(text: string): string[] {
  if (text.trim() === '') return []
  const refuse = (why: string) =>
    new SettingError(
      `REDACT_PATTERNS must be a JSON array of non-empty regex strings, e.g. ["ACME-\\\\d{6}"] (got ${JSON.stringify(text)}${why}).`,
    )
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw refuse(': not JSON')
  }
  if (!Array.isArray(parsed) || !parsed.every((p) => typeof p === 'string' && p !== '')) throw refuse('')
  try {
    compilePatterns(parsed)
  } catch (err) {
    throw refuse(`: ${(err as Error).message}`)
  }
  return parsed
}

/**
 * Every setting: the key is the Config field, its environment variable is that name in SCREAMING_SNAKE_CASE
 * (`slowThresholdMs` → `SLOW_THRESHOLD_MS`) unless the schema names another in `env`. Field names say their unit.
 */
export const ConfigSchema = Type.Object({
  port: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'TCP port.' }),
  host: Type.String({ minLength: 1, default: '127.0.0.1', description: 'Interface to listen on.' }),
  databaseUrl: Type.String({
    minLength: 1,
    default: './data/loupe.db',
    description: 'SQLite file (bare path or `file:` URL) or `:memory:`; or a PostgreSQL URL.',
  }),
  sqliteWalMaxBytes: Type.Integer({
    minimum: 1_048_576,
    default: DEFAULT_WAL_MAX_BYTES,
    description:
      "SQLite: the write-ahead log's (`<file>-wal`) bound in bytes; past it a checkpoint briefly holds writers and " +
      'empties the log, which also empties once idle.',
  }),
  slowThresholdMs: Type.Number({
    minimum: 0,
    default: 5000,
    description: 'A trace this slow (ms) or slower is slow.',
  }),
  logLevel: LogLevel,
  bodyLimit: Type.Integer({ minimum: 1024, default: 1_048_576, description: 'Largest JSON body in bytes.' }),
  ingestRateLimit: Type.Integer({
    minimum: 0,
    default: 600_000,
    description:
      'Traces (OTLP: spans) per minute per API key, smoothed (a token bucket holding a minute’s worth); 0 turns the limit off.',
  }),
  feedbackRateLimit: Type.Integer({
    minimum: 0,
    default: 120,
    description:
      'Requests per minute per client address that present a public key (`loupe_pk_…`, feedback scores), smoothed ' +
      '(a token bucket holding a minute’s worth); 0 turns the limit off.',
  }),
  feedbackBodyLimit: Type.Integer({
    minimum: 1024,
    default: 16_384,
    description: 'Largest body in bytes of a request that presents a public key.',
  }),
  otlpBodyLimit: Type.Integer({
    minimum: 1024,
    default: 4_194_304,
    description: 'Largest OTLP body on POST /v1/traces in bytes, as sent and after gzip decompression.',
  }),
  otlpRootGraceMs: Type.Integer({
    minimum: 0,
    default: 1000,
    description:
      "How long after an OTLP trace's root span arrives Loupe waits for more of its spans before storing it.",
  }),
  otlpRootlessWaitMs: Type.Integer({
    minimum: 0,
    default: 30_000,
    description: 'An OTLP trace whose root span never arrives is stored once none of its spans arrived for this long.',
  }),
  wsHeartbeatMs: Type.Integer({ minimum: 100, default: 30_000, description: 'Ping interval of /ws.' }),
  wsMaxBufferBytes: Type.Integer({
    minimum: 1024,
    default: 1_048_576,
    description: 'A /ws peer with more unsent bytes than this is dropped.',
  }),
  adminToken: Type.Union([Type.String({ minLength: 16 }), Type.Null()], {
    default: null,
    env: 'LOUPE_ADMIN_TOKEN',
    secret: true,
    description:
      'Protected mode when set (docs/api.md, Authentication): every route but GET /, /health and /docs needs this ' +
      'token or a project key; null: open mode.',
  }),
  metricsToken: Type.Union([Type.String({ minLength: 16 }), Type.Null()], {
    default: null,
    secret: true,
    description:
      'In protected mode, a token that may read GET /metrics and nothing else (the admin token may too); null: none.',
  }),
  rateLimit: Type.Integer({
    minimum: 0,
    default: 1200,
    description: 'Requests per minute per client address on every route but ingest; 0 turns the limit off.',
  }),
  wsMaxConnections: Type.Integer({
    minimum: 1,
    default: 10_000,
    description: 'Open /ws connections at most; one more is refused with 503.',
  }),
  wsMaxFramesPerSecond: Type.Integer({
    minimum: 1,
    default: 50,
    description: 'Frames a /ws client may send per second; more are answered with one error and ignored.',
  }),
  requestTimeoutMs: Type.Integer({
    minimum: 100,
    default: 30_000,
    description: 'A request must arrive and be answered within this many ms (408 / 503 otherwise).',
  }),
  maxEventLoopDelayMs: Type.Integer({
    minimum: 0,
    default: 1000,
    description: 'Mean event-loop delay over which requests get 503 with Retry-After; 0 turns the check off.',
  }),
  trustProxy: Type.Transform(
    Type.String({
      default: '',
      description:
        'Behind a reverse proxy: `true` (believe X-Forwarded-For from any peer) or comma-separated proxy ' +
        'addresses/CIDRs; empty: the socket address is the client. Decoded to what Fastify takes.',
    }),
  )
    .Decode(parseTrustProxy)
    .Encode((value) => (Array.isArray(value) ? value.join(',') : String(value))),
  maxHeapUsedBytes: Type.Integer({
    minimum: 0,
    default: 0,
    description: 'Heap use over which requests get 503 with Retry-After; 0 turns the check off.',
  }),
  retentionDays: Type.Integer({
    minimum: 0,
    maximum: 36_500,
    default: 0,
    description: 'Traces older than this many days are deleted (each project may set its own); 0: kept forever.',
  }),
  retentionMaxTraces: Type.Integer({
    minimum: 0,
    maximum: 1_000_000_000,
    default: 0,
    description:
      'Each project keeps at most this many traces, the oldest deleted first (a project may set its own); 0: no limit.',
  }),
  retentionIntervalMs: Type.Integer({
    minimum: 1000,
    default: 300_000,
    description: 'How often the retention job looks for traces to delete.',
  }),
  alertIntervalMs: Type.Integer({
    minimum: 1000,
    default: 60_000,
    description: 'How often alert rules are evaluated.',
  }),
  alertDeliveryAttempts: Type.Integer({
    minimum: 1,
    maximum: 20,
    default: 5,
    description: 'Attempts to deliver one alert event before it is marked failed.',
  }),
  alertRetryBaseMs: Type.Integer({
    minimum: 10,
    default: 2000,
    description: 'Delay before the second delivery attempt of an alert event; each next one waits twice as long.',
  }),
  judgeBaseUrl: Type.Transform(
    Type.String({
      default: '',
      env: 'LOUPE_JUDGE_BASE_URL',
      description:
        'The LLM judge of `llm_judge` evaluators: the base URL of any OpenAI-compatible API (its ' +
        '`/chat/completions`); empty: none (an evaluator may name its own).',
    }),
  )
    .Decode(parseJudgeUrl)
    .Encode((url) => url ?? ''),
  judgeApiKey: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
    default: null,
    env: 'LOUPE_JUDGE_API_KEY',
    secret: true,
    description: 'The judge API’s key, sent as a Bearer token; null: none.',
  }),
  judgeModel: Type.Union([Type.String({ minLength: 1, maxLength: 256 }), Type.Null()], {
    default: null,
    env: 'LOUPE_JUDGE_MODEL',
    description: 'The judge’s model (an evaluator may name its own); null: none.',
  }),
  judgeTimeoutMs: Type.Integer({
    minimum: 1000,
    default: 60_000,
    description: 'How long one question to the judge may take before it is asked again.',
  }),
  evaluatorConcurrency: Type.Integer({
    minimum: 1,
    maximum: 256,
    default: 4,
    env: 'LOUPE_EVALUATOR_CONCURRENCY',
    description: 'Evaluations run at once by this process (evaluator rules on stored traces).',
  }),
  evaluatorJudgePerMinute: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 60,
    env: 'LOUPE_EVALUATOR_JUDGE_PER_MINUTE',
    description:
      'Judge evaluations this process starts in a minute (llm_judge rules): past it, jobs wait for the next minute.',
  }),
  redactDetectors: Type.Transform(
    Type.String({
      default: '',
      description:
        'Built-in redaction at ingest, comma-separated: `email`, `card`, `api_key`, `phone`, or `all`; empty: off.',
    }),
  )
    .Decode(parseDetectors)
    .Encode((detectors) => detectors.join(',')),
  redactPatterns: Type.Transform(
    Type.String({
      default: '',
      description: 'Operator redaction regexes at ingest: a JSON array of JavaScript regex sources; empty: none.',
    }),
  )
    .Decode(parsePatterns)
    .Encode((patterns) => (patterns.length === 0 ? '' : JSON.stringify(patterns))),
})

/** What buildApp needs: the settings decoded (e.g. `trustProxy` as Fastify takes it). */
export type Config = StaticDecode<typeof ConfigSchema>
/** The settings as text would give them, before decoding. */
type RawConfig = Static<typeof ConfigSchema>
type Key = keyof RawConfig

const settingKeys = Object.keys(ConfigSchema.properties) as Key[]

/** The environment variable of a setting. */
export function envName(key: Key): string {
  const schema = ConfigSchema.properties[key] as TSchema & { env?: string }
  return schema.env ?? key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()
}

/** Every environment variable Loupe reads, in the schema's order. */
export const ENV_NAMES: readonly string[] = settingKeys.map(envName)

/** What a setting accepts, in words, for the message that refuses a value. */
function allowed(schema: TSchema): string {
  if (TypeGuard.IsUnion(schema)) {
    const literals = (schema as TUnion).anyOf.filter(TypeGuard.IsLiteral) as TLiteral[]
    if (literals.length === schema.anyOf.length) return `one of ${literals.map((l) => l.const).join(', ')}`
    const text = schema.anyOf.find(TypeGuard.IsString)
    if (text) return allowed(text)
  }
  const min = schema.minimum as number | undefined
  const max = schema.maximum as number | undefined
  const kind = TypeGuard.IsInteger(schema) ? 'a whole number' : TypeGuard.IsNumber(schema) ? 'a number' : null
  if (kind !== null) {
    if (min !== undefined && max !== undefined) return `${kind} from ${min} to ${max}`
    if (min !== undefined) return `${kind} ≥ ${min}`
    return kind
  }
  if (typeof schema.minLength === 'number' && schema.minLength > 1) return `at least ${schema.minLength} characters`
  return 'a non-empty text'
}

/** The value a setting's text stands for, or undefined when it is not one the setting takes. */
function read(schema: TSchema, text: string): unknown {
  const value = Value.Convert(schema, text)
  return Value.Check(schema, value) ? value : undefined
}

/** Every default, as a Config (what tests and embedders start from). */
export const defaultConfig = (): Config => loadConfig({})

/**
 * Reads and validates the configuration. Precedence: explicit overrides > environment > defaults.
 * Throws a SettingError naming the variable and what it accepts when a value is invalid (never repeating a secret).
 */
export function loadConfig(env: NodeJS.ProcessEnv, overrides: Partial<Config> = {}): Config {
  const raw: Partial<Record<Key, unknown>> = {}
  for (const key of settingKeys) {
    const name = envName(key)
    const text = env[name]
    if (text === undefined) continue
    const schema = ConfigSchema.properties[key] as TSchema & { secret?: boolean }
    // Set but empty is a mistake (an unset variable is how to ask for the default), except where empty is a value.
    if (text.trim() === '' && schema.default !== '') {
      const otherwise =
        schema.default === null ? 'leave it unset for open mode' : `unset it for the default (${schema.default})`
      throw new SettingError(`${name} is set but empty: ${otherwise}, or set ${allowed(schema)}.`)
    }
    const value = read(schema, text)
    if (value === undefined) {
      const shown = schema.secret ? '' : ` (got ${JSON.stringify(text)})`
      throw new SettingError(`${name} must be ${allowed(schema)}${shown}.`)
    }
    raw[key] = value
  }
  let decoded: Config
  try {
    decoded = Value.Decode(ConfigSchema, Value.Default(ConfigSchema, raw))
  } catch (err) {
    // A setting whose text is well-formed but means nothing usable (an unknown detector, a regex that does not
    // compile): its decoder's sentence names it, the value and what is allowed.
    const cause = (err as { error?: unknown }).error
    if (cause instanceof SettingError) throw cause
    throw new SettingError(`The configuration is not usable: ${(err as Error).message}`)
  }
  return { ...decoded, ...overrides }
}
