// GET /traces totals come from rollups and histograms, deep pages from the hourly rollup: on random data and random
// filters, every total and every page must equal what a direct query over the traces table gives.
import t from 'tap'
import { mulberry32, seed } from '../../src/seed/seed.js'
import { createSqliteStore } from '../../src/store/sqlite/store.js'
import type { TraceFilter } from '../../src/store/types.js'

const NOW = Date.UTC(2026, 10, 21, 13, 30)

t.test('list totals and pages equal a direct query for random filters', async (t) => {
  const store = createSqliteStore(':memory:')
  t.teardown(() => store.close())
  await seed({ store, traces: 8000, days: 2, now: NOW, random: mulberry32(11) })
  const db = store.raw
  const direct = (f: TraceFilter) => {
    const clauses: string[] = []
    const params: unknown[] = []
    const add = (sql: string, v: unknown) => {
      if (v === undefined) return
      clauses.push(sql)
      params.push(v)
    }
    add('project_id = ?', f.project_id)
    add('status = ?', f.status)
    add('model = ?', f.model)
    add('environment = ?', f.environment)
    add('latency >= ?', f.min_latency)
    add('latency <= ?', f.max_latency)
    add('token_count >= ?', f.min_tokens)
    add('token_count <= ?', f.max_tokens)
    add('created_at >= ?', f.since)
    add('created_at < ?', f.until)
    return { where: clauses.length ? `where ${clauses.join(' and ')}` : '', params }
  }
  const rnd = mulberry32(5)
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!
  const projects = (db.prepare('select distinct project_id as p from traces').all() as { p: string }[]).map((r) => r.p)
  const models = (
    db.prepare('select distinct model as m from traces where model is not null').all() as { m: string }[]
  ).map((r) => r.m)
  const latencies = (
    db.prepare('select latency from traces order by random() limit 50').all() as { latency: number }[]
  ).map((r) => r.latency)
  const filters: TraceFilter[] = [{}, { model: 'unknown' }, { min_latency: 5000 }, { max_tokens: 0 }]
  for (let i = 0; i < 150; i++) {
    const f: TraceFilter = {}
    if (rnd() < 0.4) f.project_id = pick([...projects, 'no-such-project'])
    const kind = Math.floor(rnd() * 5)
    if (kind === 0) f.status = pick(['success', 'warning', 'failed'] as const)
    if (kind === 0 && rnd() < 0.5) f.model = pick(models)
    if (kind === 1) {
      if (rnd() < 0.7) f.min_latency = pick([...latencies, 0, 64, 4992, 5000, 5120])
      if (rnd() < 0.5) f.max_latency = pick([...latencies, 63.999, 65, 10_000])
    }
    if (kind === 2) {
      if (rnd() < 0.7) f.min_tokens = Math.floor(rnd() * 3000)
      if (rnd() < 0.5) f.max_tokens = Math.floor(rnd() * 5000)
    }
    if (kind === 3) {
      const a = NOW - Math.floor(rnd() * 3 * 86_400_000)
      if (rnd() < 0.8) f.since = rnd() < 0.3 ? Math.floor(a / 3_600_000) * 3_600_000 : a
      if (rnd() < 0.6) f.until = a + Math.floor(rnd() * 86_400_000)
    }
    if (kind === 4) f.environment = pick(['development', 'staging', 'production'] as const)
    filters.push(f)
  }
  for (const f of filters) {
    const { where, params } = direct(f)
    const expected = (db.prepare(`select count(*) as n from traces ${where}`).get(...params) as { n: number }).n
    const offset = pick([0, 0, 7, 4999, 5000, 6123, 7990])
    const page = await store.traces.list(f, { limit: 20, offset })
    t.equal(page.total, expected, `total ${JSON.stringify(f)}`)
    const ids = (
      db
        .prepare(`select trace_id from traces ${where} order by created_at desc, trace_id desc limit 20 offset ?`)
        .all(...params, offset) as { trace_id: string }[]
    ).map((r) => r.trace_id)
    t.same(
      page.items.map((x) => x.trace_id),
      ids,
      `page at offset ${offset} ${JSON.stringify(f)}`,
    )
  }
})
