// WS /ws over a real socket: the envelope, one trace.created per stored trace, ping/pong, subscriptions, bad frames,
// fan-out, and dropping peers that are gone, fail a send, miss heartbeats or fall too far behind.
import { randomBytes } from 'node:crypto'
import t from 'tap'
import WebSocket from 'ws'
import {
  ConnectionEstablishedMessage,
  ErrorMessage,
  PongMessage,
  SubscribedMessage,
  type Trace,
  TraceCreatedMessage,
} from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { createProject, postBatch, postTrace, schemaErrors } from '../helper.js'
import {
  connect,
  rawOf,
  serverSide,
  sleep,
  spyOn,
  startServer,
  UTC_ISO,
  WAIT_MS,
  waitUntil,
  within,
} from '../ws-peer.js'

let seq = 0
const aTrace = (extra: Record<string, unknown> = {}) => ({ trace_id: `ws-${++seq}`, prompt: `p${seq}`, ...extra })

/** A trace as GET /traces/{id} answers it, but for the scores read beside it (an event carries the trace only). */
async function getTrace(app: LoupeApp, id: string): Promise<Trace> {
  const { scores: _scores, ...trace } = (await app.inject(`/traces/${id}`)).json() as Trace
  return trace
}

t.test('on connect the server sends connection.established; every message is {type, data, timestamp}', async (t) => {
  const { port } = await startServer(t)
  const a = await connect(t, port)
  const b = await connect(t, port)
  const established = a.messages[0]!
  t.strictSame(Object.keys(established).sort(), ['data', 'timestamp', 'type'])
  t.strictSame(schemaErrors(ConnectionEstablishedMessage, established), [])
  t.strictSame(Object.keys(established.data).sort(), ['connection_id', 'server_time'])
  t.type(established.data.connection_id, 'string')
  t.ok((established.data.connection_id as string).length > 0)
  t.match(established.data.server_time, UTC_ISO)
  t.match(established.timestamp, UTC_ISO)
  t.not(b.messages[0]!.data.connection_id, established.data.connection_id, 'each connection has its own id')
  t.strictSame([...a.problems, ...b.problems], [])
})

t.test('ping → pong', async (t) => {
  const { port } = await startServer(t)
  const peer = await connect(t, port)
  for (let i = 0; i < 3; i++) {
    peer.send({ type: 'ping' })
    const pong = await peer.next('pong')
    t.equal(pong.type, 'pong')
    t.strictSame(pong.data, {})
    t.strictSame(schemaErrors(PongMessage, pong), [])
  }
  t.strictSame(peer.problems, [])
})

t.test('one trace.created with the full trace per stored trace, none for re-sends or rejects', async (t) => {
  const { app, port } = await startServer(t)
  const { key } = await createProject(app, 'Events')
  const other = await createProject(app, 'Other')
  const peer = await connect(t, port)

  const first = await postTrace(app, key, aTrace({ model: 'm', steps: [{ tool: 'search' }, { tool: 'search' }] }))
  t.equal(first.statusCode, 201)
  const events = await peer.events()
  t.equal(events.length, 1, 'POST /traces: one event')
  t.strictSame(events[0], first.json(), 'the event carries the trace exactly as POST answered it')
  t.strictSame(
    schemaErrors(
      TraceCreatedMessage,
      peer.messages.find((m) => m.type === 'trace.created'),
    ),
    [],
  )

  const dup = await postTrace(app, key, { ...aTrace(), trace_id: first.json().trace_id, failure_reason: 'x' })
  t.equal(dup.statusCode, 200)
  t.strictSame(await peer.events(), [], 'no event for a re-send of a stored trace')

  t.equal((await postTrace(app, key, aTrace({ latency: -1 }))).statusCode, 400)
  t.equal((await postTrace(app, 'loupe_sk_nope', aTrace())).statusCode, 401)
  t.equal((await postTrace(app, other.key, { ...aTrace(), trace_id: first.json().trace_id })).statusCode, 409)
  t.strictSame(await peer.events(), [], 'no event for a rejected trace')

  const batch = [aTrace(), aTrace({ failure_reason: 'boom' }), aTrace({ latency: -5 }), { prompt: 'no id' }]
  batch.push({ ...aTrace(), trace_id: first.json().trace_id }) // already stored
  batch.push(aTrace({ steps: [{ tool: 'a', status: 'failed' }] }))
  const res = await postBatch(app, key, batch)
  t.equal(res.statusCode, 200)
  t.equal(res.json().accepted, 5)
  t.strictSame(
    res.json().rejected.map((r: { index: number }) => r.index),
    [2],
  )
  const batchEvents = await peer.events()
  const storedIds = res.json().items.map((i: { trace_id: string }) => i.trace_id)
  const newIds = storedIds.filter((id: string) => id !== first.json().trace_id)
  t.strictSame(
    batchEvents.map((e) => e.trace_id),
    newIds,
    'one event per newly stored trace of the batch, in request order',
  )
  for (const event of batchEvents) t.strictSame(event, await getTrace(app, event.trace_id as string))

  t.strictSame(await peer.events(), [], 'nothing more')
  t.strictSame(peer.problems, [])
})

