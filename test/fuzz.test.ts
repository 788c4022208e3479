// Property-based fuzzing (fast-check): thousands of generated and mutated bodies, query strings, paths and headers
// against every route, and thousands of frames at /ws. Whatever a client sends: no 5xx, no crash, no hang; every
// rejection is a 4xx of the shape { statusCode, error, message }; and a rejected request stores nothing.
import fc from 'fast-check'
import type { InjectOptions } from 'fastify'
import t, { type Test } from 'tap'
import WebSocket from 'ws'
import type { LoupeApp } from '../src/app.js'
import type { Store as LoupeStore } from '../src/store/types.js'
import { buildTestApp, countRows, createProject } from './helper.js'
import { startServer, within } from './ws-peer.js'

/** A fixed seed keeps a failure reproducible; FUZZ_SEED=… explores further. */
const SEED = Number(process.env.FUZZ_SEED ?? 20261121)
const HANG_MS = 5000
type Reply = Awaited<ReturnType<LoupeApp['inject']>>

// ------------------------------------------------------------------------------------------------------------
// Generators

/** Strings that name members every JavaScript object inherits: a lookup keyed by data must never reach them. */
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype']
/** Numbers at and past every bound, and the non-numbers JSON text may carry as strings. */
const EXTREME_NUMBERS = [1e308, -1e308, 2 ** 53 + 1, -0, 1e20, 604_800_000, 604_800_000.001, 1e11, 1e11 + 1, 1e8 + 1]
const NUMBER_STRINGS = ['NaN', 'Infinity', '-Infinity', '1e308', '-0', '9007199254740993']
/** Text that is not valid Unicode: lone UTF-16 surrogates (a high, a low inside text, a pair in the wrong order). */
const LONE_SURROGATES = ['\ud800', 'a\udc00b', '\udfff\ud800']
/** The same as a careless encoder writes them in a URL: each surrogate as the three bytes of no UTF-8 character. */
const LONE_SURROGATE_ESCAPES = ['%ED%A0%80', 'a%ED%B0%80b', '%ED%BF%BF%ED%A0%80']
/** A string percent-encoded for a URL, a lone surrogate as those three bytes (encodeURIComponent would throw). */
const escapeForUrl = (text: string) =>
  [...text]
    .map((ch) => {
      if (ch.isWellFormed()) return encodeURIComponent(ch)
      const c = ch.charCodeAt(0)
      return [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('')
    })
    .join('')
const surrogate = fc.constantFrom(...LONE_SURROGATES)
/** A string that is often text and now and then not valid Unicode. */
const someText = (maxLength: number) => fc.oneof({ weight: 30, arbitrary: fc.string({ maxLength }) }, surrogate)

/** Values that are wrong for some field: odd numbers, odd strings, odd shapes. */
const weird = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    -1,
    0.5,
    '',
    ' ',
    'null',
    '2026-13-45T99:00:00Z',
    '💥',
    '\u0000',
    ...LONE_SURROGATES,
    ...EXTREME_NUMBERS,
    ...NUMBER_STRINGS,
  ),
  fc.constantFrom(...PROTOTYPE_NAMES),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constant('x'.repeat(300)),
)
/** An object whose keys may be prototype names, as JSON.parse makes them (own properties, `__proto__` included). */
const prototypeKeyed = fc
  .array(fc.tuple(fc.constantFrom(...PROTOTYPE_NAMES, ...LONE_SURROGATES), fc.jsonValue({ maxDepth: 1 })), {
    maxLength: 3,
  })
  .map((pairs) => JSON.parse(JSON.stringify(Object.fromEntries(pairs))) as Record<string, unknown>)
const maybe = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: weird })
const nullable = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null })

