// Abuse limits: per-address rate limit on every route but ingest, per-key on ingest, 413 for large bodies, 503 with
// Retry-After when the event loop is saturated, 408 for a request that never finishes arriving, and 503 for one not
// answered in time.
import { connect as tcpConnect } from 'node:net'
import t, { type Test } from 'tap'
import { buildTestApp, createProject, createTestStore, postBatch, postTrace } from '../helper.js'
import { connect as connectPeer, sleep, startServer, within } from '../ws-peer.js'

const ERROR_SHAPE = { statusCode: Number, error: String, message: String }

t.test(
  'per address: over RATE_LIMIT requests a minute get 429 with Retry-After, on every route but ingest',
  async (t) => {
    const app = await buildTestApp(t, { config: { rateLimit: 5, ingestRateLimit: 0 } })
    const { key } = await createProject(app, 'Limited') // 1
    for (let i = 0; i < 4; i++) t.equal((await app.inject('/traces')).statusCode, 200)
    const limited = await app.inject('/traces')
    t.equal(limited.statusCode, 429)
    t.match(limited.json(), { ...ERROR_SHAPE, statusCode: 429, code: 'LOUPE_RATE_LIMITED', message: /RATE_LIMIT/ })
    t.ok(Number(limited.headers['retry-after']) > 0, `Retry-After: ${limited.headers['retry-after']}`)
    const unknown = await app.inject('/no-such-route')
    t.equal(unknown.statusCode, 429, 'unknown routes count too')
    t.equal(unknown.json().code, 'LOUPE_RATE_LIMITED')
    // What a load balancer asks must answer whatever one address did.
    for (const path of ['/health', '/']) t.equal((await app.inject(path)).statusCode, 200, `${path} is not limited`)
    t.equal((await app.inject({ url: '/traces', remoteAddress: '10.1.2.3' })).statusCode, 200, 'another address')
    for (let i = 0; i < 10; i++) t.equal((await postTrace(app, key, { prompt: 'p' })).statusCode, 201, 'ingest is not')
  },
)

t.test('RATE_LIMIT=0 turns the per-address limit off', async (t) => {
  const app = await buildTestApp(t, { config: { rateLimit: 0 } })
  for (let i = 0; i < 30; i++) t.equal((await app.inject('/traces')).statusCode, 200)
})

t.test('behind a proxy (TRUST_PROXY), each forwarded client has its own budget', async (t) => {
  const app = await buildTestApp(t, { config: { rateLimit: 2, trustProxy: true } })
  const from = (ip: string) => app.inject({ url: '/traces', headers: { 'x-forwarded-for': ip } })
  t.equal((await from('198.51.100.1')).statusCode, 200)
  t.equal((await from('198.51.100.1')).statusCode, 200)
  t.equal((await from('198.51.100.1')).statusCode, 429)
  t.equal((await from('198.51.100.2')).statusCode, 200)
})

t.test('per key on ingest: INGEST_RATE_LIMIT traces a minute for each key, batches counted by trace', async (t) => {
  const app = await buildTestApp(t, { config: { ingestRateLimit: 10 } })
  const a = await createProject(app, 'A')
  const b = await createProject(app, 'B')
  for (let i = 0; i < 3; i++) t.equal((await postTrace(app, a.key, { prompt: 'p' })).statusCode, 201)
  const batch = (n: number) =>
    postBatch(
      app,
      a.key,
      Array.from({ length: n }, () => ({ prompt: 'p' })),
    )
  t.equal((await batch(7)).statusCode, 200, 'ten traces in all')
  const limited = await postTrace(app, a.key, { prompt: 'p' })
  t.equal(limited.statusCode, 429)
  t.match(limited.json(), { ...ERROR_SHAPE, statusCode: 429, code: 'LOUPE_RATE_LIMITED', message: /INGEST_RATE_LIMIT/ })
  t.ok(Number(limited.headers['retry-after']) >= 1, `Retry-After: ${limited.headers['retry-after']}`)
  t.notOk(limited.body.includes(a.key), 'the key is not echoed')
  t.equal((await postTrace(app, b.key, { prompt: 'p' })).statusCode, 201, 'another key has its own budget')
  t.equal((await app.inject('/traces')).json().total, 11, 'nothing of the refused request was stored')
})

t.test('/ws upgrades and health checks do not use up the per-address limit; /ws keeps its own cap', async (t) => {
  const { app, port } = await startServer(t, { rateLimit: 3 })
  const peers = []
  for (let i = 0; i < 6; i++) peers.push(await connectPeer(t, port))
  t.equal(app.sockets.size, 6, 'six streams from one address')
  for (let i = 0; i < 5; i++) t.equal((await fetch(`http://127.0.0.1:${port}/health`)).status, 200)
  t.equal((await fetch(`http://127.0.0.1:${port}/traces`)).status, 200, 'the read budget is untouched')
})

t.test('a body over BODY_LIMIT is a 413; in protected mode a caller without a credential gets 401 first', async (t) => {
  const app = await buildTestApp(t, { config: { bodyLimit: 2048 } })
  const { key } = await createProject(app, 'Bodies')
  const res = await postTrace(app, key, { prompt: 'x'.repeat(4096) })
  t.equal(res.statusCode, 413)
  t.match(res.json(), { ...ERROR_SHAPE, statusCode: 413 })
  const guarded = await buildTestApp(t, { config: { bodyLimit: 2048, adminToken: 'a-long-enough-admin-token' } })
  const anonymous = await guarded.inject({ method: 'POST', url: '/traces', payload: { prompt: 'x'.repeat(4096) } })
  t.equal(anonymous.statusCode, 401, 'the body is never read')
})

