// GET /traces in every order (sort × order), paged by cursor and by offset: each page is exactly the slice of a
// recomputed sort, ties broken by trace_id, unpriced traces as the cheapest; bad sorts and cursors are a 400.
import t from 'tap'
import { ListTracesResponse, type Trace } from '../../schemas/index.js'
import { buildTestApp, createProject, postBatch, schemaErrors } from '../helper.js'

const NOW = Date.parse('2026-11-21T13:45:00.000Z')
const SORTS = ['created_at', 'latency', 'token_count', 'cost'] as const

/** The value a sort compares; null (unpriced) below every number. */
const value = (tr: Trace, sort: (typeof SORTS)[number]) =>
  sort === 'created_at' ? Date.parse(tr.created_at) : tr[sort]

function sorted(traces: readonly Trace[], sort: (typeof SORTS)[number], order: 'asc' | 'desc'): string[] {
  const sign = order === 'asc' ? 1 : -1
  return [...traces]
    .sort((a, b) => {
      const va = value(a, sort)
      const vb = value(b, sort)
      const byValue = va === vb ? 0 : va === null ? -1 : vb === null ? 1 : va < vb ? -1 : 1
      return sign * (byValue || (a.trace_id < b.trace_id ? -1 : a.trace_id > b.trace_id ? 1 : 0))
    })
    .map((tr) => tr.trace_id)
}

t.test('every sort and order, paged by cursor and by offset, equals a recomputed sort', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const a = await createProject(app, 'Order A')
  const b = await createProject(app, 'Order B')
  // Few distinct values, so that ties (and the trace_id tie-break) are everywhere; a third unpriced.
  const make = (i: number) => ({
    trace_id: `t-${String((i * 7919) % 1000).padStart(3, '0')}-${i}`,
    prompt: `p${i}`,
    latency: [5, 10, 10.5, 250][i % 4],
    token_count: [0, 7, 7, 100, 3][i % 5],
    created_at: NOW - [0, 1000, 1000, 60_000][i % 4]! - (i % 3) * 3_600_000,
    ...(i % 3 === 0 ? {} : { cost: [0, 0.000000001, 0.25, 0.25][i % 4] }),
    ...(i % 6 === 1 ? { failure_reason: 'boom' } : {}),
  })
  await postBatch(
    app,
    a.key,
    Array.from({ length: 70 }, (_, i) => make(i)),
  )
  await postBatch(
    app,
    b.key,
    Array.from({ length: 30 }, (_, i) => make(100 + i)),
  )
  const all: Trace[] = (await app.inject({ url: '/traces', query: { limit: '1000' } })).json().items
  t.equal(all.length, 100)

  const scopes: [string, Record<string, string>, (tr: Trace) => boolean][] = [
    ['every trace', {}, () => true],
    ['one project', { project_id: a.project_id }, (tr) => tr.project_id === a.project_id],
    ['failed, priced ≥ $0', { status: 'failed', min_cost: '0' }, (tr) => tr.status === 'failed' && tr.cost !== null],
  ]
  for (const [name, filter, keep] of scopes) {
    for (const sort of SORTS) {
      for (const order of ['asc', 'desc'] as const) {
        const expected = sorted(all.filter(keep), sort, order)
        const seen: string[] = []
        let cursor: string | null = null
        let pages = 0
        do {
          const query: Record<string, string> = { ...filter, sort, order, limit: '7' }
          if (cursor) query.cursor = cursor
          const res = await app.inject({ url: '/traces', query })
          t.equal(res.statusCode, 200)
          const body = res.json()
          t.strictSame(schemaErrors(ListTracesResponse, body), [])
          t.equal(body.total, expected.length)
          seen.push(...body.items.map((tr: Trace) => tr.trace_id))
          cursor = body.next_cursor
          pages++
        } while (cursor && pages < 50)
        t.strictSame(seen, expected, `${name}: sort=${sort} order=${order}, by cursor`)
        const byOffset = await app.inject({
          url: '/traces',
          query: { ...filter, sort, order, limit: '9', offset: '9' },
        })
        t.strictSame(
          byOffset.json().items.map((tr: Trace) => tr.trace_id),
          expected.slice(9, 18),
          `${name}: sort=${sort} order=${order}, by offset`,
        )
      }
    }
  }
  const last = await app.inject({ url: '/traces', query: { limit: '100' } })
  t.equal(last.json().next_cursor, null, 'the last page has no next cursor')
  const first = await app.inject({ url: '/traces', query: { limit: '99' } })
  t.type(first.json().next_cursor, 'string', 'a page with more after it has one, whatever the paging')
})

t.test('an unknown sort or order, a tampered cursor, or one of another order: 400 naming the field', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const { key } = await createProject(app, 'Bad Paging')
  await postBatch(
    app,
    key,
    Array.from({ length: 5 }, (_, i) => ({ prompt: 'p', latency: i })),
  )
  const page = (await app.inject({ url: '/traces', query: { sort: 'latency', limit: '2' } })).json()
  const cursor: string = page.next_cursor
  t.type(cursor, 'string')
  const [payload, sum] = cursor.split('.') as [string, string]
  const forged = Buffer.from(JSON.stringify([1, 'latency', 'desc', 'x', 'y'])).toString('base64url')
  const cases: [Record<string, string>, string][] = [
    [{ sort: 'name' }, 'sort'],
    [{ order: 'up' }, 'order'],
    [{ sort: 'latency', cursor: `${payload}x.${sum}` }, 'cursor'],
    [{ sort: 'latency', cursor: `${payload}.${sum.slice(1)}` }, 'cursor'],
    [{ sort: 'latency', cursor: 'garbage' }, 'cursor'],
    [{ sort: 'latency', cursor: `${forged}.${sum}` }, 'cursor'],
    [{ sort: 'latency', cursor: '' }, 'cursor'],
    [{ sort: 'cost', cursor }, 'cursor'],
    [{ sort: 'latency', order: 'asc', cursor }, 'cursor'],
    [{ sort: 'latency', cursor, offset: '2' }, 'cursor'],
  ]
  for (const [query, field] of cases) {
    const res = await app.inject({ url: '/traces', query })
    t.equal(res.statusCode, 400, JSON.stringify(query))
    t.match(res.json().message, field, JSON.stringify(query))
  }
  const next = await app.inject({ url: '/traces', query: { sort: 'latency', limit: '2', cursor } })
  t.equal(next.statusCode, 200, 'the untouched cursor works')
  t.strictSame(
    next.json().items.map((tr: Trace) => tr.latency),
    [2, 1],
  )
})