const timestamp = fc.oneof(
  fc
    .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.integer({ min: 0, max: 4_102_444_800_000 }),
  fc.constantFrom('2026-11-21T13:45:00', '2026-11-21T13:45:00+05:30', '1795268700'),
)
const step = fc.record(
  {
    name: fc.oneof(someText(20), fc.constantFrom(...PROTOTYPE_NAMES)),
    type: fc.constantFrom('llm', 'tool', 'retrieval', 'function', 'other', 'LLM', 'weird', ...PROTOTYPE_NAMES),
    tool: nullable(fc.constantFrom('search', 'answer', 'lookup', ...PROTOTYPE_NAMES)),
    tool_name: fc.constantFrom('search', 'answer'),
    status: fc.constantFrom('success', 'failed', 'error', 'ok', 'done', 'fail', 'unknown', ...PROTOTYPE_NAMES),
    latency: fc.double({ min: 0, max: 1e6, noNaN: true }),
    duration_ms: fc.integer({ min: 0, max: 1e6 }),
    tokens: fc.integer({ min: 0, max: 1e6 }),
    token_count: nullable(fc.integer({ min: 0, max: 1e6 })),
    input: fc.jsonValue({ maxDepth: 2 }),
    output: fc.jsonValue({ maxDepth: 2 }),
    error: nullable(someText(30)),
    started_at: nullable(timestamp),
    metadata: fc.oneof(fc.object({ maxDepth: 1 }), prototypeKeyed),
  },
  { requiredKeys: [] },
)
/** A trace body: each field valid or absent (prompt mostly present). */
const validTrace = fc.record(
  {
    trace_id: fc.stringMatching(/^[A-Za-z0-9._:-]{1,24}$/),
    prompt: someText(200),
    response: nullable(someText(200)),
    name: nullable(someText(20)),
    model: nullable(fc.constantFrom('gpt-4o', 'claude', 'llama', ...PROTOTYPE_NAMES)),
    latency: fc.double({ min: 0, max: 1e7, noNaN: true }),
    latency_ms: fc.integer({ min: 0, max: 1e6 }),
    token_count: fc.integer({ min: 0, max: 1e6 }),
    prompt_tokens: nullable(fc.integer({ min: 0, max: 1e5 })),
    completion_tokens: nullable(fc.integer({ min: 0, max: 1e5 })),
    status: fc.constantFrom('success', 'failed', 'error', 'warning', 'nope', ...PROTOTYPE_NAMES),
    failure_reason: nullable(someText(30)),
    retry_count: fc.integer({ min: 0, max: 10 }),
    session_id: nullable(fc.oneof(someText(10), fc.constantFrom(...PROTOTYPE_NAMES))),
    user_id: nullable(fc.oneof(someText(10), fc.constantFrom(...PROTOTYPE_NAMES))),
    tags: fc.array(fc.oneof(someText(64), fc.constantFrom(...PROTOTYPE_NAMES)), { maxLength: 20 }),
    metadata: fc.oneof(fc.object({ maxDepth: 2 }), prototypeKeyed),
    created_at: timestamp,
    steps: fc.array(step, { maxLength: 6 }),
    project_id: fc.string({ maxLength: 10 }),
    environment: fc.string({ maxLength: 10 }),
  },
  { requiredKeys: ['prompt'] },
)
const TRACE_FIELDS = [
  'trace_id',
  'prompt',
  'response',
  'latency',
  'latency_ms',
  'duration_ms',
  'token_count',
  'total_tokens',
  'prompt_tokens',
  'completion_tokens',
  'status',
  'retry_count',
  'tags',
  'metadata',
  'created_at',
  'steps',
  'session_id',
]
/**
 * Traces as clients get them wrong: valid ones, valid ones with one field replaced by a wrong value or removed, and
 * ones whose every field may be wrong, with unknown fields mixed in.
 */
const trace = fc.oneof(
  validTrace,
  fc
    .tuple(validTrace, fc.constantFrom(...TRACE_FIELDS), fc.option(weird, { nil: undefined }))
    .map(([body, field, value]) => {
      const copy: Record<string, unknown> = { ...body }
      if (value === undefined) delete copy[field]
      else copy[field] = value
      return copy
    }),
  fc
    .tuple(validTrace, fc.dictionary(fc.string({ maxLength: 12 }), weird, { maxKeys: 3 }))
    .map(([body, extra]) => ({ ...extra, ...body })),
)

