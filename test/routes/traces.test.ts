// GET /traces, GET /traces/{trace_id}, POST /traces and POST /traces/batch: the HTTP rules of docs/api.md.
import t, { type Test } from 'tap'
import {
  BatchTracesResponse,
  ErrorSchema,
  ListTraceSummariesResponse,
  ListTracesResponse,
  TRACE_BODY_FIELDS,
  TraceSchema,
} from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { buildTestApp, createProject, postBatch, postTrace, schemaErrors } from '../helper.js'

// 2026-11-21T13:45:00.000Z, worked out independently with `date -u -d @1795268700`.
const NOW = 1_795_268_700_000
const NOW_ISO = '2026-11-21T13:45:00.000Z'

/** GET /traces with the given query. */
function list(app: LoupeApp, query: Record<string, string> = {}) {
  return app.inject({ method: 'GET', url: '/traces', query })
}

/** The trace ids of a GET /traces answer, after checking it is a 200 in the contract's shape. */
async function ids(t: Test, app: LoupeApp, query: Record<string, string> = {}): Promise<string[]> {
  const res = await list(app, query)
  t.equal(res.statusCode, 200, `GET /traces ${JSON.stringify(query)} is 200`)
  t.same(schemaErrors(ListTracesResponse, res.json()), [], 'the answer conforms to ListTracesResponse')
  return res.json().items.map((item: { trace_id: string }) => item.trace_id)
}

/** Stores traces through the batch door and insists they were all accepted. */
async function seed(t: Test, app: LoupeApp, key: string, traces: Record<string, unknown>[]) {
  const res = await postBatch(app, key, traces)
  t.equal(res.statusCode, 200, 'seed batch is 200')
  t.same(res.json().rejected, [], 'seed batch rejects nothing')
}

/** A new app with the project Acme, holding `traces` (each checked stored). */
async function acmeWith(t: Test, traces: Record<string, unknown>[]) {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Acme')
  await seed(t, app, key, traces)
  return { app, key }
}

/** The ids of the traces the app announces from now on, in the order announced. */
function announcedIds(app: LoupeApp): string[] {
  const ids: string[] = []
  app.hub.subscribe((traces) => {
    for (const trace of traces) ids.push(trace.trace_id)
  })
  return ids
}

