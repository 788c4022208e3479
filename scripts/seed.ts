// Fills a database with synthetic demo data: `npm run seed -- --traces N [--days D] [--database URL] [--force]`.
import { parseArgs } from 'node:util'
import cliProgress from 'cli-progress'
import { mulberry32, seed } from '../src/seed/seed.js'
import { createSqliteStore } from '../src/store/sqlite/store.js'

const USAGE = `Usage: npm run seed -- [options]

Creates demo projects (with API keys) and synthetic LLM traces.

Options:
  --traces N        number of traces to generate (default 10000)
  --days D          spread them over the last D days (default 7)
  --projects P      number of projects (default 5)
  --database URL    SQLite path or file: URL (default: $DATABASE_URL, else ./data/loupe.db)
  --seed S          integer seed: same seed, same data set relative to now (keys stay random)
  --force           add traces even when the database already holds some
  -h, --help        show this help`

function fail(message: string): never {
  process.stderr.write(`seed: ${message}\n`)
  process.exit(1)
}

function positiveNumber(name: string, value: string | undefined, fallback: number, integer: boolean): number {
  if (value === undefined) return fallback
  const n = Number(value.replace(/_/g, ''))
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    fail(`--${name} must be a positive ${integer ? 'integer' : 'number'}, got '${value}'`)
  }
  return n
}

const fmt = (n: number) => n.toLocaleString('en-US')

function parseCli() {
  try {
    return parseArgs({
      options: {
        traces: { type: 'string', short: 'n' },
        days: { type: 'string' },
        projects: { type: 'string' },
        database: { type: 'string' },
        seed: { type: 'string' },
        force: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values
  } catch (error) {
    fail(`${(error as Error).message}\n\n${USAGE}`)
  }
}

async function main(): Promise<void> {
  const values = parseCli()
  if (values.help) {
    process.stdout.write(`${USAGE}\n`)
    return
  }

  const traces = positiveNumber('traces', values.traces, 10_000, true)
  const days = positiveNumber('days', values.days, 7, false)
  const projects = positiveNumber('projects', values.projects, 5, true)
  let random: (() => number) | undefined
  if (values.seed !== undefined) {
    const s = Number(values.seed)
    if (!Number.isInteger(s)) fail(`--seed must be an integer, got '${values.seed}'`)
    random = mulberry32(s)
  }
  const database = values.database ?? (process.env.DATABASE_URL || './data/loupe.db')
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(database) && !database.startsWith('file://')) {
    fail(
      `only SQLite databases can be seeded (a path or a file: URL), got '${database.replace(/\/\/[^@/]*@/, '//***@')}'`,
    )
  }

  const store = createSqliteStore(database)
  try {
    const existing = (await store.listTraces({}, { limit: 1, offset: 0 })).total
    if (existing > 0 && !values.force) {
      fail(
        `${database} already holds ${fmt(existing)} traces; refusing to add synthetic data to it.\n` +
          'Pass --force to seed it anyway, or point --database at another file.',
      )
    }

    process.stdout.write(`Seeding ${fmt(traces)} traces over ${days} day(s) into ${database}\n`)
    const started = performance.now()
    const rate = (done: number) => Math.round(done / Math.max(0.001, (performance.now() - started) / 1000))

    let onProgress: (done: number) => void
    let finish: () => void
    if (process.stdout.isTTY) {
      const bar = new cliProgress.SingleBar(
        {
          format: '  {bar} {percentage}% | {value}/{total} traces | {rate} traces/s | ETA {eta_formatted}',
          hideCursor: true,
          etaBuffer: 20,
          fps: 10,
        },
        cliProgress.Presets.shades_classic,
      )
      bar.start(traces, 0, { rate: 0 })
      onProgress = (done) => bar.update(done, { rate: fmt(rate(done)) })
      finish = () => bar.stop()
    } else {
      // Not a terminal (CI, a pipe): a plain line every 10% or every 5 s, whichever comes first.
      let nextShare = 0.1
      let lastLine = performance.now()
      onProgress = (done) => {
        const now = performance.now()
        if (done / traces >= nextShare || now - lastLine >= 5000 || done === traces) {
          process.stdout.write(
            `  ${fmt(done)}/${fmt(traces)} traces (${Math.floor((100 * done) / traces)}%), ${fmt(rate(done))} traces/s\n`,
          )
          while (nextShare <= done / traces) nextShare += 0.1
          lastLine = now
        }
      }
      finish = () => {}
    }

    const result = await seed({ store, traces, days, projects, random, onProgress })
    finish()
    const seconds = (performance.now() - started) / 1000

    process.stdout.write(
      `\nStored ${fmt(result.traces)} traces in ${seconds.toFixed(1)} s (${fmt(Math.round(result.traces / seconds))} traces/s)` +
        (result.traces < traces ? `; ${fmt(traces - result.traces)} had ids already present` : '') +
        '\n\nProjects and their API keys (synthetic demo keys; send one as "Authorization: Bearer <key>"):\n',
    )
    const width = Math.max(...result.projects.map((p) => p.project_id.length))
    for (const p of result.projects) {
      for (const k of p.keys) {
        process.stdout.write(`  ${p.project_id.padEnd(width)}  ${k.environment.padEnd(11)}  ${k.key}\n`)
      }
    }
    const reused = result.projects.filter((p) => !p.created).map((p) => p.project_id)
    if (reused.length > 0) process.stdout.write(`\n(already existed, given new keys: ${reused.join(', ')})\n`)
  } finally {
    await store.close()
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`seed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