/** A JSON text mutated the ways a broken client or proxy mangles one. */
const mutatedText = (text: string) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(text) },
    fc.nat(text.length).map((n) => text.slice(0, n)),
    fc
      .tuple(fc.nat(text.length), fc.string({ unit: 'binary', maxLength: 4 }))
      .map(([n, s]) => text.slice(0, n) + s + text.slice(n)),
    fc.constantFrom('', 'null', '[]', '"text"', '42', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', '{'),
  )

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  undefined,
)

/** Query strings: known parameters with good and bad values, unknown ones, repeats, broken percent-encoding. */
const QUERY_KEYS = [
  'status',
  'project_id',
  'model',
  'environment',
  'session_id',
  'user_id',
  'min_latency',
  'max_latency',
  'min_tokens',
  'max_tokens',
  'since',
  'until',
  'limit',
  'offset',
  'name',
  'description',
  'token',
]
const queryValue = fc.oneof(
  fc.constantFrom('success', 'failed', 'warning', 'production', '0', '1', '50', '1000', '1001', '-1', '1.5', 'NaN', ''),
  fc.constantFrom(...NUMBER_STRINGS, ...EXTREME_NUMBERS.map(String), ...PROTOTYPE_NAMES),
  fc.integer().map(String),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
  fc.constantFrom('%', '%zz', '%E0%A4%A', '+', '&&', '=', '[]', '2026-11-21T13:45:00Z', '1795268700'),
  fc.constantFrom(...LONE_SURROGATE_ESCAPES, '%E9', 'caf%E9', '%F0%9F%92'),
)
const query = fc
  .array(
    fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string({ maxLength: 8 }).map(encodeURIComponent)), queryValue),
    {
      maxLength: 6,
    },
  )
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`))

const pathSegment = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._:-]{1,20}$/),
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  fc.constantFrom('..', '%2e%2e', '%00', 'x'.repeat(500), '%', '%ff', ...PROTOTYPE_NAMES, ...LONE_SURROGATE_ESCAPES),
)

// ------------------------------------------------------------------------------------------------------------
// Properties

const count = (store: LoupeStore, table: string) => countRows(store, table)

/** The response is not a 5xx, and a 4xx is a JSON error that says what is wrong. */
function wellFormed(res: Reply): string | null {
  if (res.statusCode >= 500) return `${res.statusCode}: ${res.body.slice(0, 300)}`
  if (res.statusCode >= 400) {
    let body: { statusCode?: unknown; error?: unknown; message?: unknown }
    try {
      body = res.json()
    } catch {
      return `${res.statusCode} is not JSON: ${res.body.slice(0, 200)}`
    }
    if (body.statusCode !== res.statusCode || typeof body.error !== 'string' || typeof body.message !== 'string') {
      return `${res.statusCode} has not the error shape: ${res.body.slice(0, 200)}`
    }
    if (body.message.length === 0) return `${res.statusCode} with an empty message`
  }
  return null
}

async function send(app: LoupeApp, options: InjectOptions): Promise<Reply> {
  return within(HANG_MS, `an answer to ${JSON.stringify(options).slice(0, 200)}`, app.inject(options) as Promise<Reply>)
}

/** The summary's counts and sums equal a recount over every stored trace: nothing overflowed or lost precision. */
async function sumsEqualRecount(t: Test, store: LoupeStore) {
  const traces = []
  for (let offset = 0; ; offset += 1000) {
    const page = await store.traces.list({}, { limit: 1000, offset })
    traces.push(...page.items)
    if (page.items.length < 1000) break
  }
  const { summary } = await store.traces.analytics({ now: Date.now(), slowThresholdMs: 5000 })
  const micros = traces.reduce((sum, tr) => sum + BigInt(Math.round(tr.latency * 1000)), 0n)
  const n = BigInt(traces.length)
  t.equal(summary.total_traces, traces.length, 'rollups count exactly the stored traces')
  t.equal(
    summary.total_token_usage,
    traces.reduce((sum, tr) => sum + tr.token_count, 0),
    'total tokens: a recount',
  )
  t.equal(
    summary.average_latency,
    n === 0n ? 0 : Number((2n * micros + 10n * n) / (20n * n)) / 100,
    'average latency: a recount',
  )
  t.ok(
    traces.every((tr) => Number.isFinite(tr.latency) && tr.latency <= 604_800_000),
    'every latency within bounds',
  )
}

async function fuzzApp(t: Test) {
  const app = await buildTestApp(t, { config: { rateLimit: 0, ingestRateLimit: 0, bodyLimit: 64 * 1024 } })
  const { key } = await createProject(app, 'Fuzz')
  return { app, key, store: app.store }
}

t.test('ingest: POST /traces with generated and mutated bodies', { timeout: 120_000 }, async (t) => {
  const { app, key, store } = await fuzzApp(t)
  let stored = 0
  let rejected = 0
  await fc.assert(
    fc.asyncProperty(
      trace.chain((body) => fc.tuple(mutatedText(JSON.stringify(body)), contentType)),
      async ([payload, type]) => {
        const before = await count(store, 'traces')
        const headers: Record<string, string> = { authorization: `Bearer ${key}` }
        if (type) headers['content-type'] = type
        const res = await send(app, { method: 'POST', url: '/traces', headers, payload })
        const problem = wellFormed(res)
        if (problem) throw new Error(problem)
        const after = await count(store, 'traces')
        if (res.statusCode >= 400) {
          rejected++
          if (after !== before) throw new Error(`a ${res.statusCode} stored ${after - before} trace(s)`)
        } else {
          if (res.statusCode === 201) stored++
          if (after - before !== (res.statusCode === 201 ? 1 : 0))
            throw new Error(`${res.statusCode} but ${after - before} stored`)
          // JSON writes a lone surrogate, and only that, as an escape \uD800–\uDFFF.
          if (/\\u[dD][89a-fA-F]/.test(res.body)) throw new Error(`stored a lone surrogate: ${res.body.slice(0, 200)}`)
        }
      },
    ),
    { numRuns: 1500, seed: SEED },
  )
  t.ok(stored > 50 && rejected > 50, `both roads taken: ${stored} stored, ${rejected} rejected`)
  await sumsEqualRecount(t, store)
})

t.test('ingest: POST /traces/batch with generated envelopes', { timeout: 120_000 }, async (t) => {
  const { app, key, store } = await fuzzApp(t)
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        { weight: 4, arbitrary: fc.array(trace, { minLength: 0, maxLength: 12 }).map((traces) => ({ traces })) },
        { weight: 1, arbitrary: weird },
      ),
      async (body) => {
        const before = await count(store, 'traces')
        const res = await send(app, {
          method: 'POST',
          url: '/traces/batch',
          headers: { 'x-api-key': key },
          payload: JSON.stringify(body),
        })
        const problem = wellFormed(res)
        if (problem) throw new Error(problem)
        const after = await count(store, 'traces')
        if (res.statusCode >= 400 && after !== before) throw new Error(`a ${res.statusCode} stored ${after - before}`)
        if (res.statusCode === 200) {
          const { accepted, rejected, items } = res.json()
          if (accepted !== items.length) throw new Error('accepted ≠ items')
          if (accepted + rejected.length !== (body as { traces: unknown[] }).traces.length)
            throw new Error('a trace unaccounted for')
          if (after - before > accepted) throw new Error('more stored than accepted')
        }
      },
    ),
    { numRuns: 300, seed: SEED },
  )
  t.pass('no 5xx, every rejection a 4xx, nothing stored by a rejected request')
  await sumsEqualRecount(t, store)
})

t.test('reads: every GET route with generated query strings and paths', { timeout: 120_000 }, async (t) => {
  const { app, key } = await fuzzApp(t)
  for (let i = 0; i < 20; i++)
    await app.inject({
      method: 'POST',
      url: '/traces',
      headers: { 'x-api-key': key },
      payload: { prompt: `p${i}`, model: 'm', latency: i * 500 },
    })
  const routes = ['/traces', '/analytics', '/failures', '/projects', '/api-keys', '/docs/json', '/', '/health']
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.tuple(fc.constantFrom(...routes), query).map(([path, q]) => path + q),
        fc.tuple(pathSegment, query).map(([id, q]) => `/traces/${id}${q}`),
        fc.tuple(pathSegment, pathSegment).map(([a, b]) => `/${a}/${b}`),
      ),
      async (url) => {
        const res = await send(app, { method: 'GET', url })
        const problem = wellFormed(res)
        if (problem) throw new Error(`GET ${url} → ${problem}`)
      },
    ),
    { numRuns: 1500, seed: SEED },
  )
  t.pass('no 5xx on any read')
})

t.test(
  'management: POST /projects, POST and DELETE /api-keys with generated input',
  { timeout: 120_000 },
  async (t) => {
    const { app, store } = await fuzzApp(t)
    const input = fc.record(
      {
        name: maybe(fc.string({ maxLength: 110 })),
        environment: maybe(fc.constantFrom('development', 'staging', 'production', 'prod')),
        description: maybe(fc.string({ maxLength: 1100 })),
        project_id: maybe(fc.constantFrom('fuzz', 'nope', '')),
      },
      { requiredKeys: [] },
    )
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/projects', '/api-keys'),
        fc.boolean(),
        input.chain((i) => mutatedText(JSON.stringify(i)).map((text) => [i, text] as const)),
        contentType,
        async (path, viaQuery, [fields, text], type) => {
          const before = (await count(store, 'projects')) + (await count(store, 'api_keys'))
          const options = viaQuery
            ? {
                method: 'POST' as const,
                url: `${path}?${Object.entries(fields)
                  .map(([k, v]) => `${k}=${escapeForUrl(String(v))}`)
                  .join('&')}`,
              }
            : { method: 'POST' as const, url: path, payload: text, headers: type ? { 'content-type': type } : {} }
          const res = await send(app, options)
          const problem = wellFormed(res)
          if (problem) throw new Error(`POST ${path} → ${problem}`)
          const after = (await count(store, 'projects')) + (await count(store, 'api_keys'))
          if (res.statusCode >= 400 && after !== before) throw new Error(`a ${res.statusCode} created something`)
        },
      ),
      { numRuns: 600, seed: SEED },
    )
    await fc.assert(
      fc.asyncProperty(pathSegment, async (id) => {
        const res = await send(app, { method: 'DELETE', url: `/api-keys/${id}` })
        const problem = wellFormed(res)
        if (problem) throw new Error(`DELETE /api-keys/${id} → ${problem}`)
      }),
      { numRuns: 200, seed: SEED },
    )
    t.pass('no 5xx, nothing created by a rejected request')
  },
)

t.test(
  'credentials: generated Authorization and X-API-Key headers in protected mode',
  { timeout: 120_000 },
  async (t) => {
    const app = await buildTestApp(t, {
      config: { rateLimit: 0, ingestRateLimit: 0, adminToken: 'fuzz-admin-token-0123456789' },
    })
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/traces', '/analytics', '/projects', '/api-keys', '/traces/x'),
        fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH'),
        fc.oneof(
          fc.string({ maxLength: 60 }).map((s) => ({ authorization: `Bearer ${s}` })),
          fc.string({ maxLength: 60 }).map((s) => ({ authorization: s })),
          fc.string({ maxLength: 60 }).map((s) => ({ 'x-api-key': s })),
          fc.stringMatching(/^loupe_sk_[A-Za-z0-9]{32}$/).map((s) => ({ authorization: `Bearer ${s}` })),
        ),
        async (url, method, rawHeaders) => {
          // Header values a client cannot send (control characters) are dropped, as an HTTP client would refuse them.
          const headers = Object.fromEntries(
            Object.entries(rawHeaders).filter(([, v]) => /^[\t\x20-\x7e\x80-\xff]*$/.test(v)),
          )
          const res = await send(app, { method, url, headers, payload: method === 'GET' ? undefined : '{}' })
          const problem = wellFormed(res)
          if (problem) throw new Error(problem)
          if (res.statusCode < 400) throw new Error(`${method} ${url} with ${JSON.stringify(headers)} was let through`)
        },
      ),
      { numRuns: 500, seed: SEED },
    )
    t.pass('no guessed credential passes, no 5xx')
  },
)

t.test('/ws: thousands of generated frames over a real socket', { timeout: 120_000 }, async (t) => {
  const { app, port } = await startServer(t, { wsMaxFramesPerSecond: 1_000_000, rateLimit: 0 })
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`)
  t.teardown(() => ws.terminate())
  const replies: { type: string }[] = []
  let wake: (() => void) | null = null
  ws.on('message', (data) => {
    replies.push(JSON.parse(data.toString()))
    wake?.()
  })
  await within(HANG_MS, 'the connection', new Promise((r) => ws.on('open', r)))
  const frame = fc.oneof(
    fc.constantFrom(
      '{"type":"ping"}',
      '{"type":"subscribe","project_id":null}',
      '{"type":"subscribe","project_id":"p"}',
    ),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fc
      .record({ type: maybe(fc.constantFrom('ping', 'subscribe', 'pong')), project_id: weird }, { requiredKeys: [] })
      .map((v) => JSON.stringify(v)),
    fc.string({ unit: 'binary', maxLength: 100 }),
    fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
  )
  const frames = fc.sample(frame, { numRuns: 3000, seed: SEED })
  // In batches: every frame gets exactly one reply (pong, subscribed or error), in order, and the socket stays open.
  await within(
    HANG_MS,
    'connection.established',
    new Promise<void>((resolve) => {
      wake = () => replies.length >= 1 && resolve()
      wake()
    }),
  )
  for (let i = 0; i < frames.length; i += 100) {
    const batch = frames.slice(i, i + 100)
    const expected = replies.length + batch.length
    for (const f of batch) ws.send(f)
    await within(
      HANG_MS,
      `replies to frames ${i}–${i + batch.length} (${replies.length} of ${expected} so far)`,
      new Promise<void>((resolve) => {
        wake = () => replies.length >= expected && resolve()
        wake()
      }),
    )
  }
  t.equal(ws.readyState, WebSocket.OPEN, 'still connected after 3000 frames')
  const kinds = new Set(replies.slice(1).map((r) => r.type))
  t.ok(
    [...kinds].every((k) => ['pong', 'subscribed', 'error'].includes(k)),
    `reply kinds: ${[...kinds].join(', ')}`,
  )
  t.equal(replies.length, frames.length + 1, 'one reply per frame (plus connection.established)')
  t.equal((await app.inject('/')).statusCode, 200, 'the server is well')
})