/** Asserts the contract's error shape and returns the message. */
function errorMessage(t: Test, res: { statusCode: number; json: () => unknown }, status: number): string {
  t.equal(res.statusCode, status, `answers ${status}`)
  const body = res.json() as { statusCode: number; error: string; message: string }
  t.same(schemaErrors(ErrorSchema, body), [], 'the error has the shape { statusCode, error, message }')
  t.equal(body.statusCode, status, 'statusCode repeats the HTTP status')
  t.type(body.message, 'string')
  return body.message
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` })

// ---------------------------------------------------------------- GET /traces

t.test('GET /traces on an empty store answers { total: 0, items: [], next_cursor: null }', async (t) => {
  const app = await buildTestApp(t)
  const res = await list(app)
  t.equal(res.statusCode, 200)
  t.same(res.json(), { total: 0, items: [], next_cursor: null })
})

t.test('GET /traces lists newest first: created_at desc, then trace_id desc on a tie', async (t) => {
  const { app } = await acmeWith(t, [
    { trace_id: 'a', prompt: 'p', created_at: '2026-11-21T10:00:00Z' },
    { trace_id: 'b', prompt: 'p', created_at: '2026-11-21T12:00:00Z' },
    { trace_id: 'z', prompt: 'p', created_at: '2026-11-21T11:00:00Z' },
    { trace_id: 'c', prompt: 'p', created_at: '2026-11-21T12:00:00Z' },
  ])
  const res = await list(app)
  const body = res.json()
  t.same(schemaErrors(ListTracesResponse, body), [])
  for (const item of body.items) t.same(schemaErrors(TraceSchema, item), [], `${item.trace_id} conforms to TraceSchema`)
  t.same(
    body.items.map((i: { trace_id: string }) => i.trace_id),
    ['c', 'b', 'z', 'a'],
  )
  t.equal(body.total, 4)
})

t.test('GET /traces: total counts every match, limit and offset cut the page', async (t) => {
  // t1 oldest … t5 newest.
  const { app } = await acmeWith(
    t,
    [1, 2, 3, 4, 5].map((n) => ({ trace_id: `t${n}`, prompt: 'p', created_at: `2026-11-21T0${n}:00:00Z` })),
  )
  const page = async (query: Record<string, string>) => {
    const res = await list(app, query)
    t.equal(res.statusCode, 200)
    return { total: res.json().total, ids: res.json().items.map((i: { trace_id: string }) => i.trace_id) }
  }
  t.same(await page({ limit: '2' }), { total: 5, ids: ['t5', 't4'] })
  t.same(await page({ limit: '2', offset: '2' }), { total: 5, ids: ['t3', 't2'] })
  t.same(await page({ limit: '2', offset: '4' }), { total: 5, ids: ['t1'] })
  t.same(await page({ offset: '5' }), { total: 5, ids: [] })
  t.same(await page({ offset: '0' }), { total: 5, ids: ['t5', 't4', 't3', 't2', 't1'] })
})

t.test('GET /traces: limit defaults to 50 and may go up to 1000', async (t) => {
  const { app } = await acmeWith(
    t,
    Array.from({ length: 60 }, (_, i) => ({ prompt: `p${i}` })),
  )
  const byDefault = (await list(app)).json()
  t.equal(byDefault.total, 60)
  t.equal(byDefault.items.length, 50, 'default page is 50')
  t.equal((await list(app, { limit: '1000' })).json().items.length, 60)
  t.equal((await list(app, { limit: '1' })).json().items.length, 1)
})

t.test('GET /traces: limit outside 1–1000 or not an integer is a 400 naming limit', async (t) => {
  const app = await buildTestApp(t)
  for (const limit of ['0', '1001', '-1', '1.5', 'abc']) {
    const message = errorMessage(t, await list(app, { limit }), 400)
    t.match(message, /limit/, `limit=${limit} is named`)
  }
})

t.test('GET /traces: a negative or non-integer offset is a 400 naming offset', async (t) => {
  const app = await buildTestApp(t)
  for (const offset of ['-1', '2.5', 'x']) {
    t.match(errorMessage(t, await list(app, { offset }), 400), /offset/, `offset=${offset}`)
  }
})

t.test('GET /traces: a filter beyond the bounds of the field it filters is a 400 naming it', async (t) => {
  const app = await buildTestApp(t)
  const cases: [string, RegExp][] = [
    ['min_tokens=1e20', /^querystring\/min_tokens must be <= 100000000000/],
    ['max_tokens=100000000000000000000', /^querystring\/max_tokens must be <= 100000000000/],
    ['min_latency=1e308', /^querystring\/min_latency must be <= 604800000/],
    ['max_latency=Infinity', /^querystring\/max_latency must be a finite number/],
    ['min_latency=-Infinity', /^querystring\/min_latency must be a finite number/],
    ['min_latency=NaN', /^querystring\/min_latency must be number/],
    ['offset=1e20', /^querystring\/offset must be <= 1000000000/],
    ['offset=9007199254740993', /^querystring\/offset must be <= 1000000000/],
  ]
  for (const [query, expected] of cases) {
    const res = await app.inject(`/traces?${query}`)
    t.match(errorMessage(t, res, 400), expected, query)
  }
})

t.test('GET /traces?status= keeps only that status; any other value is a 400 naming status', async (t) => {
  const { app } = await acmeWith(t, [
    { trace_id: 'ok', prompt: 'p' },
    // search twice: one retry → warning.
    { trace_id: 'warn', prompt: 'p', steps: [{ tool: 'search' }, { tool: 'search' }] },
    { trace_id: 'bad', prompt: 'p', failure_reason: 'timeout' },
  ])
  t.same(await ids(t, app, { status: 'success' }), ['ok'])
  t.same(await ids(t, app, { status: 'warning' }), ['warn'])
  t.same(await ids(t, app, { status: 'failed' }), ['bad'])
  for (const status of ['error', 'bogus', 'SUCCESS', '']) {
    t.match(errorMessage(t, await list(app, { status }), 400), /status/, `status=${JSON.stringify(status)}`)
  }
})

t.test('GET /traces?project_id= keeps only that project', async (t) => {
  const app = await buildTestApp(t)
  const acme = await createProject(app, 'Acme')
  const globex = await createProject(app, 'Globex')
  await seed(t, app, acme.key, [{ trace_id: 'a1', prompt: 'p' }])
  await seed(t, app, globex.key, [
    { trace_id: 'g1', prompt: 'p', created_at: '2026-01-01T00:00:00Z' },
    { trace_id: 'g2', prompt: 'p', created_at: '2026-01-02T00:00:00Z' },
  ])
  t.same(await ids(t, app, { project_id: 'acme' }), ['a1'])
  t.same(await ids(t, app, { project_id: 'globex' }), ['g2', 'g1'])
  t.same((await list(app, { project_id: 'nobody' })).json(), { total: 0, items: [], next_cursor: null })
  t.equal((await list(app)).json().total, 3)
})

t.test('GET /traces?model= keeps only that model, exactly', async (t) => {
  const { app } = await acmeWith(t, [
    { trace_id: 'm1', prompt: 'p', model: 'gpt-4o' },
    { trace_id: 'm2', prompt: 'p', model: 'gpt-4o-mini' },
    { trace_id: 'm3', prompt: 'p' },
  ])
  t.same(await ids(t, app, { model: 'gpt-4o' }), ['m1'])
  t.same(await ids(t, app, { model: 'gpt-4o-mini' }), ['m2'])
  t.same(await ids(t, app, { model: 'gpt' }), [])
})

/**
 * The two numeric ranges GET /traces filters on: the query's name, its unit, the trace's field, three traces (their
 * id prefix and values), bounds that keep only the middle one, and a bad min and max.
 */
const RANGES = [
  ['latency', 'milliseconds', 'latency', 'l', [100, 200, 300], ['150.5', '299.9'], ['-1', 'slow']],
  ['tokens', 'integers', 'token_count', 'k', [10, 20, 30], ['11', '29'], ['1.5', '-3']],
] as const

for (const [field, unit, column, id, values, between, bad] of RANGES) {
  t.test(`GET /traces: min_${field} and max_${field} are inclusive ${unit}`, async (t) => {
    const app = await buildTestApp(t)
    const { key } = await createProject(app, 'Acme')
    await seed(
      t,
      app,
      key,
      values.map((value, i) => ({
        trace_id: `${id}${value}`,
        prompt: 'p',
        [column]: value,
        created_at: `2026-11-21T0${i + 1}:00:00Z`,
      })),
    )
    const [low, middle, high] = values.map((value) => `${id}${value}`)
    const [min, max] = [`min_${field}`, `max_${field}`]
    const mid = String(values[1])
    t.same(await ids(t, app, { [min]: mid }), [high, middle])
    t.same(await ids(t, app, { [max]: mid }), [middle, low])
    t.same(await ids(t, app, { [min]: mid, [max]: mid }), [middle])
    t.same(await ids(t, app, { [min]: between[0], [max]: between[1] }), [middle])
    t.same(await ids(t, app, { [min]: String(values[2] + 1) }), [])
    for (const [name, value] of [
      [min, bad[0]],
      [max, bad[1]],
    ]) {
      t.match(errorMessage(t, await list(app, { [name!]: value! }), 400), new RegExp(name!), `${name}=${value}`)
    }
  })
}

t.test('GET /traces: session_id and user_id keep only their traces, and filters combine', async (t) => {
  const { app } = await acmeWith(t, [
    { trace_id: 's1u1', prompt: 'p', session_id: 's1', user_id: 'u1', created_at: '2026-11-21T01:00:00Z' },
    { trace_id: 's1u2', prompt: 'p', session_id: 's1', user_id: 'u2', created_at: '2026-11-21T02:00:00Z' },
    { trace_id: 's2u1', prompt: 'p', session_id: 's2', user_id: 'u1', created_at: '2026-11-21T03:00:00Z' },
    { trace_id: 'none', prompt: 'p', created_at: '2026-11-21T04:00:00Z' },
  ])
  t.same(await ids(t, app, { session_id: 's1' }), ['s1u2', 's1u1'])
  t.same(await ids(t, app, { user_id: 'u1' }), ['s2u1', 's1u1'])
  t.same(await ids(t, app, { session_id: 's1', user_id: 'u1' }), ['s1u1'])
  t.same(await ids(t, app, { session_id: 's3' }), [])
})

t.test('GET /traces?environment= keeps only traces recorded with a key of that environment', async (t) => {
  const app = await buildTestApp(t)
  const prod = await createProject(app, 'Prod', 'production')
  const dev = await createProject(app, 'Dev', 'development')
  await seed(t, app, prod.key, [{ trace_id: 'p1', prompt: 'p' }])
  await seed(t, app, dev.key, [{ trace_id: 'd1', prompt: 'p' }])
  t.same(await ids(t, app, { environment: 'production' }), ['p1'])
  t.same(await ids(t, app, { environment: 'development' }), ['d1'])
  t.same(await ids(t, app, { environment: 'staging' }), [])
  t.match(errorMessage(t, await list(app, { environment: 'prod' }), 400), /environment/)
})

t.test('GET /traces: since is inclusive, until exclusive, in Z, offset and zone-less forms', async (t) => {
  const { app } = await acmeWith(t, [
    { trace_id: 'h10', prompt: 'p', created_at: '2026-11-21T10:00:00.000Z' },
    { trace_id: 'h11', prompt: 'p', created_at: '2026-11-21T11:00:00.000Z' },
    { trace_id: 'h12', prompt: 'p', created_at: '2026-11-21T12:00:00.000Z' },
  ])
  t.same(await ids(t, app, { since: '2026-11-21T11:00:00.000Z' }), ['h12', 'h11'], 'since is >=')
  t.same(await ids(t, app, { since: '2026-11-21T11:00:00.001Z' }), ['h12'])
  t.same(await ids(t, app, { until: '2026-11-21T11:00:00.000Z' }), ['h10'], 'until is <')
  t.same(await ids(t, app, { until: '2026-11-21T11:00:00.001Z' }), ['h11', 'h10'])
  t.same(await ids(t, app, { since: '2026-11-21T11:00:00Z', until: '2026-11-21T12:00:00Z' }), ['h11'])
  // No zone: taken as UTC.
  t.same(await ids(t, app, { since: '2026-11-21T11:00:00' }), ['h12', 'h11'], 'zone-less since is UTC')
  t.same(await ids(t, app, { until: '2026-11-21T11:00:00' }), ['h10'], 'zone-less until is UTC')
  // 13:00 at +02:00 is 11:00Z; 07:00 at -05:00 is 12:00Z.
  t.same(await ids(t, app, { since: '2026-11-21T13:00:00+02:00' }), ['h12', 'h11'], 'positive offset')
  t.same(await ids(t, app, { until: '2026-11-21T07:00:00-05:00' }), ['h11', 'h10'], 'negative offset')
  for (const [name, value] of [
    ['since', 'yesterday'],
    ['until', '2026-13-01T00:00:00Z'],
  ]) {
    t.match(errorMessage(t, await list(app, { [name!]: value! }), 400), new RegExp(name!), `${name}=${value}`)
  }
})

// ---------------------------------------------------------------- GET /traces/{trace_id}

t.test('GET /traces/{trace_id} answers 200 with the stored trace', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Acme')
  const created = await postTrace(app, key, { trace_id: 'one:trace.1', prompt: 'hello', steps: [{ tool: 'x' }] })
  t.equal(created.statusCode, 201)
  const res = await app.inject('/traces/one:trace.1')
  t.equal(res.statusCode, 200)
  t.same(schemaErrors(TraceSchema, res.json()), [])
  t.same(res.json(), { ...created.json(), scores: [] }, 'what is read back is what the POST answered, with its scores')
})

t.test('GET /traces/{trace_id} of an unknown id is a 404 { statusCode, error, message }', async (t) => {
  const app = await buildTestApp(t)
  const res = await app.inject('/traces/missing-id')
  const message = errorMessage(t, res, 404)
  t.equal(res.json().error, 'Not Found')
  t.match(message, /missing-id/)
})

// ---------------------------------------------------------------- POST /traces

t.test('POST /traces answers 201 with the trace normalized (UTC, ms, aliases, fallbacks)', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const { key, project_id } = await createProject(app, 'Acme Bot', 'staging')
  // What comes back as it was sent.
  const kept = {
    trace_id: 'tr-1',
    name: 'answer',
    model: 'gpt-4o',
    prompt: 'What?',
    response: 'That.',
    prompt_tokens: 12,
    completion_tokens: 30,
    session_id: 's1',
    user_id: 'u1',
    tags: ['a', 'b'],
    metadata: { k: 1 },
  }
  const res = await postTrace(app, key, {
    ...kept,
    created_at: '2026-11-21T15:45:00.5+02:00',
    steps: [
      { name: 'retrieve', type: 'Retrieval', duration_ms: 40, tokens: 0 },
      { type: 'LLM', latency_ms: 60.5, total_tokens: 42, status: 'ok', started_at: 1_795_268_700 },
    ],
  })
  t.equal(res.statusCode, 201)
  t.same(schemaErrors(TraceSchema, res.json()), [])
  const step = {
    tool: null,
    status: 'success',
    cost: null,
    input: null,
    output: null,
    error: null,
    metadata: {},
    parent_index: null,
  }
  t.strictSame(res.json(), {
    ...kept,
    project_id,
    environment: 'staging',
    latency: 100.5,
    token_count: 42,
    tokens_reported: true,
    // gpt-4o's price: $2.50 per million input tokens, $10 per million output tokens.
    cost: 0.00033,
    status: 'success',
    failure_reason: null,
    retry_count: 0,
    experiment_id: null,
    dataset_item_id: null,
    created_at: '2026-11-21T13:45:00.500Z',
    steps: [
      { ...step, index: 0, name: 'retrieve', type: 'retrieval', latency: 40, token_count: 0, started_at: null },
      { ...step, index: 1, name: 'llm', type: 'llm', latency: 60.5, token_count: 42, started_at: NOW_ISO },
    ],
  })
  t.equal(project_id, 'acme-bot')
})

t.test('POST /traces: created_at in every accepted form comes back as UTC with Z and milliseconds', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const { key } = await createProject(app, 'Acme')
  const cases: [unknown, string][] = [
    [undefined, NOW_ISO],
    [null, NOW_ISO],
    ['2026-11-21T13:45:00Z', NOW_ISO],
    ['2026-11-21T13:45:00', NOW_ISO],
    ['2026-11-21T08:45:00-05:00', NOW_ISO],
    ['2026-11-22T00:15:00.250+10:30', '2026-11-21T13:45:00.250Z'],
    [1_795_268_700, NOW_ISO],
    [1_795_268_700_123, '2026-11-21T13:45:00.123Z'],
    ['2026-11-21T13:45:00.123456Z', '2026-11-21T13:45:00.123Z'],
  ]
  for (const [i, [created_at, expected]] of cases.entries()) {
    const body: Record<string, unknown> = { trace_id: `c${i}`, prompt: 'p' }
    if (created_at !== undefined) body.created_at = created_at
    const res = await postTrace(app, key, body)
    t.equal(res.statusCode, 201, `${JSON.stringify(created_at)} is accepted`)
    t.equal(res.json().created_at, expected, `${JSON.stringify(created_at)} → ${expected}`)
  }
})

t.test('POST /traces takes project_id and environment from the key, whatever the body says', async (t) => {
  const app = await buildTestApp(t)
  const mine = await createProject(app, 'Mine', 'production')
  await createProject(app, 'Other', 'development')
  const res = await postTrace(app, mine.key, {
    trace_id: 'owned',
    prompt: 'p',
    project_id: 'other',
    environment: 'development',
  })
  t.equal(res.statusCode, 201)
  t.equal(res.json().project_id, 'mine')
  t.equal(res.json().environment, 'production')
  t.same(await ids(t, app, { project_id: 'other' }), [])
  t.same(await ids(t, app, { project_id: 'mine' }), ['owned'])
})

t.test('POST /traces: latency (ms) and token_count fall back as the contract says', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Acme')
  const cases: [string, Record<string, unknown>, number, number][] = [
    ['nothing given', {}, 0, 0],
    ['explicit values win', { latency: 7, token_count: 5, prompt_tokens: 1, steps: [{ latency: 1, tokens: 2 }] }, 7, 5],
    ['latency_ms alias', { latency_ms: 9 }, 9, 0],
    ['duration_ms alias', { duration_ms: 11.25 }, 11.25, 0],
    ['total_tokens alias', { total_tokens: 8 }, 0, 8],
    ['prompt + completion tokens', { prompt_tokens: 3, completion_tokens: 4 }, 0, 7],
    ['prompt tokens alone', { prompt_tokens: 3 }, 0, 3],
    ['sums of the steps', { steps: [{ latency: 1.5, tokens: 4 }, { duration: 2, token_count: 6 }, {}] }, 3.5, 10],
  ]
  for (const [i, [label, fields, latency, tokens]] of cases.entries()) {
    const res = await postTrace(app, key, { trace_id: `f${i}`, prompt: 'p', ...fields })
    t.equal(res.statusCode, 201, label)
    t.equal(res.json().latency, latency, `${label}: latency ${latency}`)
    t.equal(res.json().token_count, tokens, `${label}: token_count ${tokens}`)
  }
})

t.test('POST /traces never takes the status from the client', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Acme')
  const cases: [string, Record<string, unknown>, string, string | null, number][] = [
    ['client says failed', { status: 'failed' }, 'failed', 'reported as failed by client', 0],
    ['client says error', { status: 'ERROR' }, 'failed', 'reported as failed by client', 0],
    [
      'client says success but gives a reason',
      { status: 'success', failure_reason: 'timeout' },
      'failed',
      'timeout',
      0,
    ],
    ['client says warning, nothing supports it', { status: 'warning' }, 'success', null, 0],
    ['client says success, a step failed last', { status: 'success', steps: [{ error: 'boom' }] }, 'failed', 'boom', 0],
    ['no steps: client retry_count kept', { retry_count: 3 }, 'warning', null, 3],
    ['blank failure_reason is none', { failure_reason: '  ' }, 'success', null, 0],
  ]
  for (const [i, [label, fields, status, reason, retries]] of cases.entries()) {
    const res = await postTrace(app, key, { trace_id: `s${i}`, prompt: 'p', ...fields })
    t.equal(res.statusCode, 201, label)
    t.equal(res.json().status, status, `${label}: status ${status}`)
    t.equal(res.json().failure_reason, reason, `${label}: failure_reason ${reason}`)
    t.equal(res.json().retry_count, retries, `${label}: retry_count ${retries}`)
  }
})

t.test('POST /traces infers retry_count and status from the steps', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Acme')
  const cases: [string, Record<string, unknown>[], Record<string, unknown>, string, string | null, number][] = [
    [
      'search ×3 + answer: 2 retries → warning',
      [{ tool: 'search' }, { tool: 'search' }, { tool_name: 'search' }, { tool: 'answer' }],
      {},
      'warning',
      null,
      2,
    ],
    [
      'a failed attempt recovered → warning',
      [{ tool: 'search', status: 'error', error: 'rate limited' }, { tool: 'search', status: 'done' }, { type: 'llm' }],
      {},
      'warning',
      null,
      1,
    ],
    [
      'a failed step that is not a retry, recovered → warning',
      [{ name: 'lookup', status: 'fail' }, { type: 'llm' }],
      {},
      'warning',
      null,
      0,
    ],
    [
      'last step failed with an error → its error',
      [{ type: 'llm' }, { status: 'errored', error: 'quota' }],
      {},
      'failed',
      'quota',
      0,
    ],
    [
      'last step failed without error → step name',
      [{ type: 'llm' }, { name: 'final', status: 'failure' }],
      {},
      'failed',
      "step 'final' failed",
      0,
    ],
    [
      "a tool's last attempt failed, the trace ended fine → failed",
      [{ tool: 'db', status: 'ok' }, { tool: 'db', error: 'gone' }, { type: 'llm' }],
      {},
      'failed',
      'gone',
      1,
    ],
    [
      'all steps ok, client retry_count ignored',
      [{ tool: 'a' }, { tool: 'b' }],
      { retry_count: 9 },
      'success',
      null,
      0,
    ],
    [
      'a reason given wins over the step error',
      [{ status: 'failed', error: 'step error' }],
      { failure_reason: 'upstream 500' },
      'failed',
      'upstream 500',
      0,
    ],
  ]
  for (const [i, [label, steps, fields, status, reason, retries]] of cases.entries()) {
    const res = await postTrace(app, key, { trace_id: `r${i}`, prompt: 'p', steps, ...fields })
    t.equal(res.statusCode, 201, label)
    t.equal(res.json().status, status, `${label}: status`)
    t.equal(res.json().failure_reason, reason, `${label}: failure_reason`)
    t.equal(res.json().retry_count, retries, `${label}: retry_count`)
  }
})

t.test('POST /traces: invalid input is a 400 naming the field, and nothing is stored', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Acme')
  const cases: [string, Record<string, unknown>, string | RegExp][] = [
    ['negative step latency', { steps: [{ latency: -1 }] }, 'body/steps/0/latency must be >= 0'],
    ['negative step duration_ms (alias)', { steps: [{}, { duration_ms: -5 }] }, 'body/steps/1/latency must be >= 0'],
    ['negative step latency_ms (alias)', { steps: [{ latency_ms: -0.5 }] }, 'body/steps/0/latency must be >= 0'],
    ['negative step tokens (alias)', { steps: [{ tokens: -2 }] }, /^body\/steps\/0\/token_count must be >= 0$/],
    ['negative trace latency', { latency: -1 }, 'body/latency must be >= 0'],
    ['negative trace duration_ms (alias)', { duration_ms: -1 }, 'body/latency must be >= 0'],
    ['fractional token_count', { token_count: 1.5 }, /^body\/token_count must be integer/],
    ['created_at not a time', { created_at: 'yesterday' }, /^body\/created_at (?!must be (number or )?null)/],
    ['created_at 31 April', { created_at: '2026-04-31T00:00:00Z' }, /^body\/created_at (?!must be (number or )?null)/],
    ['created_at beyond year 9999', { created_at: 1e20 }, /^body\/created_at /],
    ['step started_at not a time', { steps: [{ started_at: 'soon' }] }, /^body\/steps\/0\/started_at /],
    ['prompt missing', { prompt: undefined }, /prompt/],
    ['prompt not a string', { prompt: 42 }, /^body\/prompt must be string$/],
    ['21 tags', { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, /^body\/tags .*20/],
    ['a tag of 65 characters', { tags: ['ok', 'x'.repeat(65)] }, /^body\/tags\/1 .*64/],
    ['metadata over 64 KiB', { metadata: { blob: 'x'.repeat(65_529) } }, /^body\/metadata .*65536/],
    ['metadata not an object', { metadata: [1, 2] }, /^body\/metadata /],
    ['prompt over 256 KiB', { prompt: 'x'.repeat(262_145) }, /^body\/prompt .*262144/],
    ['prompt over 256 KiB in UTF-8 bytes', { prompt: 'é'.repeat(131_073) }, /^body\/prompt .*262144/],
    ['response over 256 KiB', { response: 'x'.repeat(262_145) }, /^body\/response .*262144/],
    ['trace_id with a space', { trace_id: 'has space' }, /^body\/trace_id /],
    ['trace_id of 129 characters', { trace_id: 'x'.repeat(129) }, /^body\/trace_id /],
    ['steps not an array', { steps: { a: 1 } }, /^body\/steps /],
    ['1001 steps', { steps: Array.from({ length: 1001 }, () => ({})) }, /^body\/steps .*1000/],
    // Numbers no real call can have: refused, so that no sum of the analytics can overflow or lose precision.
    ['latency 1e308', { latency: 1e308 }, 'body/latency must be <= 604800000'],
    ['latency a week and a microsecond', { latency: 604_800_000.001 }, 'body/latency must be <= 604800000'],
    ['latency_ms 1e308 (alias)', { latency_ms: 1e308 }, 'body/latency must be <= 604800000'],
    ['step latency 1e308', { steps: [{ latency: 1e308 }] }, 'body/steps/0/latency must be <= 604800000'],
    ['step duration 1e308 (alias)', { steps: [{ duration: 1e308 }] }, 'body/steps/0/latency must be <= 604800000'],
    ['token_count 1e308', { token_count: 1e308 }, 'body/token_count must be <= 100000000000'],
    ['token_count 1e20', { token_count: 1e20 }, 'body/token_count must be <= 100000000000'],
    ['total_tokens 2^53+1 (alias)', { total_tokens: 2 ** 53 + 2 }, 'body/token_count must be <= 100000000000'],
    ['prompt_tokens 1e20', { prompt_tokens: 1e20 }, 'body/prompt_tokens must be <= 100000000000'],
    ['completion_tokens 1e308', { completion_tokens: 1e308 }, 'body/completion_tokens must be <= 100000000000'],
    ['step tokens 1e9 (alias)', { steps: [{ tokens: 1e9 }] }, 'body/steps/0/token_count must be <= 100000000'],
    ['retry_count 1e308', { retry_count: 1e308 }, 'body/retry_count must be <= 1000000'],
    ['latency NaN as a string', { latency: 'NaN' }, /^body\/latency must be number/],
    ['latency Infinity as a string', { latency: 'Infinity' }, /^body\/latency must be number/],
    ['latency -1e308', { latency: -1e308 }, 'body/latency must be >= 0'],
    [
      'step latencies summing past a week',
      { steps: [{ latency: 604_800_000 }, { latency: 1 }] },
      'body/latency must be <= 604800000',
    ],
    [
      'prompt and completion tokens summing past the bound',
      { prompt_tokens: 100_000_000_000, completion_tokens: 1 },
      'body/token_count must be <= 100000000000',
    ],
  ]
  for (const [i, [label, fields, expected]] of cases.entries()) {
    const body = { trace_id: `bad-${i}`, prompt: 'p', ...fields }
    const res = await postTrace(app, key, body)
    const message = errorMessage(t, res, 400)
    if (typeof expected === 'string') t.equal(message, expected, label)
    else t.match(message, expected, `${label}: ${message}`)
  }
  t.same((await list(app)).json(), { total: 0, items: [], next_cursor: null }, 'nothing was stored')
})

t.test('POST /traces accepts every number up to its bound, and -0 as 0; latencies keep microseconds', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Acme')
  const res = await postTrace(app, key, {
    prompt: 'p',
    latency: 604_800_000,
    token_count: 100_000_000_000,
    prompt_tokens: 100_000_000_000,
    completion_tokens: 0,
    steps: [{ latency: -0, tokens: 100_000_000 }, { latency: 0.8016660000000044 }],
  })
  t.equal(res.statusCode, 201, res.body)
  const trace = res.json()
  t.equal(trace.latency, 604_800_000)
  t.equal(trace.token_count, 100_000_000_000)
  t.equal(trace.steps[0].latency, 0)
  t.equal(trace.steps[1].latency, 0.802, 'float noise rounded to microseconds')
  const noisy = await postTrace(app, key, { prompt: 'p', latency: 0.8016660000000044 })
  t.equal(noisy.json().latency, 0.802)
  const summary = (await app.inject('/analytics')).json().summary
  t.equal(summary.total_token_usage, 100_000_000_000 + 0)
  t.equal(summary.average_latency, Math.floor((2 * (604_800_000_000 + 802) + 20) / 40) / 100)
})

t.test('POST /traces accepts metadata of exactly 64 KiB and a prompt of exactly 256 KiB', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Acme')
  // {"blob":"…"} is 11 bytes around the value: 65_525 + 11 = 65_536.
  const atLimit = await postTrace(app, key, { prompt: 'p', metadata: { blob: 'x'.repeat(65_525) } })
  t.equal(atLimit.statusCode, 201, 'metadata of 65536 bytes')
  const over = await postTrace(app, key, { prompt: 'p', metadata: { blob: 'x'.repeat(65_526) } })
  t.equal(over.statusCode, 400, 'metadata of 65537 bytes')
  const prompt = await postTrace(app, key, { prompt: 'é'.repeat(131_072) })
  t.equal(prompt.statusCode, 201, 'a prompt of 262144 UTF-8 bytes')
  const empty = await postTrace(app, key, { prompt: '' })
  t.equal(empty.statusCode, 201, 'an empty prompt')
  t.equal(empty.json().prompt, '')
})

t.test('POST /traces without a valid key is a 401 that never echoes the key, and stores nothing', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Acme')
  const unknown = `loupe_sk_${'A'.repeat(32)}`
  const revoked = await createProject(app, 'Revoked')
  t.equal((await app.inject({ method: 'DELETE', url: `/api-keys/${revoked.key_id}` })).statusCode, 200)
  const cases: [string, Record<string, string>, string | null][] = [
    ['no key', {}, null],
    ['unknown bearer key', { authorization: `Bearer ${unknown}` }, unknown],
    ['unknown X-API-Key', { 'x-api-key': unknown }, unknown],
    ['not a bearer scheme', { authorization: `Basic ${key}` }, key],
    ['a revoked key', { authorization: `Bearer ${revoked.key}` }, revoked.key],
    ['garbage', { 'x-api-key': 'secret-garbage-value' }, 'secret-garbage-value'],
  ]
  for (const [label, headers, secret] of cases) {
    const res = await app.inject({ method: 'POST', url: '/traces', headers, payload: { prompt: 'p' } })
    errorMessage(t, res, 401)
    t.equal(res.json().error, 'Unauthorized', label)
    if (secret) t.notOk(res.body.includes(secret), `${label}: the body does not echo the key`)
  }
  // Auth comes before validation: an anonymous caller learns nothing about the body.
  const anonymousInvalid = await app.inject({ method: 'POST', url: '/traces', payload: { prompt: 7 } })
  t.equal(anonymousInvalid.statusCode, 401, 'an invalid body without a key is still 401')
  t.same((await list(app)).json(), { total: 0, items: [], next_cursor: null })
})

t.test('POST /traces accepts the key in X-API-Key as well as Authorization: Bearer', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const { key } = await createProject(app, 'Acme')
  const ways: [string, Record<string, string>, string][] = [
    ['via-header', { 'x-api-key': key }, 'X-API-Key'],
    ['via-bearer', { authorization: `bearer ${key}` }, 'the scheme is case-insensitive'],
  ]
  for (const [trace_id, headers, why] of ways) {
    const res = await app.inject({ method: 'POST', url: '/traces', headers, payload: { trace_id, prompt: 'p' } })
    t.equal(res.statusCode, 201, why)
    t.equal(res.json().project_id, 'acme', why)
  }
  t.same(await ids(t, app), ['via-header', 'via-bearer'], 'same created_at: trace_id desc')
})

t.test('POST /traces is idempotent on trace_id: 200 with the stored trace unchanged, no second event', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Acme')
  const events = announcedIds(app)
  const first = await postTrace(app, key, {
    trace_id: 'dup',
    prompt: 'first',
    created_at: '2026-11-21T10:00:00Z',
    steps: [{ name: 'call', error: 'boom' }],
  })
  t.equal(first.statusCode, 201)
  t.equal(first.json().status, 'failed')
  const again = await postTrace(app, key, { trace_id: 'dup', prompt: 'second', latency: 5, tags: ['new'] })
  t.equal(again.statusCode, 200)
  t.strictSame(again.json(), first.json(), 'the answer is the trace as first stored')
  t.strictSame(
    (await app.inject('/traces/dup')).json(),
    { ...first.json(), scores: [] },
    'the stored trace did not change',
  )
  t.equal((await list(app)).json().total, 1)
  t.same(events, ['dup'], 'one event, for the first store only')
})

t.test('POST /traces with a trace_id another project holds is a 409 and changes nothing', async (t) => {
  const app = await buildTestApp(t)
  const acme = await createProject(app, 'Acme')
  const globex = await createProject(app, 'Globex')
  const first = await postTrace(app, acme.key, { trace_id: 'shared', prompt: 'acme' })
  t.equal(first.statusCode, 201)
  const res = await postTrace(app, globex.key, { trace_id: 'shared', prompt: 'globex' })
  t.match(errorMessage(t, res, 409), /shared/)
  t.equal(res.json().error, 'Conflict')
  t.strictSame((await app.inject('/traces/shared')).json(), { ...first.json(), scores: [] })
  t.same(await ids(t, app, { project_id: 'globex' }), [])
})

t.test('POST /traces with a body over BODY_LIMIT is a 413', async (t) => {
  const app = await buildTestApp(t, { config: { bodyLimit: 2048 } })
  const { key } = await createProject(app, 'Acme')
  const small = await postTrace(app, key, { prompt: 'x'.repeat(1000) })
  t.equal(small.statusCode, 201, 'under the limit is fine')
  const res = await postTrace(app, key, { trace_id: 'big', prompt: 'x'.repeat(3000) })
  errorMessage(t, res, 413)
  t.equal(res.json().error, 'Payload Too Large')
  t.equal((await app.inject('/traces/big')).statusCode, 404)
})

t.test('POST /traces with a non-JSON content type is a 415', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Acme')
  for (const contentType of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
    const res = await app.inject({
      method: 'POST',
      url: '/traces',
      headers: { ...auth(key), 'content-type': contentType },
      payload: 'prompt=hello',
    })
    errorMessage(t, res, 415)
    t.equal(res.json().error, 'Unsupported Media Type', contentType)
  }
  t.equal((await list(app)).json().total, 0)
})

t.test('POST /traces with malformed JSON or a non-object body is a 400', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Acme')
  for (const payload of ['{"prompt":', '[{"prompt":"p"}]', 'null', '"prompt"']) {
    const res = await app.inject({
      method: 'POST',
      url: '/traces',
      headers: { ...auth(key), 'content-type': 'application/json' },
      payload,
    })
    t.match(errorMessage(t, res, 400), /body|JSON/i, payload)
  }
  t.equal((await list(app)).json().total, 0)
})

t.test('POST /traces past the per-key rate limit is a 429 with Retry-After', async (t) => {
  const app = await buildTestApp(t, { config: { ingestRateLimit: 2 } })
  const { key } = await createProject(app, 'Acme')
  t.equal((await postTrace(app, key, { prompt: 'p' })).statusCode, 201)
  t.equal((await postTrace(app, key, { prompt: 'p' })).statusCode, 201)
  const res = await postTrace(app, key, { prompt: 'p' })
  errorMessage(t, res, 429)
  t.ok(Number(res.headers['retry-after']) > 0, 'Retry-After is set')
  t.notOk(res.body.includes(key))
})

// ---------------------------------------------------------------- POST /traces/batch

t.test(
  'POST /traces/batch stores the valid traces and lists the invalid ones by index, naming the field',
  async (t) => {
    const app = await buildTestApp(t)
    const { key } = await createProject(app, 'Acme')
    const res = await postBatch(app, key, [
      { trace_id: 'b0', prompt: 'p', created_at: '2026-11-21T01:00:00Z' },
      { trace_id: 'b1', steps: [] },
      { trace_id: 'b2', prompt: 'p', failure_reason: 'x', created_at: '2026-11-21T02:00:00Z' },
      { trace_id: 'b3', prompt: 'p', steps: [{}, {}, { duration_ms: -3 }] },
      'not a trace',
      { trace_id: 'b5', prompt: 'p', steps: [{ tool: 's' }, { tool: 's' }], created_at: '2026-11-21T03:00:00Z' },
      { trace_id: 'b6', prompt: 'p', created_at: 'whenever' },
      { trace_id: 'b7', prompt: 'p', tags: Array.from({ length: 21 }, () => 't') },
    ])
    t.equal(res.statusCode, 200)
    const body = res.json()
    t.same(schemaErrors(BatchTracesResponse, body), [])
    t.equal(body.accepted, 3)
    t.same(body.items, [
      { trace_id: 'b0', status: 'success' },
      { trace_id: 'b2', status: 'failed' },
      { trace_id: 'b5', status: 'warning' },
    ])
    t.same(
      body.rejected.map((r: { index: number }) => r.index),
      [1, 3, 4, 6, 7],
    )
    const message = (index: number) => body.rejected.find((r: { index: number }) => r.index === index).message
    t.match(message(1), /^body\/traces\/1 .*prompt/)
    t.equal(message(3), 'body/traces/3/steps/2/latency must be >= 0')
    t.match(message(4), /^body\/traces\/4 must be object/)
    t.match(message(6), /^body\/traces\/6\/created_at (?!must be (number or )?null)/)
    t.match(message(7), /^body\/traces\/7\/tags .*20/)
    t.same(await ids(t, app), ['b5', 'b2', 'b0'], 'only the valid ones were stored')
  },
)

t.test('POST /traces/batch takes 1 to 1000 traces: 0 and 1001 are a 400 naming traces', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Acme')
  t.match(errorMessage(t, await postBatch(app, key, []), 400), /^body\/traces /)
  const tooMany = Array.from({ length: 1001 }, () => ({ prompt: '' }))
  t.match(errorMessage(t, await postBatch(app, key, tooMany), 400), /^body\/traces .*1000/)
  t.equal((await list(app)).json().total, 0, 'a refused batch stores nothing')
  const full = await postBatch(
    app,
    key,
    Array.from({ length: 1000 }, (_, i) => ({ trace_id: `n${i}`, prompt: '' })),
  )
  t.equal(full.statusCode, 200)
  t.equal(full.json().accepted, 1000)
  t.equal(full.json().items.length, 1000)
  t.equal(full.json().items[999].trace_id, 'n999', 'items keep the request order')
  t.equal((await list(app)).json().total, 1000)
  const one = await postBatch(app, key, [{ prompt: 'single' }])
  t.equal(one.statusCode, 200)
  t.equal(one.json().accepted, 1)
})

t.test('POST /traces/batch needs a key and a { traces: [...] } body', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Acme')
  const anonymous = await app.inject({ method: 'POST', url: '/traces/batch', payload: { traces: [{ prompt: 'p' }] } })
  errorMessage(t, anonymous, 401)
  const bad = await app.inject({ method: 'POST', url: '/traces/batch', headers: auth(key), payload: { traces: 'x' } })
  t.match(errorMessage(t, bad, 400), /^body\/traces /)
  const missing = await app.inject({ method: 'POST', url: '/traces/batch', headers: auth(key), payload: {} })
  t.match(errorMessage(t, missing, 400), /traces/)
  t.equal((await list(app)).json().total, 0)
})

t.test('POST /traces/batch accepts duplicates idempotently and announces each new trace once', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Acme')
  const events = announcedIds(app)
  const stored = await postTrace(app, key, { trace_id: 'old', prompt: 'first', failure_reason: 'boom' })
  t.equal(stored.statusCode, 201)
  const res = await postBatch(app, key, [
    { trace_id: 'old', prompt: 'changed' },
    { trace_id: 'new', prompt: 'p' },
    { trace_id: 'new', prompt: 'changed', failure_reason: 'late' },
  ])
  t.equal(res.statusCode, 200)
  t.same(res.json(), {
    accepted: 3,
    rejected: [],
    items: [
      { trace_id: 'old', status: 'failed' },
      { trace_id: 'new', status: 'success' },
      { trace_id: 'new', status: 'success' },
    ],
  })
  t.strictSame(
    (await app.inject('/traces/old')).json(),
    { ...stored.json(), scores: [] },
    'the stored trace did not change',
  )
  t.equal((await app.inject('/traces/new')).json().prompt, 'p', 'the first of the duplicates is kept')
  t.same(events, ['old', 'new'], 'one event per newly stored trace')
})

t.test('POST /traces/batch rejects a trace_id held by another project and stores the rest', async (t) => {
  const app = await buildTestApp(t)
  const acme = await createProject(app, 'Acme')
  const globex = await createProject(app, 'Globex')
  t.equal((await postTrace(app, acme.key, { trace_id: 'taken', prompt: 'acme' })).statusCode, 201)
  const res = await postBatch(app, globex.key, [
    { trace_id: 'g-ok', prompt: 'p' },
    { trace_id: 'taken', prompt: 'globex' },
  ])
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.accepted, 1)
  t.same(body.items, [{ trace_id: 'g-ok', status: 'success' }])
  t.equal(body.rejected.length, 1)
  t.equal(body.rejected[0].index, 1)
  t.match(body.rejected[0].message, /^body\/traces\/1\/trace_id .*another project/)
  t.equal((await app.inject('/traces/taken')).json().project_id, 'acme')
  t.same(await ids(t, app, { project_id: 'globex' }), ['g-ok'])
})

t.test('any string round-trips unchanged, U+0000 included, and filters match it exactly', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Odd \u0000 characters \uFDD0')
  const odd = 'a\u0000b \uFDD0 \uFDD00 \\u0000 é 😀'
  const sent = {
    trace_id: 'odd-1',
    prompt: odd,
    response: odd,
    model: odd,
    session_id: odd,
    tags: [odd],
    metadata: { [odd]: odd, nested: [odd, { k: odd }] },
    steps: [{ name: odd, tool: odd, input: { q: odd }, output: odd, error: odd, metadata: { m: odd } }],
  }
  const res = await postTrace(app, key, sent)
  t.equal(res.statusCode, 201)
  const stored = res.json()
  t.strictSame(schemaErrors(TraceSchema, stored), [])
  t.strictSame((await app.inject('/traces/odd-1')).json(), { ...stored, scores: [] }, 'read back as stored')
  for (const field of ['prompt', 'response', 'model', 'session_id'] as const) t.equal(stored[field], odd, field)
  t.strictSame(stored.tags, [odd])
  t.strictSame(stored.metadata, sent.metadata)
  t.strictSame(stored.steps[0].input, { q: odd })
  t.equal(stored.steps[0].failure_reason ?? stored.failure_reason, odd, 'the failing step error is the reason')
  const byModel = (await app.inject({ url: '/traces', query: { model: odd } })).json()
  t.strictSame(
    byModel.items.map((x: { trace_id: string }) => x.trace_id),
    ['odd-1'],
    'a filter on the odd value matches',
  )
  t.equal(byModel.total, 1)
  t.equal((await app.inject({ url: '/traces', query: { model: 'a' } })).json().total, 0)
  const analytics = (await app.inject('/analytics')).json()
  t.strictSame(analytics.model_breakdown, [{ key: odd, count: 1 }], 'the model key in breakdowns')
  const projects = (await app.inject('/projects')).json()
  t.equal(projects.items[0].name, 'Odd \u0000 characters \uFDD0', 'project names too')
})

// ---------------------------------------------------------------- the light list and nested steps

t.test('GET /traces?fields=summary: the same page without bodies, each with its step count', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Acme')
  const big = 'x'.repeat(2000)
  const traces = Array.from({ length: 12 }, (_, i) => ({
    trace_id: `t${String(i).padStart(2, '0')}`,
    prompt: big,
    response: big,
    model: i % 2 ? 'gpt-4o' : 'claude',
    session_id: 's1',
    tags: [`n${i}`],
    metadata: { big },
    created_at: `2026-11-21T10:${String(i).padStart(2, '0')}:00Z`,
    steps: Array.from({ length: i }, (_, j) => ({ name: `s${j}`, input: 'short' })),
  }))
  await seed(t, app, key, traces)
  const queries: Record<string, string>[] = [
    {},
    { model: 'gpt-4o' },
    { limit: '3', offset: '2' },
    { min_tokens: '0', session_id: 's1' },
  ]
  for (const query of queries) {
    const full = await list(app, query)
    const light = await list(app, { ...query, fields: 'summary' })
    t.equal(light.statusCode, 200)
    t.same(schemaErrors(ListTraceSummariesResponse, light.json()), [], 'conforms to ListTraceSummariesResponse')
    const expected = full.json().items.map((trace: Record<string, unknown> & { steps: unknown[] }) => {
      const summary: Record<string, unknown> = { ...trace, step_count: trace.steps.length, scores: {} }
      for (const field of TRACE_BODY_FIELDS) delete summary[field]
      return summary
    })
    t.strictSame(
      light.json(),
      { total: full.json().total, items: expected, next_cursor: full.json().next_cursor },
      `same page ${JSON.stringify(query)}`,
    )
    t.ok(light.body.length * 10 < full.body.length, `${light.body.length} bytes instead of ${full.body.length}`)
  }
  t.strictSame(
    (await list(app, { fields: 'full', limit: '1' })).json(),
    (await list(app, { limit: '1' })).json(),
    'fields=full is the default',
  )
  const bad = await list(app, { fields: 'everything' })
  t.match(errorMessage(t, bad, 400), /fields/, 'an unknown fields value is a 400 naming the parameter')
})

t.test('steps carry parent_index: kept from JSON clients, null at the top level', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Acme')
  const res = await postTrace(app, key, {
    trace_id: 'tree',
    prompt: 'p',
    steps: [
      { name: 'agent' },
      { name: 'plan', parent_index: 0 },
      { name: 'search', tool: 'search', parent_index: 0 },
      { name: 'rank', parent_index: 2 },
      { name: 'answer', parent_index: null },
    ],
  })
  t.equal(res.statusCode, 201)
  t.same(schemaErrors(TraceSchema, res.json()), [])
  const read = (await app.inject('/traces/tree')).json()
  t.same(
    read.steps.map((s: { parent_index: number | null }) => s.parent_index),
    [null, 0, 0, 2, null],
  )
})

t.test(
  'a parent_index that names no other step, or makes a cycle, is a 400 naming it; nothing is stored',
  async (t) => {
    const app = await buildTestApp(t)
    const { key } = await createProject(app, 'Acme')
    const cases: [unknown[], RegExp][] = [
      [
        [{ name: 'a' }, { name: 'b', parent_index: 2 }],
        /^body\/steps\/1\/parent_index must be the index of another step/,
      ],
      [[{ name: 'a', parent_index: 0 }], /^body\/steps\/0\/parent_index must be the index of another step/],
      [
        [
          { name: 'a', parent_index: 1 },
          { name: 'b', parent_index: 0 },
        ],
        /^body\/steps\/1\/parent_index must not make a cycle/,
      ],
      [[{ name: 'a', parent_index: -1 }], /^body\/steps\/0\/parent_index/],
      [[{ name: 'a', parent_index: 'x' }], /^body\/steps\/0\/parent_index/],
    ]
    for (const [steps, message] of cases) {
      t.match(errorMessage(t, await postTrace(app, key, { prompt: 'p', steps }), 400), message)
    }
    const batch = await postBatch(app, key, [
      { prompt: 'p', steps: [{ name: 'a', parent_index: 3 }] },
      { prompt: 'ok' },
    ])
    t.equal(batch.json().accepted, 1)
    t.match(batch.json().rejected, [{ index: 0, message: /^body\/traces\/0\/steps\/0\/parent_index/ }])
    t.equal((await list(app)).json().total, 1, 'only the valid trace was stored')
  },
)
