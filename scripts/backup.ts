// npm run backup -- [destination]: a consistent copy of the SQLite database, safe while the server runs.
// `VACUUM INTO` reads one snapshot (WAL readers never block the writer, nor it them) and writes a compact,
// self-contained file with no -wal beside it; the copy is then checked with PRAGMA integrity_check.
import { existsSync, mkdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { loadConfig } from '../src/config.js'
import { openDatabase } from '../src/store/sqlite/driver.js'
import { sqlitePath } from '../src/store/sqlite/store.js'

export interface BackupResult {
  destination: string
  traces: number
  bytes: number
}

/** Copies the database at `databaseUrl` to `destination` (which must not exist) and verifies the copy. */
export function backupDatabase(databaseUrl: string, destination: string): BackupResult {
  const source = sqlitePath(databaseUrl)
  if (source === ':memory:') throw new Error('an in-memory database cannot be backed up')
  if (!existsSync(source)) throw new Error(`no database at ${source}`)
  const target = resolve(destination)
  if (existsSync(target)) throw new Error(`${target} already exists: choose a new file (a backup never overwrites)`)
  mkdirSync(dirname(target), { recursive: true })

  const db = openDatabase(source, { readonly: true, fileMustExist: true })
  try {
    db.pragma('busy_timeout = 5000')
    db.prepare('vacuum into ?').run(target)
  } finally {
    db.close()
  }
  const copy = openDatabase(target, { readonly: true })
  try {
    const check = copy.pragma('integrity_check', { simple: true })
    if (check !== 'ok') throw new Error(`the copy failed its integrity check: ${String(check)}`)
    const traces = (copy.prepare('select count(*) as n from traces').get() as { n: number }).n
    const pages = copy.pragma('page_count', { simple: true }) as number
    const pageSize = copy.pragma('page_size', { simple: true }) as number
    return { destination: target, traces, bytes: pages * pageSize }
  } finally {
    copy.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = process.argv[2]
  if (arg === '-h' || arg === '--help') {
    console.log(
      'Usage: npm run backup -- [destination]   (default: ./backups/loupe-<UTC time>.db; source: DATABASE_URL)',
    )
    process.exit(0)
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  try {
    const { databaseUrl } = loadConfig(process.env)
    const result = backupDatabase(databaseUrl, arg ?? join('backups', `loupe-${stamp}.db`))
    console.log(`backup: ${result.destination} (${result.traces} traces, ${result.bytes} bytes, integrity ok)`)
  } catch (err) {
    console.error(`backup: ${(err as Error).message}`)
    process.exit(1)
  }
}
