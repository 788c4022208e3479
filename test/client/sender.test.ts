import { STATUS_CODES } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import t, { type Test } from 'tap'
import { buildApp, type LoupeApp } from '../../src/app.js'
import { Loupe, type LoupeOptions } from '../../src/client/index.js'
import { defaultConfig } from '../../src/config.js'
import { createSqliteStore } from '../../src/store/sqlite/store.js'
import { createProject, scratchDatabase, startTestServer, type TestAppOptions, unusedPort, waitFor } from '../helper.js'

interface BatchRequest {
  at: number
  size: number
}

/** A server that notes every POST /traces/batch (time and size) before answering it. */
async function serverWithLog(t: Test, options: TestAppOptions = {}) {
  const batches: BatchRequest[] = []
  const { app, url } = await startTestServer(t, {
    ...options,
    setup: (app) => {
      app.addHook('preHandler', async (request) => {
        if (request.url === '/traces/batch') {
          batches.push({ at: Date.now(), size: (request.body as { traces: unknown[] }).traces.length })
        }
      })
      options.setup?.(app)
    },
  })
  const { key, project_id } = await createProject(app, 'Delivery')
  return { app, url, key, project_id, batches }
}

/** A setup hook: the first `times` batch requests are answered `status` (with `headers`), the rest go through. */
function failFirstBatches(times: number, status: number, message: string, headers: Record<string, string> = {}) {
  let left = times
  return (app: LoupeApp) =>
    app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.url !== '/traces/batch' || left-- <= 0) return
      return reply.code(status).headers(headers).send({ statusCode: status, error: STATUS_CODES[status], message })
    })
}

function client(t: Test, options: LoupeOptions) {
  const warnings: string[] = []
  const loupe = new Loupe({ baseDelayMs: 20, maxDelayMs: 200, onWarning: (m) => warnings.push(m), ...options })
  t.teardown(() => loupe.shutdown({ timeoutMs: 500 }))
  return { loupe, warnings }
}

async function record(loupe: Loupe, n: number, prefix = 'trace'): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < n; i++) {
    await loupe.trace({ name: `${prefix}-${i}`, prompt: `prompt ${i}` }, (tr) => {
      ids.push(tr.traceId)
      return 'ok'
    })
  }
  return ids
}

/** Every id stored exactly once, and nothing else stored for the project. */
async function assertExactlyOnce(t: Test, app: LoupeApp, project_id: string, ids: string[]) {
  const res = await app.inject({ url: '/traces', query: { project_id, limit: '1000' } })
  const stored = (res.json().items as { trace_id: string }[]).map((trace) => trace.trace_id)
  t.equal(res.json().total, ids.length, 'as many traces stored as recorded')
  t.same([...stored].sort(), [...ids].sort(), 'each recorded trace stored once')
}

t.test(
  'a batch goes once batchSize traces wait, a partial one after flushIntervalMs, a backlog in one request',
  async (t) => {
    const { app, url, key, project_id, batches } = await serverWithLog(t)
    const { loupe } = client(t, { baseUrl: url, apiKey: key, batchSize: 10, flushIntervalMs: 1000 })
    const full = Date.now()
    const ids = await record(loupe, 10)
    await waitFor(() => batches.length === 1, 3000, 'the full batch')
    t.ok(batches[0]!.at - full < 500, 'a full batch goes at once')

    const partial = Date.now()
    ids.push(...(await record(loupe, 5)))
    await waitFor(() => batches.length === 2, 3000, 'the partial batch')
    t.ok(batches[1]!.at - partial >= 995, 'a partial batch waits for flushIntervalMs')

    ids.push(...(await record(loupe, 250)))
    await waitFor(() => loupe.stats().pending === 0, 3000, 'the backlog')
    t.same(
      batches.map((b) => b.size),
      [10, 5, 250],
      'more than a batch waiting goes in one request (up to 1000)',
    )
    t.match(loupe.stats(), { queued: 265, delivered: 265, dropped: 0, requests: 3, retries: 0 })
    await assertExactlyOnce(t, app, project_id, ids)
  },
)

