// loupe seed (npm run seed runs this too): fills a database with the seed module's synthetic demo data, refusing one
// that already has traces unless --force, with progress on stderr and the demo keys on stdout. The store and the
// seed module are loaded only when the command runs, so the other commands never open a database.
import type { Command } from 'commander'
import { loadConfig } from '../../config.js'
import type { SeedResult } from '../../seed/seed.js'
import type { CliContext } from '../context.js'
import { CliError } from '../errors.js'
import type { OutputStream } from '../format.js'
import { integer, positive } from '../options.js'
import { progressReporter } from '../progress.js'

export function addSeedCommand(program: Command, { io, out, json }: CliContext): void {
  // loupe seed (npm run seed runs this too)
  program
    .command('seed')
    .description(
      'fill a database (SQLite or PostgreSQL) with realistic synthetic traces, and print the demo projects’ keys',
    )
    .option('-n, --traces <n>', 'how many traces', integer('--traces', 1), 10_000)
    .option('--days <d>', 'spread them over the last d days', positive('--days'), 7)
    .option('--projects <p>', 'how many projects', integer('--projects', 1, 1000), 5)
    .option(
      '-d, --database <path>',
      'SQLite path or file: URL, or a postgres:// URL (default: $DATABASE_URL, else ./data/loupe.db)',
    )
    .option(
      '--seed <s>',
      'integer seed: the same data set (relative to now) every time; keys stay random',
      integer('--seed', 0),
    )
    .option('--force', 'add traces even when the database already holds some')
    .option('--json', 'print the demo projects and keys as JSON')
    .action(async (options) => {
      const config = loadConfig(io.env)
      const database = options.database ?? config.databaseUrl
      const report = await runSeed({ ...options, database, walMaxBytes: config.sqliteWalMaxBytes }, io.stderr)
      if (options.json) return json(report)
      out(describeSeed(report, options.traces))
    })
}

export interface SeedCommandOptions {
  traces: number
  days: number
  projects: number
  database: string
  /** Integer seed of the random generator: the same data set (relative to now) every time. */
  seed?: number
  force?: boolean
  /** SQLite: the write-ahead log's bound in bytes (default SQLITE_WAL_MAX_BYTES' default). */
  walMaxBytes?: number
}

export interface SeedReport extends SeedResult {
  database: string
  seconds: number
}

const fmt = (n: number) => n.toLocaleString('en-US')

export async function runSeed(options: SeedCommandOptions, progress: OutputStream): Promise<SeedReport> {
  const { database } = options
  const { createStore, isPostgresUrl } = await import('../../store/index.js')
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(database) && !database.startsWith('file://') && !isPostgresUrl(database)) {
    throw new CliError(
      `only SQLite (a path or a file: URL) or PostgreSQL (postgres://) databases can be seeded, got '${database.replace(/\/\/[^@/]*@/, '//***@')}'`,
    )
  }
  const { mulberry32, seed } = await import('../../seed/seed.js')
  const store = await createStore(database, { walMaxBytes: options.walMaxBytes })
  try {
    const existing = (await store.traces.list({}, { limit: 1, offset: 0 })).total
    if (existing > 0 && !options.force) {
      throw new CliError(
        `${database} already holds ${fmt(existing)} traces; refusing to add synthetic data to it.\n` +
          'Pass --force to seed it anyway, or point --database at another file.',
      )
    }
    progress.write(`Seeding ${fmt(options.traces)} traces over ${options.days} day(s) into ${database}\n`)
    const started = performance.now()
    const reporter = progressReporter(progress, options.traces, 'traces')
    const result = await seed({
      store,
      traces: options.traces,
      days: options.days,
      projects: options.projects,
      random: options.seed === undefined ? undefined : mulberry32(options.seed),
      onProgress: reporter.update,
    })
    reporter.stop()
    return { ...result, database, seconds: (performance.now() - started) / 1000 }
  } finally {
    await store.close()
  }
}

/** The human report: what was stored, then every demo project's keys. */
export function describeSeed(report: SeedReport, requested: number): string {
  const { traces, seconds, projects } = report
  const lines = [
    `Stored ${fmt(traces)} traces in ${seconds.toFixed(1)} s (${fmt(Math.round(traces / Math.max(seconds, 0.001)))} traces/s)` +
      (traces < requested ? `; ${fmt(requested - traces)} had ids already present` : ''),
    '',
    'Projects and their API keys (synthetic demo keys; send one as "Authorization: Bearer <key>"):',
  ]
  const width = Math.max(...projects.map((p) => p.project_id.length))
  for (const p of projects) {
    for (const k of p.keys) lines.push(`  ${p.project_id.padEnd(width)}  ${k.environment.padEnd(11)}  ${k.key}`)
  }
  const reused = projects.filter((p) => !p.created).map((p) => p.project_id)
  if (reused.length > 0) {
    lines.push(
      '',
      `Demo projects seeded before (more traces, no new keys; use the keys printed then): ${reused.join(', ')}`,
    )
  }
  for (const p of projects.filter((p) => p.instead_of !== null)) {
    lines.push(`${p.instead_of} is a project of yours: its demo data went to ${p.project_id} instead.`)
  }
  return `${lines.join('\n')}\n`
}
