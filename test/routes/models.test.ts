// Price overrides (GET/PUT/DELETE /models…), re-pricing (POST /costs/recompute), and the cost filters of GET /traces.
import t from 'tap'
import { ModelPriceSchema, type Trace } from '../../schemas/index.js'
import { buildTestApp, createProject, postBatch, postTrace, schemaErrors } from '../helper.js'

const NOW = Date.parse('2026-11-21T13:45:00.000Z')

t.test('an override is set, read, replaced, listed and removed', async (t) => {
  let now = NOW
  const app = await buildTestApp(t, { now: () => now })
  const put = await app.inject({
    method: 'PUT',
    url: '/models/my-model*',
    payload: { input_price: 1.5, output_price: 4, cached_input_price: 0.5 },
  })
  t.equal(put.statusCode, 201, 'a new pattern is created')
  t.strictSame(put.json(), {
    pattern: 'my-model*',
    input_price: 1.5,
    output_price: 4,
    cached_input_price: 0.5,
    updated_at: '2026-11-21T13:45:00.000Z',
  })
  t.strictSame(schemaErrors(ModelPriceSchema, put.json()), [])
  now += 1000
  const replaced = await app.inject({
    method: 'PUT',
    url: '/models/my-model*',
    payload: { input_price: 2, output_price: 5 },
  })
  t.equal(replaced.statusCode, 200, 'an existing pattern is replaced')
  t.equal(replaced.json().cached_input_price, null)
  t.equal(
    (await app.inject({ method: 'PUT', url: '/models/a-model', payload: { input_price: 0, output_price: 0 } }))
      .statusCode,
    201,
  )
  const list = await app.inject('/models')
  t.strictSame(
    list.json().items.map((p: { pattern: string }) => p.pattern),
    ['a-model', 'my-model*'],
  )
  t.equal((await app.inject('/models/my-model*')).json().input_price, 2)
  t.equal((await app.inject({ method: 'DELETE', url: '/models/my-model*' })).statusCode, 204)
  t.equal((await app.inject('/models/my-model*')).statusCode, 404)
  t.equal((await app.inject({ method: 'DELETE', url: '/models/my-model*' })).statusCode, 404)
})

t.test('bad prices and patterns are a 400 naming the field, and change nothing', async (t) => {
  const app = await buildTestApp(t)
  const cases: [string, unknown, string][] = [
    ['/models/m', { input_price: -1, output_price: 1 }, 'input_price'],
    ['/models/m', { input_price: 1, output_price: 'x' }, 'output_price'],
    ['/models/m', { input_price: 1 }, 'output_price'],
    ['/models/m', { input_price: 1, output_price: 1, cached_input_price: -0.1 }, 'cached_input_price'],
    ['/models/m', { input_price: 1, output_price: 1e9 }, 'output_price'],
    ['/models/***', { input_price: 1, output_price: 1 }, 'pattern'],
  ]
  for (const [url, payload, field] of cases) {
    const res = await app.inject({ method: 'PUT', url, payload: payload as object })
    t.equal(res.statusCode, 400, JSON.stringify(payload))
    t.match(res.json().message, field)
  }
  t.equal((await app.inject('/models')).json().total, 0)
})

t.test('in protected mode only the admin token manages prices', async (t) => {
  const ADMIN = 'admin-token-for-prices-0123456789'
  const app = await buildTestApp(t, { config: { adminToken: ADMIN } })
  const admin = { authorization: `Bearer ${ADMIN}` }
  const project = await createProject(app, 'Priced', 'production', ADMIN)
  const asKey = { authorization: `Bearer ${project.key}` }
  const body = { input_price: 1, output_price: 1 }
  t.equal((await app.inject({ method: 'PUT', url: '/models/m', payload: body })).statusCode, 401)
  t.equal((await app.inject({ method: 'PUT', url: '/models/m', payload: body, headers: asKey })).statusCode, 403)
  t.equal((await app.inject({ url: '/models', headers: asKey })).statusCode, 403)
  t.equal((await app.inject({ method: 'POST', url: '/costs/recompute', headers: asKey })).statusCode, 403)
  t.equal((await app.inject({ method: 'PUT', url: '/models/m', payload: body, headers: admin })).statusCode, 201)
})

