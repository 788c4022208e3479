// Public keys (`loupe_pk_…`): feedback scores on their own project's traces through POST /scores and /scores/batch,
// and nothing else — every other route of the API document (and /ws, /metrics, OTLP with HTTP Basic, the docs and
// the viewer) answers 403, in protected and in open mode; a small body, a per-address rate, and CORS for browsers.
import t, { type Test } from 'tap'
import WebSocket from 'ws'
import type { LoupeApp } from '../../src/app.js'
import { buildTestApp, createProject, postTrace, startTestServer } from '../helper.js'

const ADMIN = 'admin-token-for-public-keys'
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const

type Mode = 'protected' | 'open'

async function setup(t: Test, mode: Mode, config = {}, listen = false) {
  const options = {
    config: { adminToken: mode === 'protected' ? ADMIN : null, rateLimit: 0, feedbackRateLimit: 0, ...config },
  }
  const app = listen ? (await startTestServer(t, options)).app : await buildTestApp(t, options)
  const admin = mode === 'protected' ? ADMIN : undefined
  const shop = await createProject(app, 'Shop', 'production', admin)
  const other = await createProject(app, 'Other', 'production', admin)
  t.equal((await postTrace(app, shop.key, { trace_id: 'shop-1', prompt: 'p', response: 'r' })).statusCode, 201)
  t.equal((await postTrace(app, other.key, { trace_id: 'other-1', prompt: 'p', response: 'r' })).statusCode, 201)
  const created = await app.inject({
    method: 'POST',
    url: '/api-keys',
    query: { project_id: 'shop', environment: 'production', kind: 'public' },
    headers: { authorization: `Bearer ${shop.key}` },
  })
  t.equal(created.statusCode, 201, 'public key created')
  const publicKey: string = created.json().key
  t.match(publicKey, /^loupe_pk_[A-Za-z0-9]{32}$/)
  // A score that exists, so that the routes naming one are asked about a real one.
  const stored = await app.inject({
    method: 'POST',
    url: '/scores',
    headers: { authorization: `Bearer ${shop.key}` },
    payload: { trace_id: 'shop-1', name: 'helpfulness', value: 0.5 },
  })
  t.equal(stored.statusCode, 201, 'score stored')
  return { app, shop, other, publicKey, scoreId: stored.json().score_id as string, keyId: shop.key_id }
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })
const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
})

/** Every method and path of the API document, its parameters filled with things that exist. */
async function documentedRoutes(app: LoupeApp, values: Record<string, string>) {
  const doc = (await app.inject({ url: '/docs/json', headers: { authorization: `Bearer ${ADMIN}` } })).json()
  const routes: { method: string; url: string }[] = []
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    const url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = values[name]
      if (value === undefined) throw new Error(`no value for the path parameter ${name} of ${path}`)
      return encodeURIComponent(value)
    })
    for (const method of METHODS) if (method in item) routes.push({ method: method.toUpperCase(), url })
    if ('get' in item) routes.push({ method: 'HEAD', url })
  }
  return routes
}

/** The one door: a public key's two score routes. */
const isDoor = (method: string, url: string) => method === 'POST' && (url === '/scores' || url === '/scores/batch')

