// `npm run bench -- --store postgres`: what the benchmark needs of a PostgreSQL database — seeding it once (through
// the store, 2,000 traces a statement), a working copy per run (CREATE DATABASE … TEMPLATE, so the seeded one stays
// as it was), and the floors in PostgreSQL's dialect: raw batched inserts into the same table, and the naive SQL a
// first attempt would write for analytics and search.
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { p95Index } from '../src/analytics/math.js'
import { normalizeTrace } from '../src/ingest/normalize.js'
import { mulberry32, seed } from '../src/seed/seed.js'
import { createPostgresStore } from '../src/store/postgres/store.js'
import { TRACE_KEYS } from '../src/store/stored-trace.js'

/** A database name the benchmark accepts: it is written into CREATE/DROP DATABASE. */
const NAME = /^[a-z_][a-z0-9_]{0,50}$/

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
async function timeMs(fn: () => Promise<unknown>, runs = 3): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    await fn()
    times.push(performance.now() - start)
  }
  return median(times)
}

export function postgresBench(url: string, say: (line: string) => void) {
  const seeded = new URL(url)
  const name = seeded.pathname.slice(1)
  if (!NAME.test(name)) throw new Error(`--database ${url}: the database name must be a plain lower-case identifier`)
  const work = new URL(url)
  work.pathname = `/${name}_work`
  const admin = new URL(url)
  admin.pathname = '/postgres'
  const adminQuery = async (text: string) => {
    const client = new pg.Client({ connectionString: admin.toString() })
    await client.connect()
    try {
      await client.query(text)
    } finally {
      await client.end()
    }
  }
  const withClient = async <T>(target: URL, fn: (client: pg.Client) => Promise<T>) => {
    const client = new pg.Client({ connectionString: target.toString() })
    await client.connect()
    try {
      return await fn(client)
    } finally {
      await client.end()
    }
  }

  return {
    /** The seeded database holds at least `traces` traces afterwards (it is created and seeded when it does not). */
    async ensureSeeded(traces: number) {
      try {
        await withClient(seeded, async () => {})
      } catch (err) {
        if ((err as { code?: string }).code !== '3D000') throw err
        await adminQuery(`create database ${name}`)
      }
      const store = await createPostgresStore(seeded.toString())
      try {
        const { rows } = await store.pool.query<{ n: number }>('select count(*) as n from traces')
        const n = rows[0]?.n ?? 0
        if (n >= traces) {
          say(`re-using ${name} (${n.toLocaleString('en-US')} traces)`)
          return
        }
        say(`seeding ${(traces - n).toLocaleString('en-US')} traces into ${name}`)
        const start = performance.now()
        let last = start
        await seed({
          store,
          traces: traces - n,
          random: mulberry32(1),
          onProgress: (done) => {
            if (performance.now() - last < 10_000) return
            last = performance.now()
            say(`  ${done.toLocaleString('en-US')} traces, ${Math.round(done / ((last - start) / 1000))}/s`)
          },
        })
        say(`seeded in ${((performance.now() - start) / 1000).toFixed(1)} s`)
      } finally {
        await store.close()
      }
      await withClient(seeded, (client) => client.query('vacuum analyze'))
    },

    /** A fresh copy of the seeded database for this run (what the server writes into); its URL. */
    async createWork(): Promise<string> {
      await adminQuery(`drop database if exists ${name}_work with (force)`)
      await adminQuery(`create database ${name}_work template ${name}`)
      await withClient(work, (client) => client.query('analyze'))
      return work.toString()
    },

    async dropWork() {
      await adminQuery(`drop database if exists ${name}_work with (force)`)
    },

    /**
     * Raw node-postgres: the same normalized rows as the SQLite floor, 100 to a multi-row INSERT in a transaction of
     * its own, into the same table (its indexes included), then deleted.
     */
    async floorInserts(count: number, input: (i: number) => unknown): Promise<number> {
      const columns = [...TRACE_KEYS, 'reported_cost']
      const rows = Array.from({ length: count }, (_, i) => {
        const trace = normalizeTrace(
          input(i) as never,
          { project_id: 'bench-floor', environment: 'production' },
          { now: Date.now(), newId: () => `floor-${i}` },
        ) as unknown as Record<string, unknown>
        return columns.map((c) => {
          if (c === 'created_at') return Date.parse(trace.created_at as string)
          if (c === 'tags' || c === 'metadata' || c === 'steps') return JSON.stringify(trace[c])
          return c === 'reported_cost' ? null : trace[c]
        })
      })
      return withClient(work, async (client) => {
        const start = performance.now()
        for (let i = 0; i < rows.length; i += 100) {
          const batch = rows.slice(i, i + 100)
          const values = batch.map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`)
          await client.query('begin')
          await client.query(`insert into traces (${columns.join(', ')}) values ${values.join(', ')}`, batch.flat())
          await client.query('commit')
        }
        const seconds = (performance.now() - start) / 1000
        await client.query(`delete from traces where project_id = 'bench-floor'`)
        return rows.length / seconds
      })
    },

    /** What a first attempt would write: plain aggregates and ORDER BY … OFFSET over the traces table. */
    async floorNaiveSql(projectId: string, slowMs: number) {
      return withClient(work, async (client) => {
        const analytics = (where: string, params: unknown[]) => async () => {
          const n = params.length
          await client.query(
            `select count(*), count(*) filter (where status = 'success'), avg(latency), sum(token_count),
                    count(*) filter (where status = 'failed'), count(*) filter (where status = 'warning'),
                    count(*) filter (where retry_count > 0), count(*) filter (where latency >= $${n + 1})
             from traces ${where}`,
            [...params, slowMs],
          )
          for (const col of ['status', "coalesce(model, 'unknown')", 'project_id']) {
            await client.query(`select ${col}, count(*) from traces ${where} group by 1`, params)
          }
          const hour = 3_600_000
          const end = Math.floor(Date.now() / hour) * hour + hour
          await client.query(
            `select (created_at - $${n + 1}) / ${hour}, count(*), sum(token_count), avg(latency) from traces
             ${where ? `${where} and` : 'where'} created_at >= $${n + 1} and created_at < $${n + 2} group by 1`,
            [...params, end - 24 * hour, end],
          )
        }
        const p95 = (where: string, params: unknown[]) => async () => {
          const { rows } = await client.query<{ n: string }>(`select count(*) as n from traces ${where}`, params)
          await client.query(
            `select latency from traces ${where} order by latency limit 1 offset $${params.length + 1}`,
            [...params, p95Index(Number(rows[0]?.n ?? 0))],
          )
        }
        return {
          analyticsAll: await timeMs(analytics('', [])),
          analyticsProject: await timeMs(analytics('where project_id = $1', [projectId])),
          p95All: await timeMs(p95('', [])),
          p95Project: await timeMs(p95('where project_id = $1', [projectId])),
        }
      })
    },

    /** Full-text search as a first attempt would write it: LIKE over every text column, newest first. */
    async floorNaiveSearch(word: string, limit: number): Promise<number> {
      return withClient(work, (client) =>
        timeMs(() =>
          client.query(
            `select * from traces where name like $1 or prompt like $1 or response like $1 or failure_reason like $1
             or steps::text like $1 order by created_at desc, trace_id desc limit $2`,
            [`%${word}%`, limit],
          ),
        ),
      )
    },

    /** Bytes the search index takes beside the traces table's own (heap and TOAST). */
    async searchStorage(): Promise<{ search: number; traces: number } | null> {
      return withClient(work, async (client) => {
        const { rows } = await client.query<{ search: string | null; traces: string }>(
          `select (select sum(pg_relation_size(indexrelid)) from pg_index i join pg_class c on c.oid = i.indexrelid
                   where i.indrelid = 'traces'::regclass and c.relname like '%search%') as search,
                  pg_table_size('traces') as traces`,
        )
        const row = rows[0]
        return row?.search ? { search: Number(row.search), traces: Number(row.traces) } : null
      })
    },
  }
}