t.test('subscribe narrows the stream to one project; null widens it again', async (t) => {
  const { app, port } = await startServer(t)
  const alpha = await createProject(app, 'Alpha')
  const beta = await createProject(app, 'Beta')
  const narrow = await connect(t, port)
  const wide = await connect(t, port)

  narrow.send({ type: 'subscribe', project_id: alpha.project_id })
  const confirmed = await narrow.next('subscribed')
  t.strictSame(schemaErrors(SubscribedMessage, confirmed), [])
  t.strictSame(confirmed.data, { project_id: alpha.project_id })

  await postTrace(app, alpha.key, aTrace())
  await postTrace(app, beta.key, aTrace())
  await postBatch(app, beta.key, [aTrace(), aTrace()])
  await postBatch(app, alpha.key, [aTrace(), aTrace()])
  const narrowed = await narrow.events()
  t.strictSame(
    narrowed.map((e) => e.project_id),
    [alpha.project_id, alpha.project_id, alpha.project_id],
    'only alpha',
  )
  t.equal((await wide.events()).length, 6, 'another connection is not narrowed')

  const resubscriptions: [string | null, string[], string][] = [
    [beta.project_id, [beta.project_id], 'a new subscribe replaces the old one'],
    [null, [alpha.project_id, beta.project_id], 'null: every project again'],
  ]
  for (const [project_id, expected, why] of resubscriptions) {
    narrow.send({ type: 'subscribe', project_id })
    t.strictSame((await narrow.next('subscribed')).data, { project_id })
    await postTrace(app, alpha.key, aTrace())
    await postTrace(app, beta.key, aTrace())
    t.strictSame(
      (await narrow.events()).map((e) => e.project_id),
      expected,
      why,
    )
  }
  t.strictSame([...narrow.problems, ...wide.problems], [])
})

t.test('a frame that is not understood gets an error message and the connection stays open', async (t) => {
  const { app, port } = await startServer(t)
  const alpha = await createProject(app, 'Alpha')
  const beta = await createProject(app, 'Beta')
  const peer = await connect(t, port)
  peer.send({ type: 'subscribe', project_id: alpha.project_id })
  await peer.next('subscribed')

  const frames: [string, string | Buffer][] = [
    ['invalid JSON', '{"type": "ping"'],
    ['plain text', 'hello'],
    ['an unknown type', JSON.stringify({ type: 'unsubscribe' })],
    ['no type', '{}'],
    ['JSON null', 'null'],
    ['a JSON array', '[{"type":"ping"}]'],
    ['a JSON number', '42'],
    ['subscribe without project_id', JSON.stringify({ type: 'subscribe' })],
    ['subscribe with an empty project_id', JSON.stringify({ type: 'subscribe', project_id: '' })],
    ['subscribe with a numeric project_id', JSON.stringify({ type: 'subscribe', project_id: 5 })],
    ['subscribe with a list', JSON.stringify({ type: 'subscribe', project_id: ['a'] })],
    ['a binary frame', Buffer.from(JSON.stringify({ type: 'ping' }))],
    ['a text frame over 64 KiB', JSON.stringify({ type: 'ping', pad: 'x'.repeat(70 * 1024) })],
  ]
  for (const [name, frame] of frames) {
    peer.send(frame)
    const reply = await peer.next(`error for ${name}`)
    t.equal(reply.type, 'error', `${name}: error`)
    t.strictSame(schemaErrors(ErrorMessage, reply), [], `${name}: error shape`)
    t.ok(typeof reply.data.message === 'string' && reply.data.message.length > 0, `${name}: says why`)
    t.equal(peer.ws.readyState, WebSocket.OPEN, `${name}: still open`)
  }
  const afterwards = await peer.sync()
  t.strictSame(afterwards, [], 'a later ping still gets its pong, with nothing before it')

  await postTrace(app, beta.key, aTrace())
  await postTrace(app, alpha.key, aTrace())
  t.strictSame(
    (await peer.events()).map((e) => e.project_id),
    [alpha.project_id],
    'a rejected subscribe leaves the subscription as it was',
  )
  t.strictSame(peer.problems, [])
})

