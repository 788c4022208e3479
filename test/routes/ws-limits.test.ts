// WS /ws under protection and abuse: ?token= and a project key's confined stream, the end of a revoked key's stream,
// the connection cap, the per-client frame rate, and a paused reader among many fast ones.
import { randomBytes } from 'node:crypto'
import t, { type Test } from 'tap'
import WebSocket from 'ws'
import { postBatch, postTrace } from '../helper.js'
import { connect, serverSide, startServer, WAIT_MS, waitUntil, within } from '../ws-peer.js'

const ADMIN = 'admin-token-for-ws-tests-0123456789'
let seq = 0
const aTrace = (extra: Record<string, unknown> = {}) => ({ trace_id: `wl-${++seq}`, prompt: `p${seq}`, ...extra })

/** The HTTP status a refused upgrade answered with. */
function refusal(port: number, query = '', headers: Record<string, string> = {}): Promise<number> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws${query}`, { headers })
  return within(
    WAIT_MS,
    'the upgrade to be refused',
    new Promise<number>((resolve, reject) => {
      ws.on('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0)
        ws.terminate()
      })
      ws.on('open', () => reject(new Error('the upgrade was accepted')))
      ws.on('error', () => {})
    }),
  )
}

async function protectedServer(t: Test, config = {}) {
  const { app, port } = await startServer(t, { adminToken: ADMIN, ...config })
  const create = async (name: string) => {
    const res = await app.inject({
      method: 'POST',
      url: '/projects',
      query: { name, environment: 'production' },
      headers: { authorization: `Bearer ${ADMIN}` },
    })
    return res.json().api_key as { key: string; key_id: string }
  }
  return { app, port, alpha: await create('Alpha'), beta: await create('Beta') }
}

t.test('protected /ws: no credential or an unknown one is refused with 401 before the upgrade', async (t) => {
  const { port } = await protectedServer(t)
  t.equal(await refusal(port), 401)
  t.equal(await refusal(port, '?token=loupe_sk_00000000000000000000000000000000'), 401)
  t.equal(await refusal(port, '?token='), 401)
  t.equal(await refusal(port, '', { authorization: 'Bearer nope' }), 401)
})

t.test("protected /ws: a project key's stream carries only its project, whatever it subscribes to", async (t) => {
  const { app, port, alpha, beta } = await protectedServer(t)
  const viaQuery = await connect(t, port, {}, `?token=${alpha.key}`)
  const viaHeader = await connect(t, port, { headers: { 'x-api-key': alpha.key } })
  const admin = await connect(t, port, {}, `?token=${ADMIN}`)

  await postTrace(app, alpha.key, aTrace())
  await postTrace(app, beta.key, aTrace())
  for (const peer of [viaQuery, viaHeader]) {
    t.strictSame(
      (await peer.events()).map((e) => e.project_id),
      ['alpha'],
      'only alpha',
    )
  }
  t.strictSame(
    (await admin.events()).map((e) => e.project_id),
    ['alpha', 'beta'],
    'the admin token sees every project',
  )

  viaQuery.send({ type: 'subscribe', project_id: 'beta' })
  const refused = await viaQuery.next('an error for a foreign subscribe')
  t.equal(refused.type, 'error')
  t.match(refused.data.message, /alpha/)
  viaQuery.send({ type: 'subscribe', project_id: null })
  t.strictSame((await viaQuery.next('subscribed')).data, { project_id: 'alpha' }, 'null widens only to its project')
  await postBatch(app, beta.key, [aTrace(), aTrace()])
  await postTrace(app, alpha.key, aTrace())
  t.strictSame(
    (await viaQuery.events()).map((e) => e.project_id),
    ['alpha'],
  )
  t.strictSame([...viaQuery.problems, ...viaHeader.problems, ...admin.problems], [])
})

t.test('protected /ws: the stream of a revoked key ends at the next heartbeat', { timeout: 15_000 }, async (t) => {
  const { app, port, alpha } = await protectedServer(t, { wsHeartbeatMs: 200 })
  const peer = await connect(t, port, {}, `?token=${alpha.key}`)
  const res = await app.inject({
    method: 'DELETE',
    url: `/api-keys/${alpha.key_id}`,
    headers: { authorization: `Bearer ${ADMIN}` },
  })
  t.equal(res.statusCode, 200)
  t.equal(await within(3000, 'the stream to end', peer.closed), 1008, 'closed: policy violation')
})

t.test('the connection cap: one more upgrade is refused with 503 and Retry-After', async (t) => {
  const { app, port } = await startServer(t, { wsMaxConnections: 3 })
  const peers = await Promise.all([connect(t, port), connect(t, port), connect(t, port)])
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`)
  const response = await within(
    WAIT_MS,
    'a refusal',
    new Promise<{ status: number; retryAfter: string | undefined }>((resolve) => {
      ws.on('unexpected-response', (_req, res) => {
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined })
        ws.terminate()
      })
      ws.on('error', () => {})
    }),
  )
  t.strictSame(response, { status: 503, retryAfter: '5' })
  peers[0]!.ws.close()
  await waitUntil('a slot to free up', () => app.websocketServer.clients.size === 2)
  const again = await connect(t, port)
  t.equal(again.ws.readyState, WebSocket.OPEN, 'a freed slot can be taken again')

  // Many at once: the cap holds even when upgrades race each other.
  const racers = Array.from({ length: 20 }, () => new WebSocket(`ws://127.0.0.1:${port}/ws`))
  t.teardown(() => {
    for (const r of racers) r.terminate()
  })
  await Promise.all(
    racers.map(
      (r) =>
        new Promise<void>((resolve) => {
          r.on('error', () => resolve())
          r.on('unexpected-response', () => resolve())
          r.on('close', () => resolve())
          r.on('open', () => setTimeout(resolve, 200))
        }),
    ),
  )
  t.ok(app.websocketServer.clients.size <= 3, `never more than 3 (${app.websocketServer.clients.size})`)
})

