// The bench on SQLite (the default store): seeding the database once, and the floors in SQLite's dialect — raw
// batched better-sqlite3 inserts into the same table, the naive SQL a first attempt would write for analytics and
// search — and the full-text index's size on disk. scripts/bench-postgres.ts is the same for PostgreSQL.
import { existsSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { performance } from 'node:perf_hooks'
import cliProgress from 'cli-progress'
import { p95Index } from '../src/analytics/math.js'
import { normalizeTrace } from '../src/ingest/normalize.js'
import { mulberry32, seed } from '../src/seed/seed.js'
import { openDatabase } from '../src/store/sqlite/driver.js'
import { createSqliteStore } from '../src/store/sqlite/store.js'
import { syntheticInput, timeMs } from './bench-harness.js'
import { FLOOR_INSERT_ROWS, say, seededPath, TRACES, workPath } from './bench-options.js'

/** The seeded file holds at least TRACES traces afterwards: it is created, or topped up (never replaced: it may be
 * a database of someone's own, given with --database). */
export async function ensureSeeded() {
  let n = 0
  if (existsSync(seededPath)) {
    const db = openDatabase(seededPath, { readonly: true })
    n = (db.prepare('select count(*) as n from traces').get() as { n: number }).n
    db.close()
    if (n >= TRACES) {
      say(`re-using ${seededPath} (${n.toLocaleString('en-US')} traces)`)
      return
    }
  }
  mkdirSync(dirname(seededPath), { recursive: true })
  const missing = TRACES - n
  say(`seeding ${missing.toLocaleString('en-US')} traces into ${seededPath}`)
  const store = createSqliteStore(seededPath)
  const bar = new cliProgress.SingleBar(
    { format: 'seeding [{bar}] {percentage}% {value}/{total} traces, eta {eta}s' },
    cliProgress.Presets.shades_classic,
  )
  bar.start(missing, 0)
  const start = performance.now()
  await seed({ store, traces: missing, random: mulberry32(1), onProgress: (done) => bar.update(done) })
  bar.stop()
  say(`seeded in ${((performance.now() - start) / 1000).toFixed(1)} s`)
  store.raw.pragma('wal_checkpoint(TRUNCATE)')
  store.raw.exec('ANALYZE')
  await store.close()
}

/** Raw better-sqlite3: the same normalized rows, one prepared INSERT, transactions of 100 — into the same table. */
export function floorInserts(): number {
  const db = openDatabase(workPath)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  const columns = (db.prepare('pragma table_info(traces)').all() as { name: string }[]).map((c) => c.name)
  const insert = db.prepare(
    `insert into traces (${columns.join(',')}) values (${columns.map((c) => `@${c}`).join(',')})`,
  )
  const rows = Array.from({ length: FLOOR_INSERT_ROWS }, (_, i) => {
    const trace = normalizeTrace(
      syntheticInput(i) as never,
      { project_id: 'bench-floor', environment: 'production' },
      {
        now: Date.now(),
        newId: () => `floor-${i}`,
      },
    )
    return {
      ...trace,
      created_at: Date.parse(trace.created_at),
      tags: JSON.stringify(trace.tags),
      metadata: JSON.stringify(trace.metadata),
      steps: JSON.stringify(trace.steps),
      // SQLite binds no booleans; the costs a client reported are a column of their own.
      tokens_reported: trace.tokens_reported ? 1 : 0,
      reported_cost: null,
    }
  })
  const insertBatch = db.transaction((batch: typeof rows) => {
    for (const row of batch) insert.run(row)
  })
  const start = performance.now()
  for (let i = 0; i < rows.length; i += 100) insertBatch(rows.slice(i, i + 100))
  const seconds = (performance.now() - start) / 1000
  db.prepare(`delete from traces where project_id = 'bench-floor'`).run()
  db.close()
  return rows.length / seconds
}

/** Full-text search as a first attempt would write it: LIKE over every text column, newest first. */
export function floorNaiveSearch(word: string, limit: number): number {
  const db = openDatabase(workPath, { readonly: true })
  const pattern = `%${word}%`
  const ms = timeMs(() =>
    db
      .prepare(
        `select * from traces where name like ? or prompt like ? or response like ? or failure_reason like ?
         or steps like ? order by created_at desc, trace_id desc limit ?`,
      )
      .all(pattern, pattern, pattern, pattern, pattern, limit),
  )
  db.close()
  return ms
}

/** Bytes the full-text index takes on disk, beside the traces table's own (SQLite's dbstat). */
export function searchStorage(): { search: number; traces: number } | null {
  const db = openDatabase(workPath, { readonly: true })
  try {
    const size = (like: string) =>
      (db.prepare('select coalesce(sum(pgsize), 0) as n from dbstat where name like ?').get(like) as { n: number }).n
    return { search: size('traces_search%'), traces: size('traces') }
  } catch {
    return null
  } finally {
    db.close()
  }
}

/** What a first attempt would write: plain aggregates and ORDER BY … OFFSET over the traces table. */
export function floorNaiveSql(projectId: string, slowMs: number) {
  const db = openDatabase(workPath, { readonly: true })
  const analytics = (where: string, params: unknown[]) => () => {
    db.prepare(
      `select count(*), sum(status = 'success'), avg(latency), sum(token_count), sum(status = 'failed'),
              sum(status = 'warning'), sum(retry_count > 0), sum(latency >= ?) from traces ${where}`,
    ).get(slowMs, ...params)
    for (const col of ['status', "coalesce(model, 'unknown')", 'project_id']) {
      db.prepare(`select ${col}, count(*) from traces ${where} group by 1`).all(...params)
    }
    const hour = 3_600_000
    const end = Math.floor(Date.now() / hour) * hour + hour
    db.prepare(
      `select (created_at - ?) / ${hour}, count(*), sum(token_count), avg(latency) from traces
       ${where ? `${where} and` : 'where'} created_at >= ? and created_at < ? group by 1`,
    ).all(end - 24 * hour, ...params, end - 24 * hour, end)
  }
  const p95 = (where: string, params: unknown[]) => () => {
    const n = (db.prepare(`select count(*) as n from traces ${where}`).get(...params) as { n: number }).n
    db.prepare(`select latency from traces ${where} order by latency limit 1 offset ?`).get(...params, p95Index(n))
  }
  const result = {
    analyticsAll: timeMs(analytics('', [])),
    analyticsProject: timeMs(analytics('where project_id = ?', [projectId])),
    p95All: timeMs(p95('', [])),
    p95Project: timeMs(p95('where project_id = ?', [projectId])),
  }
  db.close()
  return result
}