t.test('a saturated event loop: 503 with Retry-After, then service again by itself', { timeout: 20_000 }, async (t) => {
  const app = await buildTestApp(t, { config: { maxEventLoopDelayMs: 50 } })
  const block = (ms: number) => {
    const end = Date.now() + ms
    while (Date.now() < end) {}
  }
  let overloaded: Awaited<ReturnType<typeof app.inject>> | undefined
  const deadline = Date.now() + 8000
  while (!overloaded && Date.now() < deadline) {
    block(600)
    await new Promise((r) => setTimeout(r, 20))
    const res = await app.inject('/traces')
    if (res.statusCode === 503) overloaded = res
  }
  t.ok(overloaded, 'answered 503 while the loop was blocked')
  t.match(overloaded?.json(), { ...ERROR_SHAPE, statusCode: 503, code: 'LOUPE_OVERLOADED' })
  t.equal(overloaded?.headers['retry-after'], '5')
  let recovered = false
  const until = Date.now() + 8000
  while (!recovered && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 200))
    recovered = (await app.inject('/traces')).statusCode === 200
  }
  t.ok(recovered, 'answers 200 again once the loop is free')
})

/** A raw connection to the server: what it has answered so far, and a wait for the server to close it. */
function rawConnection(t: Test, port: number) {
  const socket = tcpConnect(port, '127.0.0.1')
  t.teardown(() => socket.destroy())
  let answer = ''
  socket.on('data', (chunk) => {
    answer += chunk.toString()
  })
  socket.on('error', () => {})
  const closed = () =>
    within(5000, 'the server to close the connection', new Promise((resolve) => socket.on('close', resolve)))
  return { socket, answer: () => answer, closed }
}

t.test('a request that never finishes arriving is answered 408 and closed', { timeout: 20_000 }, async (t) => {
  const { port } = await startServer(t, { requestTimeoutMs: 500 })
  const { socket, answer, closed } = rawConnection(t, port)
  const started = Date.now()
  socket.write(
    'POST /projects HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":',
  )
  await closed()
  t.match(answer(), /^HTTP\/1\.1 408/, 'Request Timeout')
  t.ok(Date.now() - started < 3000, `closed after ${Date.now() - started} ms`)
})

t.test('a request not answered a second after REQUEST_TIMEOUT_MS gets 503 with Retry-After', async (t) => {
  // The store takes far longer than the timeout to find one trace; every other read answers at once.
  const store = await createTestStore(t)
  const slow = {
    ...store,
    traces: {
      ...store.traces,
      get: async (id: string) => {
        await new Promise((r) => setTimeout(r, 3000))
        return store.traces.get(id)
      },
    },
  }
  const app = await buildTestApp(t, { store: slow, config: { requestTimeoutMs: 100 } })
  const started = Date.now()
  const [late, quick] = await Promise.all([app.inject('/traces/some-trace'), app.inject('/traces')])
  const ms = Date.now() - started
  t.equal(quick.statusCode, 200, 'a request answered in time is not touched')
  t.equal(late.statusCode, 503)
  t.match(late.json(), { ...ERROR_SHAPE, statusCode: 503, code: 'LOUPE_UNAVAILABLE' })
  t.ok(Number(late.headers['retry-after']) > 0, `Retry-After: ${late.headers['retry-after']}`)
  t.ok(ms >= 1100, `answered after ${ms} ms, not before the timeout and a second more`)
})

/**
 * A server draining with a request under way on a raw connection: its body half sent, then close() begun; `rest` is
 * what the connection sends next (the rest of that body, and maybe more). Resolves once the server closed the
 * connection and stopped, with what it sent.
 */
async function drainDuring(t: Test, rest: (remaining: string) => string): Promise<string[]> {
  const { app, port } = await startServer(t)
  const { socket, answer, closed } = rawConnection(t, port)
  await within(3000, 'the connection', new Promise((resolve) => socket.once('connect', resolve)))
  // A request under way (its body half sent) holds the server open while it drains.
  const body = '{"name":"Draining","environment":"production"}'
  socket.write(
    `POST /projects HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
  )
  socket.write(body.slice(0, 5))
  await sleep(100)
  const closing = app.close()
  await sleep(100)
  socket.write(rest(body.slice(5)))
  await closed()
  await within(5000, 'the server to stop', closing)
  return answer().split(/(?=HTTP\/1\.1 )/)
}

t.test(
  'a request under way when the server drains is answered, then its connection closed and the server stops',
  async (t) => {
    // The rest of the body, and nothing more: a client that would keep the connection for its next request. Kept open,
    // the server would wait for the connection's keep-alive timeout (72 s) before it stopped.
    const answers = await drainDuring(t, (remaining) => remaining)
    t.match(answers[0], /^HTTP\/1\.1 201/, 'the request under way is answered')
    t.equal(answers.length, 1, 'and nothing else is sent')
  },
)

t.test('a request that arrives while the server drains gets 503 with Retry-After and Connection: close', async (t) => {
  // The rest of the body, and a second request on the same connection behind it.
  const answers = await drainDuring(t, (remaining) => `${remaining}GET /traces HTTP/1.1\r\nHost: x\r\n\r\n`)
  t.match(answers[0], /^HTTP\/1\.1 201/, 'the request under way is answered')
  t.equal(answers.length, 2, answers.join(''))
  t.match(answers[1], /^HTTP\/1\.1 503/)
  t.match(answers[1], /\r\nretry-after: \d+\r\n/i, 'Retry-After')
  t.match(answers[1], /\r\nconnection: close\r\n/i)
  t.match(answers[1], /"code":"LOUPE_UNAVAILABLE"/)
  t.match(answers[1], /shutting down/)
})
