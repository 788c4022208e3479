// PostgreSQL going away under load: every backend of Loupe's connections is terminated, again and again, while
// clients ingest and read over real HTTP. The process never ends; requests meanwhile get 503 with Retry-After and a
// code, never a 500; Loupe recovers by itself within seconds; every acknowledged trace is stored exactly once; the
// rollups equal a recount; and the replica feed reconnects and announces what another replica stores afterwards.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import t from 'tap'
import type { Trace } from '../../schemas/index.js'
import { createPostgresStore } from '../../src/store/postgres/store.js'
import { unreported } from '../../src/store/reported-cost.js'
import {
  buildTestApp,
  createProject,
  dropSchema,
  TEST_DATABASE,
  testSchemaName,
  waitFor,
  withSchema,
} from '../helper.js'

const LOAD_MS = 6000
const KILL_EVERY_MS = 400
const WRITERS = 4
const READERS = 4
const BATCH = 5

t.test(
  'terminating every backend repeatedly under load never ends the process, answers 503, loses nothing',
  { skip: TEST_DATABASE ? false : 'the PostgreSQL run covers this', timeout: 120_000 },
  async (t) => {
    const url = TEST_DATABASE as string
    const schema = testSchemaName()
    const applicationName = `loupe-outage-${randomBytes(4).toString('hex')}`
    const store = await createPostgresStore(withSchema(url, schema), {
      poolSize: 6,
      applicationName,
      feedReconnectMs: 50,
    })
    const app = await buildTestApp(t, { store, config: { rateLimit: 0, ingestRateLimit: 0, maxEventLoopDelayMs: 0 } })
    t.teardown(() => dropSchema(url, schema))
    await app.listen({ port: 0, host: '127.0.0.1' })
    const address = app.server.address()
    if (address === null || typeof address === 'string') throw new Error('no TCP address')
    const base = `http://127.0.0.1:${address.port}`
    const { key } = await createProject(app, 'Outage')
    const announced = new Map<string, number>()
    app.hub.subscribe((traces) => {
      for (const trace of traces) announced.set(trace.trace_id, (announced.get(trace.trace_id) ?? 0) + 1)
    })

    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    t.teardown(() => admin.end())
    const terminate = async () => {
      const { rows } = await admin.query<{ n: number }>(
        `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
         where application_name = $1 or application_name = $2`,
        [applicationName, `loupe-feed ${schema}`.slice(0, 63)],
      )
      return rows[0]?.n ?? 0
    }

    const statuses = new Map<number, number>()
    const problems: string[] = []
    const acknowledged = new Set<string>()
    let stop = false
    let sent = 0
    const record = async (res: Response, what: string) => {
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
      if (res.status >= 500) {
        const body = (await res.json()) as { code?: string }
        if (res.status !== 503) problems.push(`${what}: ${res.status} ${JSON.stringify(body)}`)
        else if (!res.headers.get('retry-after') || !body.code) problems.push(`${what}: 503 without Retry-After/code`)
      } else await res.arrayBuffer()
      return res.status
    }
    const writer = async (w: number) => {
      while (!stop) {
        const ids = Array.from({ length: BATCH }, () => `w${w}-${sent++}`)
        const res = await fetch(`${base}/traces/batch`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            traces: ids.map((id) => ({ trace_id: id, prompt: id, latency: 12.5, token_count: 3 })),
          }),
        }).catch((err: Error) => {
          problems.push(`writer: ${err.message}`)
          return null
        })
        if (res && (await record(res, 'POST /traces/batch')) === 200) for (const id of ids) acknowledged.add(id)
      }
    }
    const reader = async (r: number) => {
      const paths = ['/traces?limit=20', '/analytics', '/failures', `/traces/w0-${r}`, '/api-keys']
      for (let i = 0; !stop; i++) {
        const path = paths[i % paths.length]!
        const res = await fetch(base + path).catch((err: Error) => {
          problems.push(`reader: ${err.message}`)
          return null
        })
        if (res) await record(res, `GET ${path}`)
      }
    }
    let kills = 0
    const chaos = (async () => {
      while (!stop) {
        kills += await terminate()
        await new Promise((resolve) => setTimeout(resolve, KILL_EVERY_MS))
      }
    })()
    const load = [
      ...Array.from({ length: WRITERS }, (_, i) => writer(i)),
      ...Array.from({ length: READERS }, (_, i) => reader(i)),
    ]
    await new Promise((resolve) => setTimeout(resolve, LOAD_MS))
    stop = true
    await Promise.all([...load, chaos])

    t.ok(kills >= 10, `${kills} backends terminated`)
    t.same(problems, [], 'no 500, no lost connection to Loupe itself; every 503 says when to retry and why')
    t.ok((statuses.get(503) ?? 0) > 0, `some requests met the outage: ${JSON.stringify([...statuses])}`)
    t.ok(acknowledged.size > 0, `${acknowledged.size} traces acknowledged during the outages`)

    // Recovery by itself, within seconds.
    const started = Date.now()
    await waitFor(async () => (await fetch(`${base}/health`)).status === 200, 10_000, 'the store answers again')
    const health = await fetch(`${base}/traces?limit=1`)
    t.equal(health.status, 200, `recovered in ${Date.now() - started} ms`)

    // Every acknowledged trace exactly once; the rollups equal a recount.
    const { rows } = await admin.query<{ trace_id: string; n: number }>(
      `select trace_id, count(*)::int as n from ${schema}.traces group by trace_id`,
    )
    const stored = new Map(rows.map((r) => [r.trace_id, r.n]))
    t.same(
      [...acknowledged].filter((id) => stored.get(id) !== 1),
      [],
      'every acknowledged trace is stored once',
    )
    const { summary } = await app.store.traces.analytics({ now: Date.now(), slowThresholdMs: 5000 })
    t.equal(summary.total_traces, rows.length, 'rollups count what is stored')
    t.equal(summary.total_token_usage, rows.length * 3, 'token sum is a recount')

    // The replica feed reconnected: a trace another replica stores now is announced here, once.
    const other = await createPostgresStore(withSchema(url, schema), { poolSize: 1 })
    t.teardown(() => other.close())
    const project = (await app.store.projects.list())[0]!
    const late = `late-${randomBytes(3).toString('hex')}`
    const trace: Trace = {
      ...((await app.store.traces.list({}, { limit: 1, offset: 0 })).items[0] as Trace),
      trace_id: late,
      project_id: project.project_id,
      steps: [],
    }
    await other.traces.insert([unreported(trace)])
    await waitFor(() => announced.get(late) === 1, 10_000, 'the trace of another replica is announced')
    t.equal(announced.get(late), 1)
  },
)
