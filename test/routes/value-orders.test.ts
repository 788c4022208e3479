// Orders and ranges of a value (latency, token_count, cost) over every project, with few projects and with more than
// SQLite merges one arm each (MERGED_PROJECTS): each page equals a recomputed sort, each range count and the p95
// latency a recount. On SQLite, a page over every project is the projects' own walks merged, with no sort.
import t, { type Test } from 'tap'
import type { Trace } from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { createSqliteStore } from '../../src/store/sqlite/store.js'
import { MERGED_PROJECTS, MERGED_ROWS_BELOW_OFFSET } from '../../src/store/sqlite/traces.js'
import { buildTestApp, createProject, planOf, postBatch, TEST_DATABASE } from '../helper.js'

const NOW = Date.parse('2026-11-21T13:45:00.000Z')
const SORTS = ['latency', 'token_count', 'cost'] as const

/** Trace i's values: few distinct ones, so that ties (broken by trace_id) are everywhere; every third unpriced. */
const make = (project: number, i: number) => ({
  trace_id: `v-${String((i * 7919 + project * 31) % 997).padStart(3, '0')}-${project}-${i}`,
  prompt: `p${i}`,
  latency: [5, 10, 10.5, 250, 1200][(i + project) % 5],
  token_count: [0, 7, 100, 3][(i * 3 + project) % 4],
  created_at: NOW - ((i * 13 + project) % 50) * 60_000,
  ...((i + project) % 3 === 0 ? {} : { cost: [0, 0.25, 0.000001][(i + project) % 3] }),
})

function sorted(traces: readonly Trace[], sort: (typeof SORTS)[number], order: 'asc' | 'desc'): string[] {
  const sign = order === 'asc' ? 1 : -1
  return [...traces]
    .sort((a, b) => {
      const va = a[sort]
      const vb = b[sort]
      const byValue = va === vb ? 0 : va === null ? -1 : vb === null ? 1 : va < vb ? -1 : 1
      return sign * (byValue || (a.trace_id < b.trace_id ? -1 : 1))
    })
    .map((tr) => tr.trace_id)
}

type SqliteStore = ReturnType<typeof createSqliteStore>

/** Projects, each with `perProject` traces (make). */
async function seedProjects(t: Test, app: LoupeApp, projects: number, perProject: number) {
  for (let p = 0; p < projects; p++) {
    const { key } = await createProject(app, `Values ${p}`)
    const res = await postBatch(
      app,
      key,
      Array.from({ length: perProject }, (_, i) => make(p, i)),
    )
    t.equal(res.json().accepted, perProject)
  }
}

/** The SQL texts a SQLite store prepares from now on, until the test ends. */
function statementsOf(t: Test, store: SqliteStore): string[] {
  const seen: string[] = []
  const prepare = store.raw.prepare.bind(store.raw)
  store.raw.prepare = ((source: string) => {
    seen.push(source)
    return prepare(source)
  }) as typeof store.raw.prepare
  t.teardown(() => {
    store.raw.prepare = prepare
  })
  return seen
}

/** A merged statement's plan, one line, checked to be a merge of its arms. */
function mergedPlan(t: Test, store: SqliteStore, source: string): string {
  const params = Array.from({ length: (source.match(/\?/g) ?? []).length }, () => 0)
  const plan = planOf(store.raw, source, ...params).join(' | ')
  t.match(plan, /MERGE \(UNION ALL\)/, plan)
  return plan
}

/** The nearest-rank p95 of the latencies. */
const p95 = (latencies: number[]) => {
  const s = [...latencies].sort((a, b) => a - b)
  return s.length === 0 ? 0 : s[Math.ceil(0.95 * s.length) - 1]!
}

