// Two Loupe server processes on one PostgreSQL database: a trace stored through either reaches the /ws clients of
// both, exactly once and in the order its replica stored them — also when a replica's listening connection is cut
// and it has to catch up on what was stored meanwhile. (PostgreSQL run only: SQLite is one process by design.)
import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import pg from 'pg'
import t, { type Test } from 'tap'
import WebSocket from 'ws'
import { dropSchema, TEST_DATABASE, testSchemaName, withSchema } from '../helper.js'

// How long a replica started through tsx may take to answer: compiling on a busy 2-core machine takes a while.
const WAIT_MS = 45_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function waitUntil(what: string, done: () => boolean, ms = WAIT_MS): Promise<void> {
  const deadline = Date.now() + ms
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await sleep(20)
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('port'))))
    })
  })
}

interface Replica {
  name: string
  base: string
  port: number
  process: ChildProcess
  /** Parsed log lines (pino JSON). */
  logs: Record<string, unknown>[]
}

/** Starts `node src/server.ts` on its own port against `databaseUrl`; stopped when the test ends. */
async function startReplica(t: Test, name: string, databaseUrl: string): Promise<Replica> {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const replica: Replica = { name, base: `http://127.0.0.1:${port}`, port, process: child, logs: [] }
  let pending = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    pending += chunk.toString()
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) {
      try {
        replica.logs.push(JSON.parse(line))
      } catch {
        replica.logs.push({ msg: line })
      }
    }
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  t.teardown(async () => {
    if (child.exitCode === null) child.kill('SIGTERM')
    await exited
  })
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    if (child.exitCode !== null) throw new Error(`replica ${name} exited: ${stderr}`)
    try {
      if ((await fetch(`${replica.base}/`)).ok) return replica
    } catch {}
    if (Date.now() > deadline) throw new Error(`replica ${name} did not answer: ${stderr}`)
    await sleep(100)
  }
}

/** A /ws client that keeps the trace ids of every trace.created it receives, in order. */
async function watch(t: Test, replica: Replica) {
  const ws = new WebSocket(`ws://127.0.0.1:${replica.port}/ws`)
  const ids: string[] = []
  const established = new Promise<void>((resolve, reject) => {
    ws.on('error', reject)
    ws.on('message', (raw) => {
      const message = JSON.parse(raw.toString()) as { type: string; data: { trace_id?: string } }
      if (message.type === 'connection.established') resolve()
      if (message.type === 'trace.created' && message.data.trace_id) ids.push(message.data.trace_id)
    })
  })
  t.teardown(() => ws.terminate())
  await established
  return ids
}

const post = async (replica: Replica, path: string, key: string, body: unknown) => {
  const res = await fetch(`${replica.base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

let n = 0
const trace = (tag: string) => ({ trace_id: `${tag}-${String(++n).padStart(4, '0')}`, prompt: `p ${n}` })

t.test(
  'two replicas on one database share one live stream',
  { skip: !TEST_DATABASE && 'PostgreSQL run only' },
  async (t) => {
    const database = TEST_DATABASE!
    const schema = testSchemaName()
    t.teardown(() => dropSchema(database, schema))
    const url = withSchema(database, schema)
    // Started together: the migrations run once, under the advisory lock.
    const [a, b] = await Promise.all([startReplica(t, 'A', url), startReplica(t, 'B', url)])

    const created = await fetch(`${a.base}/projects?name=Replicas&environment=production`, { method: 'POST' })
    t.equal(created.status, 201)
    const { api_key } = (await created.json()) as { api_key: { key: string } }
    const key = api_key.key
    const [onA, onB] = await Promise.all([watch(t, a), watch(t, b)])

    // Each replica stores some, singly and in batches, interleaved.
    const sent: { replica: Replica; ids: string[] }[] = []
    for (const [replica, tag] of [
      [a, 'a'],
      [b, 'b'],
      [a, 'a'],
      [b, 'b'],
    ] as const) {
      const single = trace(tag)
      t.equal((await post(replica, '/traces', key, single)).status, 201)
      const batch = Array.from({ length: 25 }, () => trace(tag))
      const res = await post(replica, '/traces/batch', key, { traces: batch })
      t.equal(res.body.accepted, batch.length)
      sent.push({ replica, ids: [single.trace_id, ...batch.map((x) => x.trace_id)] })
    }
    // A re-send stores nothing and announces nothing, on either replica.
    t.equal((await post(b, '/traces', key, { trace_id: sent[0]!.ids[0], prompt: 'again' })).status, 200)

    const all = sent.flatMap((s) => s.ids)
    await waitUntil('every trace on both clients', () => onA.length >= all.length && onB.length >= all.length)
    await sleep(300) // room for a duplicate to show up
    for (const [name, ids] of [
      ['client of A', onA],
      ['client of B', onB],
    ] as const) {
      t.equal(ids.length, all.length, `${name}: each trace exactly once`)
      t.strictSame([...ids].sort(), [...all].sort(), `${name}: every stored trace`)
      for (const from of [a, b]) {
        const order = sent.filter((s) => s.replica === from).flatMap((s) => s.ids)
        t.strictSame(
          ids.filter((id) => order.includes(id)),
          order,
          `${name}: the traces of ${from.name} in the order ${from.name} stored them`,
        )
      }
    }

    await t.test('a replica whose listening connection drops catches up, without duplicates', async (t) => {
      const admin = new pg.Client({ connectionString: database })
      await admin.connect()
      t.teardown(() => admin.end())
      const before = { a: onA.length, b: onB.length }
      // Cut both listeners (and wait until they are gone), then store while nobody listens.
      const cut = await admin.query(
        `select pg_terminate_backend(pid, 5000) as ok from pg_stat_activity where application_name = $1`,
        [`loupe-feed ${schema}`],
      )
      t.equal(cut.rows.length, 2, 'both listening connections were cut')
      const missed = [trace('a'), ...Array.from({ length: 40 }, () => trace('a'))]
      t.equal((await post(a, '/traces', key, missed[0])).status, 201)
      t.equal((await post(a, '/traces/batch', key, { traces: missed.slice(1) })).body.accepted, 40)
      const ids = missed.map((x) => x.trace_id)

      await waitUntil('B to catch up', () => onB.length >= before.b + ids.length)
      await waitUntil('both listeners back', () =>
        [a, b].every((r) => r.logs.some((l) => l.msg === 'replica feed: caught up after reconnecting')),
      )
      // And the stream goes on live after the catch-up.
      const after = trace('b')
      t.equal((await post(b, '/traces', key, after)).status, 201)
      await waitUntil('the live trace on A', () => onA.includes(after.trace_id))
      await sleep(300)
      t.strictSame(onA.slice(before.a), [...ids, after.trace_id], 'A: its own traces once, then the live one')
      t.strictSame(onB.slice(before.b), [...ids, after.trace_id], 'B: the missed traces once, in order, then live')
      // Whether B got them by catching up or (had it reconnected first) live, it got each once; A stored them itself,
      // so its catch-up found nothing new. (test/store/postgres.test.ts pins the catch-up path down deterministically.)
      const caughtUp = (r: Replica) =>
        r.logs.find((l) => l.msg === 'replica feed: caught up after reconnecting')?.announced as number
      t.equal(caughtUp(a), 0, 'A had nothing to announce: it stored them itself')
    })
  },
)
