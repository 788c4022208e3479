// A first run without surprises: every configuration mistake stops `npm start` (src/server.ts run as a file) with
// exit code 1 and one sentence on stderr that names the setting, the value (never a secret) and what is allowed — no
// stack trace, no hang, no silent fallback. Each variable is checked through loadConfig; each kind of mistake end to
// end through a real process.
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { ENV_NAMES, loadConfig } from '../src/config.js'
import { SettingError } from '../src/errors.js'

const root = fileURLToPath(new URL('../', import.meta.url))
// A dozen real processes, three at a time: far longer than the usual file on a loaded machine.
t.setTimeout(600_000)

/** `node src/server.ts` with `env` (and nothing of this process's Loupe settings) until it exits. */
function serve(env: Record<string, string>) {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !ENV_NAMES.includes(k)))
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(root, 'src/server.ts')],
      // Generous: on a loaded machine tsx alone may take tens of seconds; a hang still ends in a failure.
      { cwd: root, env: { ...base, PORT: '0', ...env }, timeout: 180_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error.code as number) ?? null) : 0, stdout, stderr }),
    )
  })
}

/** A value each variable refuses, and what its sentence must say it allows. */
const BAD: Record<string, [string, RegExp]> = {
  PORT: ['eighty', /whole number from 0 to 65535/],
  HOST: [' ', /set but empty/],
  DATABASE_URL: [' ', /set but empty/],
  SLOW_THRESHOLD_MS: ['-1', /number ≥ 0/],
  LOG_LEVEL: ['loud', /one of fatal, error, warn, info, debug, trace, silent/],
  BODY_LIMIT: ['12', /whole number ≥ 1024/],
  SQLITE_WAL_MAX_BYTES: ['12', /whole number ≥ 1048576/],
  INGEST_RATE_LIMIT: ['lots', /whole number ≥ 0/],
  FEEDBACK_RATE_LIMIT: ['-3', /whole number ≥ 0/],
  FEEDBACK_BODY_LIMIT: ['512', /whole number ≥ 1024/],
  OTLP_BODY_LIMIT: ['1.5', /whole number ≥ 1024/],
  OTLP_ROOT_GRACE_MS: ['-5', /whole number ≥ 0/],
  OTLP_ROOTLESS_WAIT_MS: ['soon', /whole number ≥ 0/],
  WS_HEARTBEAT_MS: ['10', /whole number ≥ 100/],
  WS_MAX_BUFFER_BYTES: ['1', /whole number ≥ 1024/],
  LOUPE_ADMIN_TOKEN: ['short-secret', /at least 16 characters/],
  RATE_LIMIT: ['-1', /whole number ≥ 0/],
  WS_MAX_CONNECTIONS: ['0', /whole number ≥ 1/],
  WS_MAX_FRAMES_PER_SECOND: ['0', /whole number ≥ 1/],
  REQUEST_TIMEOUT_MS: ['5', /whole number ≥ 100/],
  MAX_EVENT_LOOP_DELAY_MS: ['-1', /whole number ≥ 0/],
  MAX_HEAP_USED_BYTES: ['a lot', /whole number ≥ 0/],
  METRICS_TOKEN: ['short-secret', /at least 16 characters/],
  RETENTION_DAYS: ['-1', /whole number from 0 to 36500/],
  RETENTION_MAX_TRACES: ['many', /whole number from 0 to 1000000000/],
  RETENTION_INTERVAL_MS: ['10', /whole number ≥ 1000/],
  ALERT_INTERVAL_MS: ['5', /whole number ≥ 1000/],
  ALERT_DELIVERY_ATTEMPTS: ['0', /whole number from 1 to 20/],
  ALERT_RETRY_BASE_MS: ['1', /whole number ≥ 10/],
  REDACT_DETECTORS: ['emails', /comma-separated list of api_key, email, card, phone or all/],
  REDACT_PATTERNS: ['["("]', /JSON array of non-empty regex strings.*is not a usable regex/],
  LOUPE_JUDGE_BASE_URL: ['ftp://judge.example/v1', /the http\(s\) URL of an OpenAI-compatible API/],
  LOUPE_JUDGE_API_KEY: [' ', /is set but empty/],
  LOUPE_JUDGE_MODEL: ['m'.repeat(300), /a non-empty text/],
  JUDGE_TIMEOUT_MS: ['5', /whole number ≥ 1000/],
  LOUPE_EVALUATOR_CONCURRENCY: ['0', /whole number from 1 to 256/],
  LOUPE_EVALUATOR_JUDGE_PER_MINUTE: ['lots', /whole number/],
}

