// Full-text search (`q` of GET /traces), one suite for both stores: every word of q must occur in the trace's name,
// prompt, response, failure reason or step inputs, outputs and errors — as a substring, whatever the case, in any
// language — combined with every other filter, sort and cursor; each answer equals a recount by a plain scan.
import t, { type Test } from 'tap'
import { ListTracesResponse, type Trace } from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { normalizeTrace } from '../../src/ingest/normalize.js'
import type { createPostgresStore } from '../../src/store/postgres/store.js'
import { insertTraces } from '../../src/store/postgres/trace-writes.js'
import { unreported } from '../../src/store/reported-cost.js'
import {
  buildTestApp,
  createProject,
  createSharedStores,
  postBatch,
  postTrace,
  schemaErrors,
  TEST_DATABASE,
} from '../helper.js'

const NOW = Date.parse('2026-11-21T13:45:00.000Z')

/** What a trace is found by, recomputed from the trace as returned (its keys are not searched). */
function haystack(tr: Trace): string {
  const strings = (v: unknown): string[] =>
    typeof v === 'string'
      ? [v]
      : typeof v === 'number' || typeof v === 'boolean'
        ? [String(v)]
        : Array.isArray(v)
          ? v.flatMap(strings)
          : v && typeof v === 'object'
            ? Object.values(v).flatMap(strings)
            : []
  return [
    tr.name,
    tr.prompt,
    tr.response,
    tr.failure_reason,
    ...tr.steps.flatMap((s) => [...strings(s.input), ...strings(s.output), s.error]),
  ]
    .filter((x): x is string => typeof x === 'string' && x !== '')
    .join('\n')
    .toLowerCase()
}

const matches = (tr: Trace, q: string) =>
  q
    .toLowerCase()
    .split(/\s+/u)
    .filter(Boolean)
    .every((w) => haystack(tr).includes(w))

const TEXTS = [
  '東京の天気は晴れです',
  '北京今天下雨',
  'Le café est très chaud à Paris',
  'CAFÉ au lait, s’il vous plaît',
  'Straße und Übermut',
  'the quick brown fox jumps',
  'Quick thinking saved the day',
  '100% sure_thing "quoted" [x]*',
  'Привет, как дела?',
  'emoji 🚀 rocket launch',
  'مرحبا بالعالم',
  'plain words only',
]