t.test('503 with Retry-After is retried after the time the server asked for', async (t) => {
  const { app, url, key, project_id, batches } = await serverWithLog(t, {
    setup: failFirstBatches(1, 503, 'down for a moment', { 'retry-after': '1' }),
  })
  const { loupe, warnings } = client(t, { baseUrl: url, apiKey: key })
  const ids = await record(loupe, 3)
  t.equal(await loupe.flush({ timeoutMs: 5000 }), true)
  t.equal(batches.length, 2)
  const waited = batches[1]!.at - batches[0]!.at
  t.ok(waited >= 990, `waited ${waited} ms for a Retry-After of 1 s`)
  t.match(warnings[0], /503 down for a moment; retrying/)
  t.match(loupe.stats(), { delivered: 3, retries: 1 })
  await assertExactlyOnce(t, app, project_id, ids)
})

t.test('429 is retried, and repeated failures back off', async (t) => {
  const { app, url, key, project_id, batches } = await serverWithLog(t, {
    setup: failFirstBatches(3, 429, 'slow down'),
  })
  const { loupe } = client(t, { baseUrl: url, apiKey: key, baseDelayMs: 50, maxDelayMs: 1000 })
  const ids = await record(loupe, 2)
  t.equal(await loupe.flush({ timeoutMs: 5000 }), true)
  t.equal(batches.length, 4)
  const gaps = batches.slice(1).map((b, i) => b.at - batches[i]!.at)
  // Backoff before retry n lies in [base·2^(n-1)/2, base·2^(n-1)]: at least 25, 50, 100 ms.
  t.ok(gaps[0]! >= 20 && gaps[1]! >= 45 && gaps[2]! >= 95, `gaps ${gaps.join(', ')} ms grow`)
  await assertExactlyOnce(t, app, project_id, ids)
})

t.test('an answer lost after the server stored the batch is retried without storing anything twice', async (t) => {
  let lose = 1
  const { app, url, key, project_id, batches } = await serverWithLog(t, {
    setup: (app) =>
      app.addHook('onSend', async (request, _reply, payload) => {
        // The batch is stored; the connection breaks before the answer leaves.
        if (request.url === '/traces/batch' && lose-- > 0) request.raw.socket.destroy()
        return payload
      }),
  })
  const { loupe } = client(t, { baseUrl: url, apiKey: key })
  const ids = await record(loupe, 20)
  t.equal(await loupe.flush({ timeoutMs: 5000 }), true)
  t.ok(batches.length >= 2, 'the batch was sent again')
  t.match(loupe.stats(), { delivered: 20, dropped: 0 })
  await assertExactlyOnce(t, app, project_id, ids)
})

t.test('traces recorded while the server is down arrive once it is back (file database, same port)', async (t) => {
  const database = scratchDatabase(t, 'restart')
  const start = async (port: number) => {
    const app = await buildApp(
      { ...defaultConfig(), databaseUrl: database, logLevel: 'silent', maxEventLoopDelayMs: 0 },
      { logger: false, store: createSqliteStore(database) },
    )
    await app.listen({ port, host: '127.0.0.1' })
    return app
  }
  const first = await start(0)
  const port = (first.server.address() as { port: number }).port
  const { key, project_id } = await createProject(first, 'Restart')
  const { loupe, warnings } = client(t, { baseUrl: `http://127.0.0.1:${port}`, apiKey: key, flushIntervalMs: 20 })

  const before = await record(loupe, 30, 'before')
  t.equal(await loupe.flush({ timeoutMs: 5000 }), true)
  await first.close()

  const during = await record(loupe, 30, 'during')
  await waitFor(() => loupe.stats().retries >= 2, 5000, 'failed attempts while the server is down')
  t.equal(loupe.stats().pending, 30, 'nothing is lost while the server is down')
  t.match(warnings.join('\n'), /connection refused/)

  const second = await start(port)
  t.teardown(() => second.close())
  t.equal(await loupe.flush({ timeoutMs: 5000 }), true, 'delivered after the restart')
  await assertExactlyOnce(t, second, project_id, [...before, ...during])
})