t.test('frames per second: the excess is ignored with one error, a flood is disconnected', async (t) => {
  const { port } = await startServer(t, { wsMaxFramesPerSecond: 5 })
  const peer = await connect(t, port)
  for (let i = 0; i < 8; i++) peer.send({ type: 'ping' })
  const warned = await peer.next('the rate error', (m) => m.type === 'error')
  t.match(warned.data.message, /5 frames per second/)
  await new Promise((r) => setTimeout(r, 1100))
  const after = await peer.sync()
  t.ok(
    after.every((m) => m.type === 'pong'),
    'a new second: frames are answered again',
  )
  t.equal(peer.messages.filter((m) => m.type === 'pong').length, 5 + 1, 'five pongs in the flooded second, one after')

  const flooder = await connect(t, port)
  for (let i = 0; i < 200; i++) flooder.send({ type: 'ping' })
  t.equal(await within(WAIT_MS, 'the flooder to be disconnected', flooder.closed), 1008)
  t.equal(peer.ws.readyState, WebSocket.OPEN, 'the other client stays')
})

t.test(
  'a paused reader among many fast ones: bounded server memory, no one delayed, the reader dropped',
  { timeout: 60_000 },
  async (t) => {
    const LIMIT = 256 * 1024
    const { app, port } = await startServer(t, { wsMaxBufferBytes: LIMIT })
    const { key } = (
      await app.inject({ method: 'POST', url: '/projects', query: { name: 'Slow', environment: 'production' } })
    ).json().api_key
    const slow = await connect(t, port)
    const fast = await Promise.all(Array.from({ length: 40 }, () => connect(t, port)))
    const slowServer = serverSide(app, slow)
    slow.ws.pause()

    const big = () => aTrace({ prompt: randomBytes(60_000).toString('base64') })
    const frameBytes = 90_000 // a little more than one such trace.created message
    let maxBuffered = 0
    let slowestRoundMs = 0
    let sent = 0
    for (let round = 0; round < 60; round++) {
      const started = Date.now()
      const res = await postBatch(app, key, [big(), big(), big()])
      t.equal(res.statusCode, 200)
      sent += 3
      // Every fast client has each event before the next round: nobody waits for the paused one.
      await Promise.all(fast.map((p) => p.sync()))
      slowestRoundMs = Math.max(slowestRoundMs, Date.now() - started)
      for (const socket of app.websocketServer.clients) maxBuffered = Math.max(maxBuffered, socket.bufferedAmount)
    }
    t.not(slowServer.readyState, WebSocket.OPEN, 'the paused reader was dropped')
    t.ok(
      maxBuffered <= LIMIT + 3 * frameBytes,
      `no socket ever held more than the limit plus one round of messages (max ${maxBuffered} bytes)`,
    )
    for (const [i, p] of fast.entries()) {
      t.equal(p.messages.filter((m) => m.type === 'trace.created').length, sent, `fast client ${i} received all`)
    }
    // Nobody waited for the paused reader: every round above completed for all 40 (a fan-out held by it would
    // never have), however slow the machine; the slowest round is reported, not bounded.
    t.comment(`the slowest round (ingest + 40 clients reading it) took ${slowestRoundMs} ms`)
    await waitUntil('the server to forget the paused reader', () => app.websocketServer.clients.size === 40)
    t.strictSame(
      fast.flatMap((p) => p.problems),
      [],
    )
  },
)