t.test('every connected client receives each event', async (t) => {
  const { app, port } = await startServer(t)
  const { key } = await createProject(app, 'Fan out')
  const peers = await Promise.all(Array.from({ length: 12 }, () => connect(t, port)))
  await postTrace(app, key, aTrace())
  await postBatch(app, key, [aTrace(), aTrace(), aTrace()])
  const expected = (await app.inject({ url: '/traces', query: { limit: '10' } })).json().items.reverse()
  t.equal(expected.length, 4)
  for (const [i, peer] of peers.entries()) {
    t.strictSame(await peer.events(), expected, `client ${i}`)
    t.strictSame(peer.problems, [])
  }
})

t.test('a client that is gone is removed during a broadcast; the others are unaffected', async (t) => {
  const { app, port } = await startServer(t)
  const { key } = await createProject(app, 'Gone')

  await t.test('a terminated client', async (t) => {
    const [gone, b, c] = await Promise.all([connect(t, port), connect(t, port), connect(t, port)])
    gone.ws.terminate()
    // At once, before the server has necessarily seen the close.
    for (let i = 0; i < 5; i++) t.equal((await postTrace(app, key, aTrace())).statusCode, 201)
    t.equal((await b.events()).length, 5)
    t.equal((await c.events()).length, 5)
    await waitUntil('the server to forget the terminated client', () => app.websocketServer.clients.size === 2)
    await postTrace(app, key, aTrace())
    t.equal((await b.events()).length, 1)
    t.equal((await c.events()).length, 1)
  })

  await t.test('a socket no longer open is dropped at the next broadcast, without a send', async (t) => {
    const [gone, b] = await Promise.all([connect(t, port), connect(t, port)])
    const server = serverSide(app, gone)
    const calls = spyOn(server)
    // What the server sees when the peer vanished but the close has not been processed yet.
    Object.defineProperty(server, 'readyState', { get: () => WebSocket.CLOSING, configurable: true })
    await postTrace(app, key, aTrace())
    await app.sockets.flushed()
    t.strictSame(calls, { send: 0, terminate: 1 }, 'dropped (terminated) during the broadcast')
    t.equal((await b.events()).length, 1, 'the others still receive it')
    await within(WAIT_MS, 'the dropped peer to see its connection end', gone.closed)
    await postBatch(app, key, [aTrace(), aTrace()])
    await app.sockets.flushed()
    t.strictSame(calls, { send: 0, terminate: 1 }, 'no longer in the set')
    t.equal((await b.events()).length, 2)
  })

  await t.test('a send that fails drops the client', async (t) => {
    const [failing, b] = await Promise.all([connect(t, port), connect(t, port)])
    const server = serverSide(app, failing)
    const calls = spyOn(server)
    const raw = rawOf(server)
    raw.write = ((_data: unknown, ...rest: unknown[]) => {
      calls.send++
      const cb = rest.find((r) => typeof r === 'function') as ((err?: Error) => void) | undefined
      process.nextTick(() => cb?.(new Error('write EPIPE')))
      return true
    }) as typeof raw.write
    await postTrace(app, key, aTrace())
    await app.sockets.flushed()
    t.equal((await b.events()).length, 1)
    t.strictSame(calls, { send: 1, terminate: 1 }, 'terminated after the failed send')
    await postBatch(app, key, [aTrace(), aTrace(), aTrace()])
    await app.sockets.flushed()
    t.strictSame(calls, { send: 1, terminate: 1 }, 'never sent to again')
    t.equal((await b.events()).length, 3)
    t.strictSame(b.problems, [])
  })
})

t.test('heartbeat: a client that does not answer pings is dropped', { timeout: 15_000 }, async (t) => {
  const { app, port } = await startServer(t, { wsHeartbeatMs: 200 })
  const { key } = await createProject(app, 'Heartbeat')
  const silent = await connect(t, port, { autoPong: false })
  const live = await connect(t, port)
  const code = await within(3000, 'the silent client to be dropped', silent.closed)
  t.ok(silent.pings >= 1, 'it was pinged')
  t.equal(code, 1006, 'terminated, not closed politely')
  // Several more heartbeats: the answering client stays.
  await sleep(700)
  t.ok(live.pings >= 3, 'the live client is pinged too')
  t.equal(live.ws.readyState, WebSocket.OPEN, 'a client that answers stays connected')
  await postTrace(app, key, aTrace())
  t.equal((await live.events()).length, 1)
  t.equal(app.websocketServer.clients.size, 1)
})