for (const mode of ['protected', 'open'] as const) {
  t.test(`${mode} mode: a public key answers 403 on every route but POST /scores and /scores/batch`, async (t) => {
    const { app, publicKey, scoreId, keyId } = await setup(t, mode)
    const routes = await documentedRoutes(app, {
      trace_id: 'shop-1',
      score_id: scoreId,
      key_id: keyId,
      project_id: 'shop',
      session_id: 's-1',
      user_id: 'u-1',
      pattern: 'gpt-4o',
      name: 'helpfulness',
      rule_id: 'r-1',
      evaluator_id: 'e-1',
      run_id: 'run-1',
      dataset_id: 'd-1',
      item_id: 'i-1',
      experiment_id: 'x-1',
      queue_id: 'q-1',
    })
    t.ok(routes.length >= 60, `${routes.length} routes from the document`)
    const extra = ['/docs', '/docs/json', '/ui/', '/ws?token=x', '/no-such-route']
    let refused = 0
    for (const { method, url } of [...routes, ...extra.map((url) => ({ method: 'GET', url }))]) {
      if (isDoor(method, url)) continue
      for (const headers of [bearer(publicKey), { 'x-api-key': publicKey }]) {
        const res = await app.inject({
          method: method as 'GET',
          url,
          headers,
          payload: method === 'GET' ? undefined : {},
        })
        t.equal(res.statusCode, 403, `${method} ${url} with ${Object.keys(headers)[0]}`)
        if (method !== 'HEAD') {
          t.match(res.json(), { code: 'LOUPE_FORBIDDEN', message: /public key may only send feedback scores/ })
          t.notMatch(res.body, /shop-1|other-1|helpfulness/, 'nothing of the data in the answer')
        }
        refused++
      }
    }
    t.ok(refused >= 140, `${refused} requests refused`)

    // The credential where a route takes it in the query (/ws) or as HTTP Basic (OTLP, as other SDKs send it).
    t.equal((await app.inject({ url: `/ws?token=${publicKey}` })).statusCode, 403, '/ws?token=')
    for (const url of ['/v1/traces', '/v1/logs', '/api/public/otel/v1/traces']) {
      for (const headers of [basic(publicKey, ''), basic('', publicKey), basic(publicKey, publicKey)]) {
        const res = await app.inject({ method: 'POST', url, headers, payload: {} })
        t.equal(res.statusCode, 403, `${url} with HTTP Basic`)
      }
    }
    t.equal((await app.inject({ url: '/metrics', headers: bearer(publicKey) })).statusCode, 403, '/metrics')
    // GET / and /health hold no data, yet a public key is refused there too: everything but its door says 403.
    for (const url of ['/', '/health']) t.equal((await app.inject({ url, headers: bearer(publicKey) })).statusCode, 403)
    // Unrefused, the same routes still answer whoever else asks.
    const admin = mode === 'protected' ? bearer(ADMIN) : {}
    t.equal((await app.inject({ url: '/health', headers: admin })).statusCode, 200)
    t.equal((await app.inject({ url: '/traces/shop-1', headers: admin })).statusCode, 200)
  })

  t.test(`${mode} mode: a public key sends feedback on its own project's traces, and only feedback`, async (t) => {
    const { app, publicKey } = await setup(t, mode)
    const send = (payload: object, url = '/scores') =>
      app.inject({ method: 'POST', url, headers: bearer(publicKey), payload })

    const thumbs = await send({ trace_id: 'shop-1', name: 'thumbs', value: true, comment: 'spot on' })
    t.equal(thumbs.statusCode, 201, 'thumbs up stored')
    t.match(thumbs.json(), { project_id: 'shop', trace_id: 'shop-1', source: 'feedback', value: 1, label: 'true' })
    const named = await send({ trace_id: 'shop-1', name: 'thumbs', value: false, source: 'feedback' })
    t.equal(named.statusCode, 201, 'source feedback named')

    const api = await send({ trace_id: 'shop-1', name: 'thumbs', value: true, source: 'api' })
    t.equal(api.statusCode, 403, 'another source')
    t.match(api.json(), { code: 'LOUPE_FORBIDDEN' })
    const foreign = await send({ trace_id: 'other-1', name: 'thumbs', value: true })
    t.equal(foreign.statusCode, 404, 'another project’s trace is unknown, not forbidden')
    t.notMatch(foreign.body, /project/, 'nor is any project named')

    const batch = await send(
      {
        scores: [
          { trace_id: 'shop-1', name: 'thumbs', value: true },
          { trace_id: 'other-1', name: 'thumbs', value: true },
          { trace_id: 'shop-1', name: 'thumbs', value: true, source: 'evaluator' },
        ],
      },
      '/scores/batch',
    )
    t.equal(batch.statusCode, 200, 'batch answered')
    const answer = batch.json()
    t.equal(answer.accepted, 1)
    t.same(
      answer.rejected.map((r: { index: number }) => r.index),
      [1, 2],
    )

    // What it wrote is there for a reader with another credential, all of it feedback of its project.
    const reader = mode === 'protected' ? bearer(ADMIN) : {}
    const stored = (await app.inject({ url: '/scores?name=thumbs', headers: reader })).json()
    t.equal(stored.total, 3)
    t.ok(
      stored.items.every(
        (s: { source: string; project_id: string }) => s.source === 'feedback' && s.project_id === 'shop',
      ),
    )
    // …and never for the key itself.
    t.equal((await app.inject({ url: '/scores?name=thumbs', headers: bearer(publicKey) })).statusCode, 403)
  })
}

t.test('a revoked or unknown public key is refused at its door too', async (t) => {
  const { app, publicKey } = await setup(t, 'protected')
  const send = (key: string) =>
    app.inject({
      method: 'POST',
      url: '/scores',
      headers: bearer(key),
      payload: { trace_id: 'shop-1', name: 'n', value: 1 },
    })
  t.equal((await send(`loupe_pk_${'x'.repeat(32)}`)).statusCode, 401, 'unknown')
  const keys = (await app.inject({ url: '/api-keys?project_id=shop', headers: bearer(ADMIN) })).json().items
  const pk = keys.find((k: { kind: string }) => k.kind === 'public')
  t.equal(
    (await app.inject({ method: 'DELETE', url: `/api-keys/${pk.key_id}`, headers: bearer(ADMIN) })).statusCode,
    200,
  )
  t.equal((await send(publicKey)).statusCode, 401, 'revoked')
})