t.test('q matches words anywhere a trace holds text, in any language, combined with filters', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const a = await createProject(app, 'Search A')
  const b = await createProject(app, 'Search B')
  const traces = TEXTS.map((text, i) => {
    const where = i % 5
    return {
      trace_id: `s${String(i).padStart(2, '0')}`,
      created_at: NOW - i * 1000,
      name: where === 0 ? text : `op ${i}`,
      prompt: where === 1 ? text : `prompt ${i}`,
      response: where === 2 ? text : null,
      failure_reason: where === 3 ? text : null,
      latency: i,
      steps:
        where === 4
          ? [{ tool: 'search', input: { query: text, n: 3 }, output: ['ok'], error: null }]
          : [
              {
                tool: 'search',
                input: { query: 'nothing here' },
                error: i === 6 ? 'timeout talking to upstream' : null,
              },
            ],
    }
  })
  await postBatch(app, a.key, traces.slice(0, 8))
  await postBatch(app, b.key, traces.slice(8))
  const all: Trace[] = (await app.inject({ url: '/traces', query: { limit: '1000' } })).json().items

  const search = async (query: Record<string, string>) => {
    const res = await app.inject({ url: '/traces', query: { limit: '1000', ...query } })
    t.equal(res.statusCode, 200, JSON.stringify(query))
    t.strictSame(schemaErrors(ListTracesResponse, res.json()), [])
    if (query.limit === undefined) t.equal(res.json().total, res.json().items.length)
    return (res.json().items as Trace[]).map((tr) => tr.trace_id)
  }
  const expect = async (q: string, ids: string[], extra: Record<string, string> = {}) => {
    const found = await search({ q, ...extra })
    t.strictSame(found, ids, `q=${q} ${JSON.stringify(extra)}`)
    if (Object.keys(extra).length === 0) {
      t.strictSame(
        found,
        all.filter((tr) => matches(tr, q)).map((tr) => tr.trace_id),
        `q=${q} equals a scan`,
      )
    }
  }
  await expect('東京', ['s00'], {}) // two characters: shorter than a trigram
  await expect('天気は晴れ', ['s00'])
  await expect('北京', ['s01'])
  await expect('café', ['s02', 's03'], {}) // case folded: CAFÉ too
  await expect('CAFÉ', ['s02', 's03'])
  await expect('cafe', []) // accents are kept: a different word
  await expect('straße', ['s04'])
  await expect('QUICK', ['s05', 's06'])
  await expect('quick fox', ['s05'], {}) // every word
  await expect('fox quick', ['s05'])
  await expect('100%', ['s07'])
  await expect('_thing', ['s07'])
  await expect('"quoted"', ['s07'])
  await expect('[x]*', ['s07'])
  await expect('%', ['s07'])
  await expect('привет', ['s08'])
  await expect('🚀', ['s09'])
  await expect('بالعالم', ['s10'])
  await expect('timeout upstream', ['s06'], {}) // a step's error
  await expect('query', []) // keys are not text
  await expect(
    'nothing',
    all.filter((tr) => haystack(tr).includes('nothing')).map((tr) => tr.trace_id),
  )
  await expect(
    'op',
    all.filter((tr) => haystack(tr).includes('op')).map((tr) => tr.trace_id),
  )
  await expect('zzz', [])

  // Combined with filters, sorts and cursor paging.
  await expect('quick', ['s05'], { project_id: a.project_id, max_latency: '5' })
  await expect('prompt', ['s02', 's03', 's04', 's05', 's07'], { project_id: a.project_id, min_latency: '2' })
  t.strictSame(await search({ q: 'prompt', sort: 'latency', order: 'asc', limit: '2' }), ['s00', 's02'])
  const first = await app.inject({ url: '/traces', query: { q: 'prompt', limit: '3' } })
  const second = await app.inject({
    url: '/traces',
    query: { q: 'prompt', limit: '3', cursor: first.json().next_cursor },
  })
  const expected = all.filter((tr) => matches(tr, 'prompt')).map((tr) => tr.trace_id)
  t.strictSame(
    [...first.json().items, ...second.json().items].map((tr: Trace) => tr.trace_id),
    expected.slice(0, 6),
    'cursor paging through a search',
  )
  t.equal(first.json().total, expected.length)
})

t.test('an empty or blank q is a 400 naming q', async (t) => {
  const app = await buildTestApp(t)
  for (const q of ['', '   ', '\t']) {
    const res = await app.inject({ url: '/traces', query: { q } })
    t.equal(res.statusCode, 400, JSON.stringify(q))
    t.match(res.json().message, /q/)
  }
  const long = await app.inject({ url: '/traces', query: { q: 'x'.repeat(257) } })
  t.equal(long.statusCode, 400)
})

t.test('a trace is searchable as soon as it is stored, and a re-send does not index it twice', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const { key } = await createProject(app, 'Fresh')
  t.equal((await postTrace(app, key, { trace_id: 'f1', prompt: 'ephemeral words' })).statusCode, 201)
  t.equal((await postTrace(app, key, { trace_id: 'f1', prompt: 'ephemeral words' })).statusCode, 200)
  const res = await app.inject({ url: '/traces', query: { q: 'ephemeral' } })
  t.equal(res.json().total, 1)
  t.equal(res.json().items.length, 1)
})

t.test('the first 8,192 characters of each piece of text are searched, whatever its size', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const { key } = await createProject(app, 'Long')
  const filler = 'x'.repeat(8_200)
  await postTrace(app, key, { trace_id: 'long', prompt: `early-word ${filler} late-word`, response: 'answer-word' })
  const ids = async (q: string) =>
    (await app.inject({ url: '/traces', query: { q } })).json().items.map((tr: Trace) => tr.trace_id)
  t.strictSame(await ids('early-word'), ['long'])
  t.strictSame(await ids('late-word'), [], 'past the first 8,192 characters of the prompt')
  t.strictSame(await ids('answer-word'), ['long'], 'the response has its own 8,192')
})