t.test('past maxQueueSize the oldest traces are dropped with a warning', async (t) => {
  const { loupe, warnings } = client(t, {
    baseUrl: `http://127.0.0.1:${await unusedPort()}`,
    apiKey: 'loupe_sk_unreachable',
    maxQueueSize: 5,
    flushIntervalMs: 60_000,
  })
  await record(loupe, 8)
  t.match(loupe.stats(), { queued: 8, dropped: 3, pending: 5 })
  t.match(warnings[0], /queue is full .*dropped the oldest 1/)
  t.equal(await loupe.flush({ timeoutMs: 200 }), false, 'flush gives up at its timeout and says so')
})

t.test('a batch the server refuses as a whole (401) is dropped with a warning, not retried', async (t) => {
  const { url } = await serverWithLog(t)
  const { loupe, warnings } = client(t, { baseUrl: url, apiKey: 'loupe_sk_00000000000000000000000000000000' })
  await record(loupe, 4)
  t.equal(await loupe.flush({ timeoutMs: 2000 }), false, 'settled, but not accepted: flush says so')
  t.match(loupe.stats(), { dropped: 4, requests: 1, retries: 0 }, 'sent once, never again')
  t.match(warnings[0], /dropped 4 trace\(s\): 401 .*retrying would not help/)
})

t.test('a trace the server rejects on its own is named in a warning; the rest of its batch is stored', async (t) => {
  const { app, url, key, project_id } = await serverWithLog(t)
  const { loupe, warnings } = client(t, { baseUrl: url, apiKey: key })
  const good = await record(loupe, 2)
  let bad = ''
  await loupe.trace({ prompt: 'too much metadata', metadata: { blob: 'x'.repeat(70 * 1024) } }, (tr) => {
    bad = tr.traceId
  })
  t.equal(await loupe.flush({ timeoutMs: 2000 }), false, 'one trace was not accepted')
  t.match(loupe.stats(), { delivered: 2, rejected: 1 })
  t.match(warnings.join('\n'), new RegExp(`rejected trace ${bad}: .*metadata`))
  await assertExactlyOnce(t, app, project_id, good)
})

t.test('a 413 splits the batch until it fits; a single trace too large is dropped', async (t) => {
  const { app, url, key, project_id, batches } = await serverWithLog(t, { config: { bodyLimit: 4096 } })
  const { loupe, warnings } = client(t, { baseUrl: url, apiKey: key, flushIntervalMs: 60_000 })
  const ids: string[] = []
  for (let i = 0; i < 12; i++) {
    await loupe.trace({ prompt: 'p'.repeat(700) }, (tr) => {
      ids.push(tr.traceId)
    })
  }
  await loupe.trace({ prompt: 'q'.repeat(6000) }, () => {})
  t.equal(await loupe.flush({ timeoutMs: 5000 }), false, 'the one too large was dropped')
  t.ok(
    batches.every((b) => b.size < 12),
    `batches of ${batches.map((b) => b.size).join(', ')}`,
  )
  t.match(loupe.stats(), { delivered: 12, dropped: 1 })
  t.match(warnings.join('\n'), /larger than the server accepts/)
  await assertExactlyOnce(t, app, project_id, ids)
})

t.test('a 500 is retried a few times, then the batch is given up so it cannot block the queue', async (t) => {
  const { url, key, batches } = await serverWithLog(t, {
    setup: (app) =>
      app.addHook('preHandler', async (request: FastifyRequest) => {
        if (request.url === '/traces/batch') throw new Error('a bug')
      }),
  })
  const { loupe, warnings } = client(t, { baseUrl: url, apiKey: key, baseDelayMs: 5, maxDelayMs: 20 })
  await record(loupe, 1)
  t.equal(await loupe.flush({ timeoutMs: 3000 }), false, 'given up: not accepted')
  t.equal(batches.length, 5)
  t.match(loupe.stats(), { dropped: 1, retries: 4 })
  t.match(warnings.at(-1), /failed 5 times \(500\)/)
})
