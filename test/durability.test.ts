// Durability: the real server (src/server.ts in its own process) on a SQLite file takes traces from several concurrent
// clients, is killed with SIGKILL mid-stream, and is restarted on the same file. Every trace that was answered 2xx is
// there exactly once with all its steps, the rollups equal a recount of the traces, and PRAGMA integrity_check is ok.
// The same kill in the middle of evaluations loses no evaluation job and records no verdict twice.
import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import t from 'tap'
import { packageRoot } from '../src/lib/paths.js'
import { openDatabase } from '../src/store/sqlite/driver.js'
import { startFakeJudge } from './evaluators/fake-judge.js'
import { scratchDatabase } from './helper.js'

const CLIENTS = 6
const KILL_AFTER_ACKS = 1500
const STEPS = 3

interface Server {
  child: ChildProcess
  base: string
  exited: Promise<number | null>
}

/** Starts `node --import tsx src/server.ts` on the file (more settings in `env`); resolves once it listens. */
function startServer(databaseUrl: string, env: Record<string, string> = {}): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(packageRoot(), 'src', 'server.ts')], {
    cwd: packageRoot(),
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'info',
      RATE_LIMIT: '0',
      INGEST_RATE_LIMIT: '0',
      ...env,
      // A busy test machine must not turn the clients' requests into 503s (the overload guard has its own test).
      MAX_EVENT_LOOP_DELAY_MS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    // A bound, not a goal: a restart after SIGKILL recovers the log first, and a busy machine compiles slowly.
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error('the server did not start within 60 s'))
    }, 60_000)
    let out = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (match) {
        clearTimeout(timer)
        resolve({ child, base: match[1]!, exited })
      }
    })
    child.stderr!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
    })
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the server exited with ${code}: ${out.slice(-2000)}`))
    })
  })
}

const trace = (id: string) => ({
  trace_id: id,
  prompt: `prompt of ${id}`,
  response: 'ok',
  model: ['gpt-4o', 'claude', 'llama'][id.length % 3],
  steps: Array.from({ length: STEPS }, (_, i) => ({
    tool: i < 2 ? 'search' : 'answer',
    duration_ms: 10 + i,
    status: i === 0 ? 'error' : 'ok',
  })),
})

t.test(
  'SIGKILL during concurrent ingest loses no acknowledged trace and corrupts nothing',
  { timeout: 180_000 },
  async (t) => {
    const file = scratchDatabase(t, 'durability')

    const first = await startServer(file)
    t.teardown(() => first.child.kill('SIGKILL'))
    const created = await fetch(`${first.base}/projects?name=Durable&environment=production`, { method: 'POST' })
    const key = ((await created.json()) as { api_key: { key: string } }).api_key.key
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }

    const acked = new Set<string>()
    let killed = false
    let ackedAtKill = 0
    const killedPromise = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (acked.size >= KILL_AFTER_ACKS) {
          clearInterval(check)
          ackedAtKill = acked.size
          first.child.kill('SIGKILL')
          killed = true
          resolve()
        }
      }, 5)
    })

    /** One client: single traces and batches of 10, alternately, recording the ids of every 2xx. */
    async function client(c: number) {
      for (let n = 0; !killed; n++) {
        const batch = n % 2 === 1
        const ids = batch ? Array.from({ length: 10 }, (_, i) => `c${c}-${n}-${i}`) : [`c${c}-${n}`]
        try {
          const res = await fetch(`${first.base}${batch ? '/traces/batch' : '/traces'}`, {
            method: 'POST',
            headers,
            body: JSON.stringify(batch ? { traces: ids.map(trace) } : trace(ids[0]!)),
          })
          if (res.status >= 200 && res.status < 300) {
            const body = (await res.json()) as { items?: { trace_id: string }[]; trace_id?: string }
            for (const id of body.items?.map((i) => i.trace_id) ?? [body.trace_id!]) acked.add(id)
          } else if (!killed) {
            throw new Error(`client ${c}: ${res.status} ${await res.text()}`)
          }
        } catch (err) {
          if (!killed) throw err
        }
      }
    }
    await Promise.all([...Array.from({ length: CLIENTS }, (_, c) => client(c)), killedPromise])
    t.equal(await first.exited, null, 'the server died of SIGKILL, not an exit')
    t.ok(ackedAtKill >= KILL_AFTER_ACKS, `killed with ${ackedAtKill} traces acknowledged, requests still in flight`)
    const acknowledged = [...acked]

    const second = await startServer(file)
    t.teardown(() => second.child.kill('SIGKILL'))

    // Every acknowledged trace: re-sending it is a 200 "already stored", never a 201 (so it is there, and only once).
    let present = 0
    for (let i = 0; i < acknowledged.length; i += 500) {
      const slice = acknowledged.slice(i, i + 500)
      const res = await fetch(`${second.base}/traces/batch`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ traces: slice.map(trace) }),
      })
      const body = (await res.json()) as { accepted: number; items: { trace_id: string }[]; rejected: unknown[] }
      t.equal(body.rejected.length, 0)
      present += body.accepted
    }
    t.equal(present, acknowledged.length, 'each acknowledged trace was accepted on re-send')
    for (const id of acknowledged.filter((_, i) => i % 50 === 0)) {
      const res = await fetch(`${second.base}/traces/${id}`)
      const stored = (await res.json()) as { steps: unknown[]; retry_count: number; status: string }
      t.equal(res.status, 200)
      t.equal(stored.steps.length, STEPS, `${id}: all its steps`)
      t.equal(stored.retry_count, 1)
    }

    second.child.kill('SIGTERM')
    await second.exited
    const db = openDatabase(file, { readonly: true })
    t.teardown(() => db.close())
    t.equal(db.pragma('integrity_check', { simple: true }), 'ok', 'PRAGMA integrity_check')
    const ids = new Set(
      (db.prepare('select trace_id from traces').all() as { trace_id: string }[]).map((r) => r.trace_id),
    )
    t.equal(acknowledged.filter((id) => !ids.has(id)).length, 0, 'no acknowledged trace is missing')
    t.ok(
      ids.size >= acknowledged.length,
      `${ids.size} traces stored (${ids.size - acknowledged.length} were in flight, unacknowledged)`,
    )

    // The rollups were written in the same transactions: a recount of the traces agrees, group by group.
    const recount = db
      .prepare(
        `select project_id, environment, coalesce(model, 'unknown') as model, status, count(*) as traces,
              sum(retry_count > 0) as retries, sum(token_count) as tokens,
              sum(cast(round(latency * 1000) as integer)) as latency_us
         from traces group by 1, 2, 3, 4 order by 1, 2, 3, 4`,
      )
      .all()
    const rolled = db
      .prepare(
        `select project_id, environment, model, status, traces, retries,
              tokens_hi * 1000000 + tokens_lo as tokens, latency_hi * 1000000 + latency_lo as latency_us
         from rollup_totals where traces > 0 order by 1, 2, 3, 4`,
      )
      .all()
    t.strictSame(rolled, recount, 'rollup_totals equal a recount of the traces table')
    const hourly = db.prepare('select sum(traces) as n from rollup_hourly').get() as { n: number }
    const latency = db.prepare('select sum(traces) as n from latency_histogram').get() as { n: number }
    t.equal(hourly.n, ids.size, 'rollup_hourly counts every trace')
    t.equal(latency.n, ids.size, 'latency_histogram counts every trace')
  },
)

t.test(
  'SIGKILL in the middle of evaluations loses no job and records no verdict twice',
  { timeout: 240_000 },
  async (t) => {
    const TRACES = 120
    const judge = await startFakeJudge(t)
    judge.fallback = { answer: '{"score": 0.5, "reasoning": "fair"}', delayMs: 100 }
    const file = scratchDatabase(t, 'evaluations')
    const env = {
      LOUPE_JUDGE_BASE_URL: judge.url,
      LOUPE_JUDGE_MODEL: 'gpt-4o-mini',
      LOUPE_EVALUATOR_CONCURRENCY: '4',
      LOUPE_EVALUATOR_JUDGE_PER_MINUTE: '100000',
    }
    const first = await startServer(file, env)
    t.teardown(() => first.child.kill('SIGKILL'))
    const created = await fetch(`${first.base}/projects?name=Judged&environment=production`, { method: 'POST' })
    const key = ((await created.json()) as { api_key: { key: string } }).api_key.key
    const json = { 'content-type': 'application/json' }
    const rule = await fetch(`${first.base}/evaluators`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        name: 'helpful',
        score_name: 'helpfulness',
        kind: 'llm_judge',
        config: { template: 'Rate {{response}}' },
      }),
    })
    const ruleId = ((await rule.json()) as { evaluator_id: string }).evaluator_id
    const ids = Array.from({ length: TRACES }, (_, i) => `judged-${i}`)
    const stored = await fetch(`${first.base}/traces/batch`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${key}` },
      body: JSON.stringify({ traces: ids.map(trace) }),
    })
    t.equal(((await stored.json()) as { accepted: number }).accepted, TRACES)
    // Killed while evaluations are under way: some verdicts recorded, some questions in flight, most still waiting.
    while (judge.requests.length < 30) await new Promise((resolve) => setTimeout(resolve, 10))
    first.child.kill('SIGKILL')
    t.equal(await first.exited, null, 'the server died of SIGKILL')
    const askedBefore = judge.requests.length

    const second = await startServer(file, env)
    t.teardown(() => second.child.kill('SIGKILL'))
    type Stats = { evaluated: number; errors: number; pending: number }
    let stats: Stats = { evaluated: 0, errors: 0, pending: 1 }
    for (const deadline = Date.now() + 120_000; stats.pending > 0 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      stats = ((await (await fetch(`${second.base}/evaluators/${ruleId}`)).json()) as { stats: Stats }).stats
    }
    t.match(stats, { evaluated: TRACES, errors: 0, pending: 0 }, 'every job finished once')
    const scores = (await (await fetch(`${second.base}/scores?name=helpfulness&limit=500`)).json()) as {
      total: number
      items: { trace_id: string }[]
    }
    t.equal(scores.total, TRACES, 'one score per trace')
    t.same([...new Set(scores.items.map((s) => s.trace_id))].sort(), [...ids].sort())
    t.ok(
      judge.requests.length >= TRACES && judge.requests.length <= TRACES + askedBefore,
      `the judge was asked ${judge.requests.length} times: only questions in flight at the kill were asked again`,
    )
    second.child.kill('SIGTERM')
    await second.exited
    const db = openDatabase(file, { readonly: true })
    t.teardown(() => db.close())
    t.equal((db.prepare('select count(*) as n from evaluation_jobs').get() as { n: number }).n, 0, 'no job is left')
  },
)