t.test('a common word and a rare one find the same pages by either plan, and totals follow new traces', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const a = await createProject(app, 'Plans A')
  const b = await createProject(app, 'Plans B')
  // "common" in 3 traces of 4, "rare" in 1 of 40: a page of the first is found by walking the newest traces and
  // testing each, a page of the second from the index.
  const traces = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      trace_id: `p${String(from + i).padStart(3, '0')}`,
      created_at: NOW - (from + i) * 1000,
      prompt: `${(from + i) % 4 === 0 ? 'plain' : 'common'} text ${(from + i) % 40 === 7 ? 'rare' : ''}`,
      response: (from + i) % 3 === 0 ? 'ok' : null,
      latency: ((from + i) * 37) % 50,
      token_count: ((from + i) * 13) % 30,
      // Ties, and unpriced traces (null sorts as the cheapest).
      cost: (from + i) % 5 === 0 ? null : ((from + i) % 7) / 100,
    }))
  await postBatch(app, a.key, traces(0, 80))
  await postBatch(app, b.key, traces(80, 80))
  const list = async (query: Record<string, string>) =>
    (await app.inject({ url: '/traces', query: { fields: 'summary', ...query } })).json() as {
      total: number
      items: { trace_id: string }[]
      next_cursor: string | null
    }
  const recount = async (q: string, query: Record<string, string> = {}) => {
    const everything = await app.inject({ url: '/traces', query: { limit: '1000', ...query } })
    return (everything.json().items as Trace[]).filter((tr) => matches(tr, q)).map((tr) => tr.trace_id)
  }
  for (const q of ['common', 'rare', 'common text', 'ok']) {
    for (const scope of [{}, { project_id: a.project_id }] as Record<string, string>[]) {
      const expected = await recount(q, scope)
      const pages: string[] = []
      let cursor: string | null = null
      for (let i = 0; i < 100; i++) {
        const page = await list({ q, limit: '7', ...scope, ...(cursor ? { cursor } : {}) })
        t.equal(page.total, expected.length, `total of q=${q} ${JSON.stringify(scope)}`)
        pages.push(...page.items.map((item) => item.trace_id))
        cursor = page.next_cursor
        if (!cursor) break
      }
      t.strictSame(pages, expected, `every page of q=${q} ${JSON.stringify(scope)}, in order`)
      const offset = await list({ q, limit: '5', offset: '11', ...scope })
      t.strictSame(
        offset.items.map((item) => item.trace_id),
        expected.slice(11, 16),
        `an offset page of q=${q}`,
      )
    }
  }

  // In every order: pages walked along the order's index equal one page of every match, ordered.
  for (const order of [
    { sort: 'latency', order: 'asc' },
    { sort: 'cost', order: 'desc' },
    { sort: 'token_count', order: 'desc' },
  ]) {
    const whole = (await list({ q: 'common', limit: '1000', ...order })).items.map((item) => item.trace_id)
    const pages: string[] = []
    let cursor: string | null = null
    for (let i = 0; i < 100; i++) {
      const page = await list({ q: 'common', limit: '9', ...order, ...(cursor ? { cursor } : {}) })
      pages.push(...page.items.map((item) => item.trace_id))
      cursor = page.next_cursor
      if (!cursor) break
    }
    t.strictSame(pages, whole, `q=common ${JSON.stringify(order)}, page by page`)
  }

  // Counted once, a search's total follows the traces stored after: matching or not, in its project or not.
  t.equal((await list({ q: 'common' })).total, (await recount('common')).length)
  await postBatch(app, a.key, traces(160, 9))
  await postBatch(app, b.key, traces(169, 5))
  t.equal((await list({ q: 'common' })).total, (await recount('common')).length, 'new traces counted')
  t.equal(
    (await list({ q: 'common', project_id: b.project_id })).total,
    (await recount('common', { project_id: b.project_id })).length,
  )
  await postTrace(app, b.key, { trace_id: 'late-common', prompt: 'COMMON again', created_at: NOW - 1_000_000 })
  t.equal((await list({ q: 'common' })).total, (await recount('common')).length, 'an old created_at too')
  t.equal(
    (await list({ q: 'common', project_id: b.project_id })).total,
    (await recount('common', { project_id: b.project_id })).length,
  )
  t.equal(
    (await list({ q: 'common', project_id: a.project_id })).total,
    (await recount('common', { project_id: a.project_id })).length,
  )

  // A deletion frees rowids that new traces may get again: counts kept from before it are not trusted.
  const newest = (await list({ q: 'common', limit: '3' })).items.map((item) => item.trace_id)
  for (const id of newest) t.equal((await app.inject({ method: 'DELETE', url: `/traces/${id}` })).statusCode, 204)
  t.equal((await list({ q: 'common' })).total, (await recount('common')).length, 'after a deletion')
  await postBatch(app, a.key, traces(300, 6))
  t.equal((await list({ q: 'common' })).total, (await recount('common')).length, 'after a deletion, then new traces')
})