t.test('each variable: a bad value is one sentence naming it, the value and what is allowed', async (t) => {
  for (const name of ENV_NAMES) {
    if (name === 'TRUST_PROXY') continue // any text is a list of proxy addresses
    const bad = BAD[name]
    if (!t.ok(bad, `${name} has a bad value in this table`) || !bad) continue
    const [value, allowed] = bad
    t.throws(() => loadConfig({ [name]: value }), SettingError, name)
    let message = ''
    try {
      loadConfig({ [name]: value })
    } catch (err) {
      message = (err as Error).message
    }
    t.match(message, new RegExp(`^${name} `), `${name}: names the variable`)
    t.match(message, allowed, `${name}: says what is allowed`)
    t.notMatch(message, /\n/, `${name}: one line`)
    if (name === 'LOUPE_ADMIN_TOKEN' || name === 'METRICS_TOKEN') t.notMatch(message, value, 'never repeats a secret')
    else if (value.trim() !== '') t.match(message, JSON.stringify(value), `${name}: shows the value`)
  }
  t.match(loadConfig({ TRUST_PROXY: '' }).trustProxy, false, 'an empty TRUST_PROXY is its default')
})

t.test('a set but empty variable is a mistake, not the default', async (t) => {
  t.throws(() => loadConfig({ PORT: '' }), /^PORT is set but empty: unset it for the default \(3000\)/)
  t.throws(
    () => loadConfig({ LOUPE_ADMIN_TOKEN: '' }),
    /LOUPE_ADMIN_TOKEN is set but empty: leave it unset for open mode/,
  )
})

t.test('every mistake stops the process with exit 1 and one sentence on stderr', { timeout: 600_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-startup-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const aFile = join(dir, 'a-file')
  writeFileSync(aFile, 'not a folder')
  const notADatabase = join(dir, 'notes.db')
  writeFileSync(notADatabase, 'these are notes, not a SQLite database '.repeat(100))
  const busy = createServer()
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
  t.teardown(() => busy.close())
  const busyPort = String((busy.address() as { port: number }).port)
  const pg = process.env.LOUPE_TEST_DATABASE || 'postgres://postgres@127.0.0.1:5432/test'

  const cases: [string, Record<string, string>, RegExp][] = [
    ['a bad variable', { LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of fatal, .*silent \(got "loud"\)\.$/],
    ['an empty PORT', { PORT: '' }, /^PORT is set but empty/],
    ['an empty admin token', { LOUPE_ADMIN_TOKEN: '' }, /^LOUPE_ADMIN_TOKEN is set but empty: leave it unset for open/],
    [
      'an unknown URL scheme',
      { DATABASE_URL: 'mysql://root:hunter2@127.0.0.1/x' },
      /^DATABASE_URL 'mysql:\/\/root:\*\*\*@127\.0\.0\.1\/x' is not a database Loupe can use: .*postgres:\/\//,
    ],
    ['a folder', { DATABASE_URL: dir }, /is a folder, not a file: give a file path such as .*loupe\.db\.$/],
    ['a path under a file', { DATABASE_URL: join(aFile, 'loupe.db') }, /a-file is a file, not a folder\)/],
    ['a path that cannot be created', { DATABASE_URL: '/proc/nope/loupe.db' }, /cannot open or create the SQLite file/],
    ['a file that is not SQLite', { DATABASE_URL: notADatabase }, /notes\.db is not a SQLite database/],
    [
      'an unreachable PostgreSQL',
      { DATABASE_URL: 'postgres://postgres:secret@127.0.0.1:1/nowhere' },
      /^DATABASE_URL 'postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/nowhere': PostgreSQL does not answer there/,
    ],
    [
      'a PostgreSQL database that does not exist',
      { DATABASE_URL: pg.replace(/\/[^/?]*(\?|$)/, '/loupe_no_such_database$1') },
      /that database does not exist/,
    ],
    ['a port in use', { PORT: busyPort }, new RegExp(`^PORT ${busyPort} on HOST 127\\.0\\.0\\.1 is already in use`)],
    ['a bad HOST', { HOST: 'no-such-host.invalid' }, /^HOST 'no-such-host\.invalid' is not an address of this machine/],
  ]
  // Three at a time, each on a database of its own (the ones that get as far as opening it must not wait on another).
  const results: Awaited<ReturnType<typeof serve>>[] = []
  for (let i = 0; i < cases.length; i += 3) {
    const batch = cases.slice(i, i + 3)
    results.push(
      ...(await Promise.all(
        batch.map(([, env], j) => serve({ DATABASE_URL: join(dir, `ok-${i + j}`, 'loupe.db'), ...env })),
      )),
    )
  }
  for (const [i, [what, , sentence]] of cases.entries()) {
    const { code, stdout, stderr } = results[i] as Awaited<ReturnType<typeof serve>>
    t.equal(code, 1, `${what}: exit code 1`)
    const lines = stderr.trim().split('\n')
    t.equal(lines.length, 1, `${what}: one line on stderr (${stderr.trim()})`)
    t.match(lines[0], /^loupe: /, `${what}: says who speaks`)
    t.match((lines[0] ?? '').replace(/^loupe: /, ''), sentence, what)
    t.notMatch(stderr, /\n\s+at |Error:/, `${what}: no stack trace`)
    t.notMatch(stdout, /Server listening/, `${what}: never listened`)
    t.notMatch(stderr, /hunter2|secret@/, `${what}: no password`)
  }
  t.notOk(existsSync(join(root, 'mysql:')), 'no folder named after an unknown scheme')
})