t.test('a public key cannot open /ws, whether it is sent as ?token= or as a header', async (t) => {
  const { app, publicKey } = await setup(t, 'protected', {}, true)
  const address = app.server.address() as { port: number }
  for (const [query, headers] of [
    [`?token=${publicKey}`, {}],
    ['', bearer(publicKey)],
  ] as const) {
    const status = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${address.port}/ws${query}`, { headers })
      socket.on('unexpected-response', (_request, response) => {
        resolve(response.statusCode ?? 0)
        socket.terminate()
      })
      socket.on('open', () => {
        socket.close()
        reject(new Error('the public key opened /ws'))
      })
      socket.on('error', () => {})
    })
    t.equal(status, 403)
  }
})

t.test(
  'a request with a public key carries at most FEEDBACK_BODY_LIMIT bytes: 413, even without Content-Length',
  async (t) => {
    const { app, shop, publicKey } = await setup(t, 'protected', { feedbackBodyLimit: 16_384 })
    // Under the score's own limits (10000 characters of comment), over 16 KiB as UTF-8.
    const big = { trace_id: 'shop-1', name: 'thumbs', value: true, comment: 'é'.repeat(9000) }
    const res = await app.inject({ method: 'POST', url: '/scores', headers: bearer(publicKey), payload: big })
    t.equal(res.statusCode, 413)
    t.match(res.json(), { code: 'LOUPE_BODY_TOO_LARGE', message: /16384 bytes \(FEEDBACK_BODY_LIMIT\)/ })
    // Sent in chunks with no length announced, it is cut off once past the limit.
    const { Readable } = await import('node:stream')
    const chunked = await app.inject({
      method: 'POST',
      url: '/scores/batch',
      headers: { ...bearer(publicKey), 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      payload: Readable.from([Buffer.from('{"scores":['), Buffer.from(`${'{"x":1},'.repeat(3000)}{}]}`)]),
    })
    t.equal(chunked.statusCode, 413)
    t.equal((await app.inject({ url: '/scores', headers: bearer(ADMIN) })).json().total, 1, 'nothing stored')
    // A secret key keeps the server's BODY_LIMIT.
    const secret = await app.inject({ method: 'POST', url: '/scores', headers: bearer(shop.key), payload: big })
    t.equal(secret.statusCode, 201, 'a secret key sends the large score')
    // Small feedback passes.
    const small = { trace_id: 'shop-1', name: 'thumbs', value: true }
    t.equal(
      (await app.inject({ method: 'POST', url: '/scores', headers: bearer(publicKey), payload: small })).statusCode,
      201,
    )
  },
)

t.test('FEEDBACK_RATE_LIMIT requests a minute per address with a public key: 429 with Retry-After', async (t) => {
  const { app, shop, publicKey } = await setup(t, 'protected', { feedbackRateLimit: 3 })
  const send = (key: string, remoteAddress = '203.0.113.7') =>
    app.inject({
      method: 'POST',
      url: '/scores',
      remoteAddress,
      headers: bearer(key),
      payload: { trace_id: 'shop-1', name: 'thumbs', value: true },
    })
  for (let i = 0; i < 3; i++) t.equal((await send(publicKey)).statusCode, 201)
  const limited = await send(publicKey)
  t.equal(limited.statusCode, 429)
  t.match(limited.json(), { code: 'LOUPE_RATE_LIMITED', message: /FEEDBACK_RATE_LIMIT/ })
  t.ok(Number(limited.headers['retry-after']) >= 1, `Retry-After: ${limited.headers['retry-after']}`)
  t.equal((await send(`loupe_pk_${'y'.repeat(32)}`)).statusCode, 429, 'an unknown public key costs the same')
  t.equal((await send(publicKey, '203.0.113.8')).statusCode, 201, 'another address has its own budget')
  t.equal((await send(shop.key)).statusCode, 201, 'a secret key is not counted')
})

t.test(
  'CORS: a browser’s preflight for POST /scores succeeds, and the answer may be read from any origin',
  async (t) => {
    const { app, publicKey } = await setup(t, 'protected')
    const origin = 'https://shop.example'
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/scores',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    })
    t.equal(preflight.statusCode, 204, 'preflight')
    t.equal(preflight.headers['access-control-allow-origin'], '*')
    t.match(String(preflight.headers['access-control-allow-methods']), /POST/)
    t.match(String(preflight.headers['access-control-allow-headers']), /authorization/i)
    t.match(String(preflight.headers['access-control-allow-headers']), /content-type/i)
    const sent = await app.inject({
      method: 'POST',
      url: '/scores',
      headers: { origin, ...bearer(publicKey) },
      payload: { trace_id: 'shop-1', name: 'thumbs', value: true },
    })
    t.equal(sent.statusCode, 201)
    t.equal(sent.headers['access-control-allow-origin'], '*')
  },
)