t.test(
  'a peer that stops reading is dropped once it is far behind the stream with its socket full; the others go on',
  {
    timeout: 60_000,
  },
  async (t) => {
    const { app, port } = await startServer(t, { wsMaxBufferBytes: 256 * 1024 })
    const { key } = await createProject(app, 'Slow')
    const slow = await connect(t, port)
    const fast = await connect(t, port)
    const slowServer = serverSide(app, slow)
    // The unsent bytes at the moment the server gives up on the peer.
    let backlogAtDrop = -1
    let sentAtDrop = -1
    const terminate = slowServer.terminate.bind(slowServer)
    slowServer.terminate = () => {
      if (backlogAtDrop < 0) {
        backlogAtDrop = slowServer.bufferedAmount
        sentAtDrop = sent
      }
      terminate()
    }
    // Stop reading: the kernel buffers fill, then the server's unsent buffer grows.
    slow.ws.pause()

    // Incompressible prompts of ~200 KB, four to a batch (under the 1 MiB body limit).
    const big = () => aTrace({ prompt: randomBytes(150_000).toString('base64') })
    let sent = 0
    let received = 0
    for (let round = 0; round < 150 && slowServer.readyState === WebSocket.OPEN; round++) {
      const res = await postBatch(app, key, [big(), big(), big(), big()])
      t.equal(res.statusCode, 200, `round ${round}`)
      sent += 4
      received += (await fast.events()).length
    }
    t.not(slowServer.readyState, WebSocket.OPEN, `the slow peer was dropped (after ${sent} traces)`)
    t.ok(backlogAtDrop >= 128 * 1024, `its socket was full when it was dropped (${backlogAtDrop} bytes waiting)`)
    // Each trace.created of these is a little over 200 KB.
    t.ok(
      sentAtDrop * 200_000 >= 16 * 256 * 1024,
      `not before 16 × the limit of the stream had passed it by (${sentAtDrop} traces)`,
    )
    t.equal(received, sent, 'the fast peer received every event meanwhile')
    for (let i = 0; i < 3; i++) await postBatch(app, key, [big(), big()])
    t.equal((await fast.events()).length, 6, 'and keeps receiving afterwards')
    await waitUntil('the server to forget the slow peer', () => app.websocketServer.clients.size === 1)
    t.strictSame(fast.problems, [])
  },
)

t.test('GET /ws without the WebSocket upgrade says how to connect (426, not an empty 404)', async (t) => {
  const { app } = await startServer(t)
  const res = await app.inject('/ws')
  t.equal(res.statusCode, 426)
  t.match(res.json(), { statusCode: 426, code: 'LOUPE_UPGRADE_REQUIRED', message: /WebSocket client.*\?token=/ })
})

t.test(
  'fan-out runs off the request path: the ingest answer and other requests do not wait for the broadcast',
  { timeout: 60_000 },
  async (t) => {
    const { app, port } = await startServer(t, { rateLimit: 0, ingestRateLimit: 0 })
    const { key } = await createProject(app, 'Fan-out')
    const peers: Awaited<ReturnType<typeof connect>>[] = []
    for (let i = 0; i < 3; i++) peers.push(...(await Promise.all(Array.from({ length: 100 }, () => connect(t, port)))))
    const batch = Array.from({ length: 200 }, () => aTrace({ prompt: randomBytes(300).toString('hex') }))
    const res = await postBatch(app, key, batch)
    t.equal(res.statusCode, 200)
    const queued = app.sockets.stats().queuedFrames
    t.ok(queued > 0, `the answer came while ${queued} events were still being handed to the sockets`)
    const health = await app.inject('/health')
    t.equal(health.statusCode, 200)
    t.ok(app.sockets.stats().queuedFrames > 0, '/health was answered in the middle of the broadcast')
    await app.sockets.flushed()
    t.equal(app.sockets.stats().queuedFrames, 0, 'the log is emptied once every socket has had it')
    for (const [i, peer] of [peers[0]!, peers[150]!, peers[299]!].entries()) {
      t.same(
        (await peer.events()).map((e) => e.trace_id),
        batch.map((b) => b.trace_id),
        `peer ${i} received every event, in order`,
      )
    }
    t.equal(app.sockets.stats().dropped, 0, 'no reading peer was dropped')
  },
)