for (const projects of [3, MERGED_PROJECTS + 1]) {
  t.test(`${projects} projects: pages, range counts and the p95 over every project equal a recount`, async (t) => {
    const app = await buildTestApp(t, { now: () => NOW })
    const perProject = projects > 3 ? 3 : 40
    await seedProjects(t, app, projects, perProject)
    const all: Trace[] = (await app.inject({ url: '/traces', query: { limit: '1000' } })).json().items
    t.equal(all.length, projects * perProject)

    for (const sort of SORTS) {
      for (const order of ['asc', 'desc'] as const) {
        const expected = sorted(all, sort, order)
        for (const offset of [0, 7, expected.length - 3]) {
          const res = await app.inject({ url: '/traces', query: { sort, order, limit: '6', offset: String(offset) } })
          t.strictSame(
            res.json().items.map((tr: Trace) => tr.trace_id),
            expected.slice(offset, offset + 6),
            `sort=${sort} order=${order} offset=${offset}`,
          )
        }
        const summaries = await app.inject({ url: '/traces', query: { sort, order, limit: '6', fields: 'summary' } })
        t.strictSame(
          summaries.json().items.map((tr: Trace) => tr.trace_id),
          expected.slice(0, 6),
          `sort=${sort} order=${order}, summaries`,
        )
      }
    }

    // Ranges that cut through the histogram's buckets, so that their boundary buckets are counted from the rows.
    const ranges: [Record<string, string>, (tr: Trace) => boolean][] = [
      [{ min_latency: '10.2', max_latency: '300' }, (tr) => tr.latency >= 10.2 && tr.latency <= 300],
      [{ min_tokens: '5', max_tokens: '99' }, (tr) => tr.token_count >= 5 && tr.token_count <= 99],
      [{ min_cost: '0.0000005' }, (tr) => tr.cost !== null && tr.cost >= 0.0000005],
    ]
    for (const [query, keep] of ranges) {
      const res = await app.inject({ url: '/traces', query: { ...query, sort: 'latency', limit: '500' } })
      const body = res.json()
      t.equal(body.total, all.filter(keep).length, `count of ${JSON.stringify(query)}`)
      t.strictSame(
        body.items.map((tr: Trace) => tr.trace_id),
        sorted(all.filter(keep), 'latency', 'desc'),
        `the traces of ${JSON.stringify(query)}, by latency`,
      )
    }
    const analytics = (await app.inject('/analytics')).json()
    t.equal(analytics.summary.p95_latency, p95(all.map((tr) => tr.latency)), 'the p95 latency of every trace')
  })
}

t.test(
  'SQLite: a page by a value over every project merges the projects’ walks, with no sort',
  { skip: TEST_DATABASE && 'SQLite’s plan' },
  async (t) => {
    const store = createSqliteStore(':memory:')
    const app = await buildTestApp(t, { store, now: () => NOW })
    await seedProjects(t, app, 3, 5)
    // The statements the store prepares while answering, the arms' among them.
    const seen = statementsOf(t, store)
    for (const sort of SORTS) {
      const res = await app.inject({ url: '/traces', query: { sort, order: 'desc', limit: '5' } })
      t.equal(res.statusCode, 200)
    }
    await app.inject('/analytics')
    const merged = seen.filter((s) => / union all /.test(s) && !s.startsWith('explain'))
    t.ok(merged.length >= 4, `a statement for each sort and one for the p95 (${merged.length})`)
    for (const source of merged) {
      const plan = mergedPlan(t, store, source)
      t.notMatch(plan, /TEMP B-TREE/, 'no sort')
      t.match(plan, /INDEX traces_project_(latency|tokens|cost) \(project_id=\?/, 'each arm walks its project’s index')
    }
  },
)

t.test(
  'deep offsets: past the shallow ones, the arms read keys only, and each page is still the recomputed slice',
  async (t) => {
    const store = TEST_DATABASE ? undefined : createSqliteStore(':memory:')
    const app = await buildTestApp(t, { now: () => NOW, ...(store ? { store } : {}) })
    const perProject = Math.ceil((MERGED_ROWS_BELOW_OFFSET + 100) / 3)
    await seedProjects(t, app, 3, perProject)
    const all: Trace[] = []
    for (let offset = 0; offset < 3 * perProject; offset += 500) {
      all.push(...(await app.inject({ url: '/traces', query: { limit: '500', offset: String(offset) } })).json().items)
    }
    t.equal(all.length, 3 * perProject)
    const seen = store ? statementsOf(t, store) : []
    for (const sort of SORTS) {
      for (const order of ['asc', 'desc'] as const) {
        const expected = sorted(all, sort, order)
        for (const offset of [MERGED_ROWS_BELOW_OFFSET - 1, MERGED_ROWS_BELOW_OFFSET, expected.length - 4]) {
          for (const fields of [undefined, 'summary']) {
            const query = { sort, order, limit: '5', offset: String(offset), ...(fields ? { fields } : {}) }
            const res = await app.inject({ url: '/traces', query })
            t.strictSame(
              res.json().items.map((tr: Trace) => tr.trace_id),
              expected.slice(offset, offset + 5),
              `sort=${sort} order=${order} offset=${offset}${fields ? ' fields=summary' : ''}`,
            )
          }
        }
      }
    }
    if (store) {
      const keysOnly = seen.filter((s) => / union all /.test(s) && /rowid as pick/.test(s))
      t.ok(keysOnly.length >= 3, `a keys-only statement for each sort (${keysOnly.length})`)
      for (const source of keysOnly) {
        const plan = mergedPlan(t, store, source)
        t.match(
          plan,
          /COVERING INDEX traces_project_(latency|tokens|cost) \(project_id=\?/,
          'keys from the index alone',
        )
      }
    }
  },
)