t.test('an override prices the traces stored after it; recompute prices those stored before', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const { key } = await createProject(app, 'Costs')
  const call = { prompt: 'p', model: 'acme-large-2', prompt_tokens: 1000, completion_tokens: 500 }
  const before = (await postTrace(app, key, { ...call, trace_id: 'before' })).json()
  t.equal(before.cost, null, 'a model the price database does not know is unpriced')
  await app.inject({ method: 'PUT', url: '/models/acme-large*', payload: { input_price: 3, output_price: 15 } })
  const after = (await postTrace(app, key, { ...call, trace_id: 'after' })).json()
  t.equal(after.cost, 0.0105, '1000 × $3/M + 500 × $15/M')
  const reported = (await postTrace(app, key, { ...call, trace_id: 'reported', cost: 0.42 })).json()
  t.equal(reported.cost, 0.42, 'a reported cost wins over any price')
  // Steps with their own model and tokens are priced one by one; a reported step cost is kept.
  const steps = (
    await postTrace(app, key, {
      trace_id: 'steps',
      prompt: 'p',
      model: 'acme-large-2',
      steps: [
        { type: 'llm', metadata: { model: 'acme-large-2', prompt_tokens: 100, completion_tokens: 10 } },
        { type: 'llm', metadata: { model: 'gpt-4o-2024-08-06', prompt_tokens: 1000, completion_tokens: 100 } },
        { type: 'llm', cost: 0.01, metadata: { model: 'unknown-thing' } },
        { tool: 'search' },
      ],
    })
  ).json()
  t.strictSame(
    steps.steps.map((s: Trace['steps'][number]) => s.cost),
    [0.00045, 0.0035, 0.01, null],
  )
  t.equal(steps.cost, 0.01395, 'the trace costs the sum of its steps')

  await app.inject({ method: 'PUT', url: '/models/acme-large-2', payload: { input_price: 1, output_price: 1 } })
  const res = await app.inject({ method: 'POST', url: '/costs/recompute', query: { since: '2026-11-21T00:00:00Z' } })
  t.strictSame(res.json(), { scanned: 4, changed: 3 }, 'before, after and steps change; reported keeps its cost')
  const get = async (id: string) => (await app.inject(`/traces/${id}`)).json() as Trace
  t.equal((await get('before')).cost, 0.0015)
  t.equal((await get('after')).cost, 0.0015)
  t.equal((await get('reported')).cost, 0.42)
  t.strictSame(
    (await get('steps')).steps.map((s) => s.cost),
    [0.00011, 0.0035, 0.01, null],
  )
  const none = await app.inject({ method: 'POST', url: '/costs/recompute', payload: { since: '2026-11-22T00:00:00Z' } })
  t.strictSame(none.json(), { scanned: 0, changed: 0 }, 'since excludes older traces')
  t.equal(
    (await app.inject({ method: 'POST', url: '/costs/recompute', payload: { since: 'yesterday' } })).statusCode,
    400,
  )
})

t.test('min_cost and max_cost: inclusive, unpriced traces never match, counts exact', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const { key } = await createProject(app, 'Ranges')
  const costs = [null, 0, 0.000000001, 0.1, 0.3, 0.30000000000000004, 1, 999_999]
  await postBatch(
    app,
    key,
    costs.map((cost, i) => ({ trace_id: `c${i}`, prompt: 'p', ...(cost === null ? {} : { cost }) })),
  )
  const ids = async (query: Record<string, string>) => {
    const res = await app.inject({ url: '/traces', query })
    t.equal(res.statusCode, 200)
    const body = res.json()
    t.equal(body.total, body.items.length, `total of ${JSON.stringify(query)}`)
    return body.items.map((tr: Trace) => tr.trace_id).sort()
  }
  t.strictSame(await ids({ min_cost: '0' }), ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7'])
  t.strictSame(await ids({ min_cost: '0.3' }), ['c4', 'c5', 'c6', 'c7'], 'stored to the nano-dollar: 0.3 twice')
  t.strictSame(await ids({ max_cost: '0.1' }), ['c1', 'c2', 'c3'])
  t.strictSame(await ids({ min_cost: '0.000000001', max_cost: '1' }), ['c2', 'c3', 'c4', 'c5', 'c6'])
  t.strictSame(await ids({ min_cost: '2', max_cost: '1' }), [])
  for (const bad of ['-1', 'x', '1000001']) {
    const res = await app.inject({ url: '/traces', query: { min_cost: bad } })
    t.equal(res.statusCode, 400)
    t.match(res.json().message, 'min_cost')
  }
})
