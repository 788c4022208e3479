// The migrations an earlier release shipped, to build the database it left behind and open it with this release.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { drizzle } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import type { Test } from 'tap'
import { packageRoot } from '../../src/lib/paths.js'
import { openDatabase, type SqliteDatabase } from '../../src/store/sqlite/driver.js'

/** The migrations an earlier release shipped: the first `count` of this release's. */
export function earlierMigrations(dialect: 'sqlite' | 'postgres', count: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-migrations-'))
  cpSync(join(packageRoot(), 'drizzle', dialect), dir, { recursive: true })
  const journalPath = join(dir, 'meta', '_journal.json')
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { idx: number; tag: string }[] }
  const kept = journal.entries.filter((e) => e.idx < count)
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: kept }))
  for (const file of readdirSync(dir)) {
    if (file.endsWith('.sql') && !kept.some((e) => file === `${e.tag}.sql`)) rmSync(join(dir, file))
  }
  return dir
}

/**
 * A SQLite database as an earlier release left it: a new file with the first `count` migrations applied, open. The
 * file's folder and the migrations are removed when `t` ends.
 */
export function earlierSqliteDatabase(t: Test, count: number): { file: string; db: SqliteDatabase } {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-earlier-'))
  const migrations = earlierMigrations('sqlite', count)
  t.teardown(() => {
    rmSync(dir, { recursive: true, force: true })
    rmSync(migrations, { recursive: true, force: true })
  })
  const file = join(dir, 'loupe.db')
  const db = openDatabase(file)
  migrate(drizzle(db), { migrationsFolder: migrations })
  return { file, db }
}
