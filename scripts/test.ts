// npm test: the whole suite on SQLite, then the same suite on PostgreSQL when one answers (LOUPE_TEST_DATABASE, else
// postgres://postgres@127.0.0.1:5432/test; every app gets its own schema, dropped afterwards). Without PostgreSQL the
// SQLite run still decides, and a line says the PostgreSQL suite was not run and how to run it — unless
// LOUPE_REQUIRE_POSTGRES=1 (CI), which makes an unreachable PostgreSQL a failure. With `--coverage` (npm run
// test:coverage) the SQLite run also measures test coverage (tap's c8-based report), and the last lines repeat its
// summary; it is off otherwise, as in .taprc (it adds some 8% to a run, and the report at the end). Other arguments go
// to tap.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import pg from 'pg'
import { packageRoot } from '../src/lib/paths.js'
import { failuresOf } from './tap-failures.js'

const DEFAULT_DATABASE = 'postgres://postgres@127.0.0.1:5432/test'

interface Counts {
  total: number
  pass: number
  fail: number
  skip: number
}

interface Run {
  name: string
  code: number
  counts: Counts | null
  /** The coverage summary (`Lines : 93.1% ( 5000/5370 )`, …), when the run measured it. */
  coverage: string[]
  /** Each failed assertion with its file and tap's diagnosis, repeated at the end (the log's tail is what is read). */
  failures: string[]
}

/** The lines of tap's coverage summary (text-summary report) in a run's output. */
function coverageOf(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => /^(Statements|Branches|Functions|Lines)\s*:/.test(line))
    .map((line) => line.replace(/\s+/g, ' ').trim())
}

/** tap's arguments that turn coverage on, with only its summary printed. */
const COVERAGE = ['--no-disable-coverage', '--coverage-report=text-summary']

/** The last tap summary line (`# { total: 12, pass: 11, fail: 1 }`) of a run's output. */
function summaryOf(output: string): Counts | null {
  const lines = output.split('\n').filter((line) => /^# \{ total: \d+/.test(line))
  const last = lines.at(-1)
  if (!last) return null
  const n = (key: string) => Number(new RegExp(`${key}: (\\d+)`).exec(last)?.[1] ?? 0)
  return { total: n('total'), pass: n('pass'), fail: n('fail'), skip: n('skip') }
}

/** Runs tap with the given database; output goes through (and, off a terminal, is read for the summary). */
function tap(name: string, database: string, args: string[]): Promise<Run> {
  const bin = join(packageRoot(), 'node_modules', '.bin', 'tap')
  const interactive = Boolean(process.stdout.isTTY)
  const child = spawn(bin, args, {
    env: { ...process.env, LOUPE_TEST_DATABASE: database },
    stdio: interactive ? 'inherit' : ['inherit', 'pipe', 'inherit'],
  })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk)
    output += chunk.toString()
  })
  return new Promise((resolve) => {
    child.on('close', (code, signal) =>
      resolve({
        name,
        code: code ?? (signal ? 1 : 0),
        counts: interactive ? null : summaryOf(output),
        coverage: coverageOf(output),
        failures: failuresOf(output),
      }),
    )
  })
}

/** Null when the database answers, else why not. */
async function unreachable(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('select 1')
    return null
  } catch (err) {
    const e = err as Error & { code?: string }
    return e.code ? `${e.code} ${e.message}` : e.message
  } finally {
    await client.end().catch(() => {})
  }
}

const redact = (url: string) => url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')

async function main(): Promise<number> {
  const coverage = process.argv.includes('--coverage')
  const args = process.argv.slice(2).filter((a) => a !== '--coverage')
  const url = process.env.LOUPE_TEST_DATABASE || DEFAULT_DATABASE
  const required = process.env.LOUPE_REQUIRE_POSTGRES === '1'
  const runs: Run[] = []

  process.stdout.write('# Loupe test suite on SQLite (in-memory)\n')
  runs.push(await tap('SQLite', '', [...(coverage ? COVERAGE : []), ...args]))

  const why = await unreachable(url)
  let missing: string | null = null
  if (why === null) {
    process.stdout.write(`# Loupe test suite on PostgreSQL (${redact(url)})\n`)
    runs.push(await tap('PostgreSQL', url, args))
  } else {
    missing =
      `PostgreSQL suite not run: ${redact(url)} is not reachable (${why}). ` +
      'Start PostgreSQL on 127.0.0.1:5432 (database test) or set LOUPE_TEST_DATABASE=postgres://…, then npm test.'
  }

  process.stdout.write('\n')
  for (const run of runs) {
    const c = run.counts
    const detail = c ? `${c.pass} passed, ${c.fail} failed, ${c.skip} skipped` : run.code === 0 ? 'passed' : 'failed'
    process.stdout.write(`# ${run.name}: ${detail}${run.code === 0 ? '' : ` (tap exit ${run.code})`}\n`)
    if (run.coverage.length > 0) process.stdout.write(`# ${run.name} coverage: ${run.coverage.join('; ')}\n`)
  }
  for (const run of runs) {
    if (run.failures.length === 0) continue
    process.stdout.write(`\n# ${run.name}: what failed\n`)
    for (const failure of run.failures) process.stdout.write(`${failure.replace(/^/gm, '#   ')}\n`)
  }
  if (missing) process.stdout.write(`# ${missing}\n`)
  const counted = runs.map((r) => r.counts).filter((c): c is Counts => c !== null)
  if (counted.length === runs.length) {
    const total = (k: keyof Counts) => counted.reduce((n, c) => n + c[k], 0)
    // Both runs in one line of tap's own form (what .ci/run reads), and in the plain form.
    process.stdout.write(
      `# { total: ${total('total')}, pass: ${total('pass')}, fail: ${total('fail')}, skip: ${total('skip')} }\n`,
    )
    process.stdout.write(`tests: ${total('pass')} passed, ${total('fail')} failed, ${total('skip')} skipped\n`)
  }
  const failed = runs.some((r) => r.code !== 0) || (missing !== null && required)
  if (missing && required) process.stdout.write('# LOUPE_REQUIRE_POSTGRES=1: PostgreSQL is required here.\n')
  return failed ? 1 : 0
}

process.exitCode = await main()