/**
 * Two apps on one database, as two replicas, with a project made by each, and what checks a search's total on both
 * against a recount.
 */
async function replicas(t: Test, name: string) {
  const [storeA, storeB] = await createSharedStores(t)
  const a = await buildTestApp(t, { store: storeA, now: () => NOW })
  const b = await buildTestApp(t, { store: storeB, now: () => NOW })
  const one = await createProject(a, `${name} one`)
  const two = await createProject(b, `${name} two`)
  const scopes = [{ project_id: one.project_id }, { project_id: two.project_id }]
  const total = async (app: LoupeApp, query: Record<string, string>) =>
    (await app.inject({ url: '/traces', query: { fields: 'summary', limit: '5', ...query } })).json().total as number
  const recount = async (q: string, query: Record<string, string>) => {
    const everything = await a.inject({ url: '/traces', query: { limit: '1000', ...query } })
    return (everything.json().items as Trace[]).filter((tr) => matches(tr, q)).length
  }
  /** Each app's total of q (alone and within each scope) equals a recount; twice, so a kept count is used too. */
  const check = async (what: string, q: string, scopes: Record<string, string>[]) => {
    for (const scope of [{}, ...scopes]) {
      const expected = await recount(q, scope)
      for (const [name, app] of [
        ['A', a],
        ['B', b],
      ] as const) {
        for (const ask of ['asked once', 'asked again']) {
          t.equal(
            await total(app, { q, ...scope }),
            expected,
            `${what}: ${name}'s total of q=${q} ${JSON.stringify(scope)} (${ask})`,
          )
        }
      }
    }
  }
  return { a, b, storeA, storeB, one, two, scopes, check }
}

const wordy = (prefix: string, from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    trace_id: `${prefix}${String(from + i).padStart(3, '0')}`,
    created_at: NOW - (from + i) * 1000,
    prompt: `${(from + i) % 3 === 0 ? 'plain' : 'common'} words ${(from + i) % 10 === 4 ? 'rare' : ''}`,
  }))

t.test('kept search totals stay exact as another instance on the same database stores and deletes', async (t) => {
  const { a, b, storeB, one, two, scopes, check } = await replicas(t, 'Shared')
  await postBatch(a, one.key, wordy('x', 0, 30))
  await check('first counts', 'common', scopes)
  await check('first counts', 'rare', scopes)

  await postBatch(b, two.key, wordy('y', 30, 12))
  await postBatch(b, one.key, wordy('y', 42, 5))
  await check('after the other instance stored', 'common', scopes)
  await check('after the other instance stored', 'rare', scopes)

  // The newest trace deleted by the other instance (its rowid may be given again), then new traces.
  const newest = (await b.inject({ url: '/traces', query: { q: 'common', limit: '2' } })).json().items as Trace[]
  for (const tr of newest) {
    t.equal((await b.inject({ method: 'DELETE', url: `/traces/${tr.trace_id}` })).statusCode, 204)
  }
  await check('after the other instance deleted', 'common', scopes)
  await postBatch(b, one.key, wordy('z', 47, 4))
  await check('after the other instance deleted, then stored', 'common', scopes)

  // A deletion by filter (as retention's), oldest first, from the other instance's store.
  t.equal((await storeB.traces.delete({ filter: { q: ['rare'] }, limit: 3 })).length, 3)
  await check('after a deletion by filter', 'rare', scopes)
  await check('after a deletion by filter', 'common', scopes)
})

