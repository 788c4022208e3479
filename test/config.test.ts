// loadConfig: defaults, environment, overrides, and a clear error naming a bad variable.
import t from 'tap'
import { loadConfig } from '../src/config.js'

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