t.test(
  'scores: generated names, labels, values and comments, then every view of them',
  { timeout: 120_000 },
  async (t) => {
    const { app, key } = await fuzzApp(t)
    for (let i = 0; i < 5; i++) {
      await app.inject({
        method: 'POST',
        url: '/traces',
        headers: { 'x-api-key': key },
        payload: { trace_id: `ft${i}`, prompt: `p${i}`, session_id: 'fs', user_id: 'fu' },
      })
    }
    const text = fc.oneof(
      fc.constantFrom(...PROTOTYPE_NAMES, ...LONE_SURROGATES, 'a\u0000b', '\u0000', ' x', 'x'.repeat(65)),
      fc.string({ minLength: 1, maxLength: 70 }),
    )
    const value = fc.oneof(
      fc.constantFrom(...EXTREME_NUMBERS, 1e9, -1e9, 1e-300, -0, 0.1, true, false),
      fc.double(),
      text,
    )
    const score = fc.record(
      {
        trace_id: fc.constantFrom('ft0', 'ft1', 'ft2', 'ft3', 'ft4', 'nope'),
        name: text,
        value,
        label: maybe(text),
        comment: maybe(fc.oneof(text, fc.constantFrom('c'.repeat(10_000), 'c'.repeat(10_001)))),
        data_type: maybe(fc.constantFrom('numeric', 'categorical', 'boolean', 'other')),
      },
      { requiredKeys: ['trace_id', 'name'] },
    )
    await fc.assert(
      fc.asyncProperty(fc.array(score, { minLength: 1, maxLength: 5 }), async (scores) => {
        const res = await send(app, { method: 'POST', url: '/scores/batch', payload: { scores } })
        const problem = wellFormed(res)
        if (problem) throw new Error(`POST /scores/batch ${JSON.stringify(scores).slice(0, 300)} → ${problem}`)
      }),
      { numRuns: 300, seed: SEED },
    )
    const stored = (await app.inject('/scores?limit=1000')).json().items as { name: string; trace_id: string }[]
    t.ok(stored.length > 0, 'some generated scores were stored')
    const names = [...new Set(stored.map((s) => s.name))]
    const bound = fc.constantFrom(...NUMBER_STRINGS, ...EXTREME_NUMBERS.map(String), '1e-300', '-0', '0.5', 'x', '')
    const optional = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined })
    const views = fc.oneof(
      fc
        .tuple(
          fc.constantFrom(...names, ...PROTOTYPE_NAMES),
          optional(bound),
          optional(bound),
          optional(fc.constantFrom(...names)),
        )
        .map(
          ([name, min, max, label]) =>
            `/traces?fields=summary&score_name=${escapeForUrl(name)}` +
            (min === undefined ? '' : `&min_score=${min}`) +
            (max === undefined ? '' : `&max_score=${max}`) +
            (label === undefined ? '' : `&score_label=${escapeForUrl(label)}`),
        ),
      fc
        .tuple(
          fc.constantFrom(...names, ...PROTOTYPE_NAMES),
          fc.constantFrom('asc', 'desc'),
          fc.constantFrom('full', 'summary'),
        )
        .map(
          ([name, order, fields]) => `/traces?sort=score:${escapeForUrl(name)}&order=${order}&fields=${fields}&limit=2`,
        ),
      fc.constantFrom(
        '/sessions',
        '/sessions/fs',
        '/users',
        '/users/fu',
        '/analytics',
        '/traces/export',
        '/traces/export?format=csv',
      ),
    )
    await fc.assert(
      fc.asyncProperty(views, async (url) => {
        const res = await send(app, { method: 'GET', url })
        const problem = wellFormed(res)
        if (problem) throw new Error(`GET ${url} → ${problem}`)
      }),
      { numRuns: 400, seed: SEED },
    )
    // Every stored name, `__proto__` included, is an own key of its trace's summary.
    const page = (await app.inject('/traces?fields=summary&limit=10')).json()
    for (const s of stored) {
      const summary = page.items.find((i: { trace_id: string }) => i.trace_id === s.trace_id).scores
      t.ok(Object.hasOwn(summary, s.name), `${JSON.stringify(s.name)} in ${s.trace_id}'s summary`)
    }
    const proto = await app.inject({
      method: 'POST',
      url: '/scores',
      payload: { trace_id: 'ft0', name: '__proto__', value: 1e-300 },
    })
    t.equal(proto.statusCode, 201, proto.body)
    const own = (await app.inject('/traces?fields=summary&score_name=__proto__')).json()
    t.match(JSON.stringify(own.items[0].scores), /"__proto__":\{"count":\d+,"mean":/)
    const session = (await app.inject('/sessions/fs')).json()
    t.ok(Object.hasOwn(session.session.scores, '__proto__'), 'a session’s means: __proto__ an own key')
  },
)