t.test(
  'a trace whose transaction took a lower seq and commits later is counted once it commits',
  { skip: !TEST_DATABASE && 'PostgreSQL only: SQLite writers take turns, none commits late' },
  async (t) => {
    // The late trace is another project's than the early one: its open transaction holds its project's rollup rows.
    const { a, b, storeB, one, two, scopes, check } = await replicas(t, 'Late')
    await postBatch(a, one.key, wordy('x', 0, 20))
    await check('before', 'common', scopes)

    const { pool } = storeB as Awaited<ReturnType<typeof createPostgresStore>>
    const held = await pool.connect()
    t.teardown(() => held.release())
    await held.query('begin')
    const late = normalizeTrace(
      { trace_id: 'late', prompt: 'common, stored late' },
      { project_id: two.project_id, environment: 'development' },
      { now: NOW, newId: () => 'unused' },
    )
    const { seqs } = await insertTraces(held, [unreported(late)], null)
    await postBatch(b, one.key, [{ trace_id: 'early', prompt: 'common, stored early', created_at: NOW }])
    const early = await pool.query<{ seq: number }>(`select seq from traces where trace_id = 'early'`)
    t.ok(seqs[0]! < early.rows[0]!.seq, 'the open transaction holds the lower seq')
    await check('while the lower seq is not committed', 'common', scopes)

    await held.query('commit')
    t.equal(
      (await a.inject({ url: '/traces', query: { q: 'common', project_id: two.project_id } })).json().total,
      1,
      'the late trace is found',
    )
    await check('once the lower seq is committed', 'common', scopes)
  },
)

t.test(
  'a deletion by the instance that keeps a total brings it past the deletion, without counting again',
  async (t) => {
    const { a, b, storeA, storeB, one, two, scopes, check } = await replicas(t, 'Own')
    await postBatch(a, one.key, wordy('x', 0, 30))
    await postBatch(b, two.key, wordy('y', 30, 12))
    const words = ['common', 'rare'] as const
    const checkAll = async (what: string) => {
      for (const q of words) await check(what, q, scopes)
    }
    await checkAll('first counts')
    const fullCounts = async () => (await storeB.stats()).search_full_counts
    /** After a deletion by B: each of B's totals equals a recount, none counted in full; A's are exact too. */
    const afterOwnDeletion = async (what: string) => {
      const before = await fullCounts()
      await checkAll(what)
      t.equal(await fullCounts(), before, `${what}: B counted nothing in full`)
    }

    // By id: the newest traces.
    const newest = (await b.inject({ url: '/traces', query: { q: 'common', limit: '2' } })).json().items as Trace[]
    for (const tr of newest) {
      t.equal((await b.inject({ method: 'DELETE', url: `/traces/${tr.trace_id}` })).statusCode, 204)
    }
    await afterOwnDeletion('after deletions by id')
    // The last trace stored, which B's counts hold (SQLite gives its rowid to the next trace stored), then a match.
    await postBatch(a, two.key, wordy('z', 42, 6))
    await checkAll('after new traces')
    t.equal((await b.inject({ method: 'DELETE', url: '/traces/z047' })).statusCode, 204)
    await postTrace(a, two.key, { trace_id: 'after-last', prompt: 'common rare, stored after the last was deleted' })
    await afterOwnDeletion('after the last trace stored was deleted, then a match stored')
    // Traces stored after B's counts (not in them), one deleted before B asks again.
    await postBatch(a, two.key, wordy('v', 48, 6))
    t.equal((await b.inject({ method: 'DELETE', url: '/traces/v049' })).statusCode, 204)
    await afterOwnDeletion('after new traces, one of them deleted before B asked again')

    // By filter, oldest first.
    t.equal((await storeB.traces.delete({ filter: { q: ['rare'] }, limit: 2 })).length, 2)
    t.equal((await storeB.traces.delete({ filter: { project_id: one.project_id }, limit: 4 })).length, 4)
    await afterOwnDeletion('after deletions by filter')

    // Retention's pass.
    const kept = async () =>
      (await b.inject({ url: '/traces', query: { project_id: one.project_id, limit: '1' } })).json().total as number
    const stored = await kept()
    const put = await b.inject({
      method: 'PUT',
      url: `/projects/${one.project_id}/retention`,
      payload: { retention_days: 0, retention_max_traces: 10 },
    })
    t.equal(put.statusCode, 200)
    t.same(await b.retention.runOnce(), [{ project_id: one.project_id, reason: 'count', deleted: stored - 10 }])
    t.equal(await kept(), 10)
    await afterOwnDeletion("after retention's pass")

    // A deletion by the other instance: B's counts are not used any more, and every total stays exact.
    const aBefore = (await storeA.stats()).search_full_counts
    t.equal((await storeA.traces.delete({ filter: { q: ['common'] }, limit: 1 })).length, 1)
    const before = await fullCounts()
    await checkAll('after a deletion by the other instance')
    t.ok((await fullCounts()) > before, 'B counted again after the other instance deleted')
    t.equal((await storeA.stats()).search_full_counts, aBefore, 'A did not')
  },
)
