// loadConfig: defaults, environment, overrides, and a clear error naming a bad variable.

import { readFileSync } from 'node:fs'
import t from 'tap'
import { ENV_NAMES, loadConfig } from '../src/config.js'

t.test('defaults are the documented ones', async (t) => {
  const c = loadConfig({})
  t.equal(c.port, 3000)
  t.equal(c.host, '127.0.0.1')
  t.equal(c.databaseUrl, './data/loupe.db')
  t.equal(c.slowThresholdMs, 5000)
  t.equal(c.bodyLimit, 1_048_576)
  t.equal(c.logLevel, 'info')
  t.equal(c.otlpBodyLimit, 4 * 1024 * 1024)
  t.equal(c.otlpRootGraceMs, 1000)
  t.equal(c.otlpRootlessWaitMs, 30_000)
})

t.test('the OTLP settings are read from the environment', async (t) => {
  const c = loadConfig({ OTLP_BODY_LIMIT: '8388608', OTLP_ROOT_GRACE_MS: '0', OTLP_ROOTLESS_WAIT_MS: '120000' })
  t.same([c.otlpBodyLimit, c.otlpRootGraceMs, c.otlpRootlessWaitMs], [8_388_608, 0, 120_000])
  t.throws(() => loadConfig({ OTLP_ROOT_GRACE_MS: '-5' }), /OTLP_ROOT_GRACE_MS/)
})

t.test('environment values are read and converted', async (t) => {
  const c = loadConfig({ PORT: '8080', HOST: '0.0.0.0', DATABASE_URL: ':memory:', SLOW_THRESHOLD_MS: '2500' })
  t.equal(c.port, 8080)
  t.equal(c.host, '0.0.0.0')
  t.equal(c.databaseUrl, ':memory:')
  t.equal(c.slowThresholdMs, 2500)
})

t.test('explicit overrides beat the environment', async (t) => {
  t.equal(loadConfig({ PORT: '8080' }, { port: 9090 }).port, 9090)
})

t.test('a bad value is an error naming the variable', async (t) => {
  t.throws(() => loadConfig({ PORT: 'eighty' }), /PORT/)
  t.throws(() => loadConfig({ SLOW_THRESHOLD_MS: '-1' }), /SLOW_THRESHOLD_MS/)
  t.throws(() => loadConfig({ LOG_LEVEL: 'loud' }), /LOG_LEVEL/)
})

t.test('variables Loupe does not know are ignored', async (t) => {
  t.equal(loadConfig({ PATH: '/usr/bin', HOME: '/root' }).port, 3000)
})

t.test('the limits and protected mode have the documented defaults, and each is configurable', async (t) => {
  const c = loadConfig({})
  t.equal(c.adminToken, null, 'open mode unless LOUPE_ADMIN_TOKEN is set')
  t.equal(c.rateLimit, 1200)
  t.equal(c.wsMaxConnections, 10_000)
  t.equal(c.wsMaxFramesPerSecond, 50)
  t.equal(c.requestTimeoutMs, 30_000)
  t.equal(c.maxEventLoopDelayMs, 1000)
  t.equal(c.maxHeapUsedBytes, 0)
  t.equal(c.trustProxy, false)
  const set = loadConfig({
    LOUPE_ADMIN_TOKEN: 'a-token-of-sixteen+',
    RATE_LIMIT: '0',
    WS_MAX_CONNECTIONS: '5',
    WS_MAX_FRAMES_PER_SECOND: '2',
    REQUEST_TIMEOUT_MS: '1000',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    MAX_HEAP_USED_BYTES: '1000000',
    TRUST_PROXY: '10.0.0.1, 10.0.0.0/8',
  })
  t.match(set, {
    adminToken: 'a-token-of-sixteen+',
    rateLimit: 0,
    wsMaxConnections: 5,
    wsMaxFramesPerSecond: 2,
    requestTimeoutMs: 1000,
    maxEventLoopDelayMs: 0,
    maxHeapUsedBytes: 1_000_000,
  })
  t.strictSame(set.trustProxy, ['10.0.0.1', '10.0.0.0/8'])
  t.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true)
  t.throws(() => loadConfig({ WS_MAX_CONNECTIONS: '0' }), /WS_MAX_CONNECTIONS/)
})

t.test('a bad admin token is refused without repeating it', async (t) => {
  let message = ''
  try {
    loadConfig({ LOUPE_ADMIN_TOKEN: 'tooShortSecret' })
  } catch (err) {
    message = (err as Error).message
  }
  t.match(message, /LOUPE_ADMIN_TOKEN/)
  t.notOk(message.includes('tooShortSecret'), message)
})

t.test('every variable of ConfigSchema is in the configuration table of docs/configuration.md', async (t) => {
  const readme = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8')
  for (const name of ENV_NAMES) t.match(readme, `| \`${name}\``, name)
})

t.test('redaction: off by default; detectors and patterns from the environment; a bad one is named', async (t) => {
  const off = loadConfig({})
  t.same([off.redactDetectors, off.redactPatterns], [[], []])
  t.same(loadConfig({ REDACT_DETECTORS: 'email, card' }).redactDetectors, ['email', 'card'])
  t.same(loadConfig({ REDACT_DETECTORS: 'all' }).redactDetectors, ['api_key', 'email', 'card', 'phone'])
  t.same(loadConfig({ REDACT_PATTERNS: '["ACME-\\\\d+"]' }).redactPatterns, ['ACME-\\d+'])
  t.throws(
    () => loadConfig({ REDACT_DETECTORS: 'email,ssn' }),
    /^REDACT_DETECTORS must be a comma-separated list of .* \(got "email,ssn": 'ssn' is unknown\)\.$/,
  )
  t.throws(() => loadConfig({ REDACT_PATTERNS: 'ACME-\\d+' }), /REDACT_PATTERNS must be a JSON array/)
  t.throws(() => loadConfig({ REDACT_PATTERNS: '["(x"]' }), /REDACT_PATTERNS\[0\]/)
})

t.test('the judge: a URL, a key never repeated, a model; a bad URL is one sentence naming the variable', async (t) => {
  const none = loadConfig({})
  t.same([none.judgeBaseUrl, none.judgeApiKey, none.judgeModel], [null, null, null])
  const set = loadConfig({
    LOUPE_JUDGE_BASE_URL: 'http://127.0.0.1:8080/v1/',
    LOUPE_JUDGE_API_KEY: 'sk-judge-secret',
    LOUPE_JUDGE_MODEL: 'gpt-4o-mini',
  })
  t.same(
    [set.judgeBaseUrl, set.judgeApiKey, set.judgeModel],
    ['http://127.0.0.1:8080/v1', 'sk-judge-secret', 'gpt-4o-mini'],
  )
  for (const bad of ['ftp://x/v1', 'not a url', 'https://user:pw@host/v1']) {
    t.throws(() => loadConfig({ LOUPE_JUDGE_BASE_URL: bad }), /^LOUPE_JUDGE_BASE_URL must be the http\(s\) URL/, bad)
  }
  t.throws(() => loadConfig({ LOUPE_JUDGE_API_KEY: ' ' }), /LOUPE_JUDGE_API_KEY is set but empty/)
})
