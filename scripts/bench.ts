// npm run bench: the project's one benchmark. Seeds (or re-uses) a database of N traces, starts the real server,
// drives it with autocannon in a separate process, and prints every figure beside its floor measured in the same
// run on the same machine: a bare Fastify route, raw better-sqlite3 batched inserts, and naive SQL analytics.
//
//   npm run bench                      1,000,000 traces, 10 s per load run
//   npm run bench -- --traces 200000 --duration 5
//   npm run bench -- --tiny            5,000 traces, 1 s per run (what CI runs, so the harness never rots)
//   npm run bench -- --store postgres --database postgres://user@host:5432/loupe_bench
//                                      the same on PostgreSQL (that database is seeded once; each run works on a copy)
//   npm run bench -- --only reads,search  only these groups of rows (reads, search, ingest, scores, evaluators,
//                                      fanout, viewer, burst, lifecycle, datasets), to measure one change without the whole run
import { execFileSync, spawn } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import WebSocket from 'ws'
import { LIMITS } from '../schemas/index.js'
import { annotationNext } from './bench-annotation.js'
import { datasetRows } from './bench-datasets.js'
import { evaluatorRows } from './bench-evaluators.js'
import {
  autocannon,
  fetch,
  freePort,
  type LoadResult,
  peakRssMb,
  percentile,
  syntheticInput,
  waitFor,
} from './bench-harness.js'
import { burstFanout, concurrentSingleIngest, fanout, otlpIngest } from './bench-ingest.js'
import { dataLifecycleRows } from './bench-lifecycle.js'
import {
  args,
  BURST_TRACES,
  CONNECTIONS,
  DURATION,
  FANOUT_EVENTS,
  FLOOR_INSERT_ROWS,
  GROUPS,
  only,
  postgres,
  root,
  say,
  seededPath,
  TRACES,
  tiny,
  wants,
  workPath,
} from './bench-options.js'
import { bigTraces, searchFirstAsk } from './bench-reads.js'
import { scoreRows } from './bench-scores.js'
import { ensureSeeded, floorInserts, floorNaiveSearch, floorNaiveSql, searchStorage } from './bench-sqlite.js'
import { type BenchRow, benchViewer } from './bench-viewer.js'

async function main() {
  // --no-build measures what was built last: refused when what it is built from changed since, so that no figure is
  // taken of code other than what is checked out.
  if (args['no-build'] === true) {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--check'], { stdio: 'inherit' })
  }
  if (postgres) await postgres.ensureSeeded(TRACES)
  else {
    await ensureSeeded()
    copyFileSync(seededPath, workPath)
    for (const suffix of ['-wal', '-shm']) rmSync(`${workPath}${suffix}`, { force: true })
  }
  const databaseUrl = postgres ? await postgres.createWork() : workPath
  if (args['no-build'] !== true) execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' })

  const slowMs = 5000
  const rows: BenchRow[] = []
  const fmt = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

  // Floor 1: bare Fastify.
  const floorPort = await freePort()
  const floorServer = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'bench-floor-server.ts')], {
    env: { ...process.env, PORT: String(floorPort) },
    stdio: 'ignore',
  })
  await waitFor(`http://127.0.0.1:${floorPort}/floor`, floorServer)
  const bare = autocannon(`http://127.0.0.1:${floorPort}/floor`, { pid: floorServer.pid })
  floorServer.kill()
  say(`floor: bare Fastify ${fmt(bare.rps)} req/s`)

  // Floor 2: raw batched inserts; floor 3: naive SQL.
  const rawInsert = !wants('ingest')
    ? Number.NaN
    : postgres
      ? await postgres.floorInserts(FLOOR_INSERT_ROWS, syntheticInput)
      : floorInserts()
  if (wants('ingest'))
    say(`floor: raw ${postgres ? 'node-postgres' : 'better-sqlite3'} inserts ${fmt(rawInsert)} rows/s`)

  // The real server.
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const server = spawn(process.execPath, [join(root, 'dist', 'src', 'server.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      INGEST_RATE_LIMIT: '0',
      RATE_LIMIT: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  // However the run ends (a failure included), its server ends with it instead of staying behind on its port.
  process.once('exit', () => server.kill('SIGKILL'))
  await waitFor(`${base}/`, server)
  const created = (await (
    await fetch(`${base}/projects?name=bench-${Date.now()}&environment=production`, { method: 'POST' })
  ).json()) as {
    project: { project_id: string }
    api_key: { key: string }
  }
  const key = created.api_key.key
  const analytics = (await (await fetch(`${base}/analytics`)).json()) as {
    model_breakdown: { key: string }[]
    project_breakdown: { key: string }[]
  }
  const topProject = analytics.project_breakdown[0]?.key ?? created.project.project_id
  const topModel = analytics.model_breakdown[0]?.key ?? 'gpt-4o'
  const sample = (
    (await (await fetch(`${base}/traces?limit=1&project_id=${topProject}`)).json()) as {
      items: { trace_id: string; session_id: string | null; user_id: string | null }[]
    }
  ).items[0]

  // Latency goals are read with one connection (a request's own time, no queueing behind others); throughput
  // with CONNECTIONS, as the bare-Fastify floor is.
  const cpuRatio = (ours: LoadResult) =>
    bare.cpuUs && ours.cpuUs ? ` (${fmt((100 * bare.cpuUs) / ours.cpuUs)}% by CPU per request)` : ''
  /** A GET, or the request given (`post`: an MCP message), measured for latency and for throughput. */
  const read = (
    what: string,
    path: string,
    goal: string,
    floorMs?: number,
    post?: { body: string; headers: string[] },
  ) => {
    const request = post ? { method: 'POST', ...post } : {}
    const lat = autocannon(`${base}${path}`, { connections: 1, ...request })
    const thr = autocannon(`${base}${path}`, { pid: server.pid, ...request })
    const errors = lat.errors + thr.errors
    say(`${what}: p50 ${lat.p50} ms p99 ${lat.p99} ms; ${fmt(thr.rps)} req/s${errors ? ` (${errors} errors)` : ''}`)
    rows.push({
      what,
      result: `p50 ${lat.p50} ms · p99 ${lat.p99} ms · ${fmt(thr.rps)} req/s · ${fmt(thr.cpuUs ?? 0)} µs CPU/req${errors ? ` · ${errors} errors` : ''}`,
      floor:
        floorMs !== undefined
          ? `naive SQL ${fmt(floorMs, 1)} ms`
          : `bare Fastify ${fmt(bare.rps)} req/s · ${fmt(bare.cpuUs ?? 0)} µs CPU/req`,
      ratio:
        floorMs !== undefined
          ? `${fmt(floorMs / Math.max(lat.p50, 0.01), 1)}× faster`
          : `${fmt((100 * thr.rps) / bare.rps)}% of floor${cpuRatio(thr)}`,
      goal,
    })
  }
  if (wants('reads')) {
    const naive = postgres ? await postgres.floorNaiveSql(topProject, slowMs) : floorNaiveSql(topProject, slowMs)
    say(`floor: naive SQL analytics ${fmt(naive.analyticsAll, 1)} ms, p95 ${fmt(naive.p95All, 1)} ms`)
    const since = new Date(Date.now() - 3_600_000).toISOString()
    read('GET /traces (no filter)', '/traces', 'p50 ≤ 5 ms')
    read('GET /traces?status=failed', '/traces?status=failed', 'p50 ≤ 5 ms')
    read(`GET /traces?model=${topModel}`, `/traces?model=${encodeURIComponent(topModel)}`, 'p50 ≤ 5 ms')
    read('GET /traces?project_id=…', `/traces?project_id=${topProject}`, 'p50 ≤ 5 ms')
    read('GET /traces?min_latency=5000', '/traces?min_latency=5000', 'p50 ≤ 5 ms')
    read('GET /traces?max_tokens=200', '/traces?max_tokens=200', 'p50 ≤ 5 ms')
    if (sample?.session_id)
      read('GET /traces?session_id=…', `/traces?session_id=${encodeURIComponent(sample.session_id)}`, 'p50 ≤ 5 ms')
    if (sample?.user_id)
      read('GET /traces?user_id=…', `/traces?user_id=${encodeURIComponent(sample.user_id)}`, 'p50 ≤ 5 ms')
    read('GET /traces?since=1h ago', `/traces?since=${since}`, 'p50 ≤ 5 ms')
    read(`GET /traces?offset=${Math.floor(TRACES / 2)}`, `/traces?offset=${Math.floor(TRACES / 2)}`, '—')
    if (sample) read('GET /traces/{id}', `/traces/${sample.trace_id}`, '≥ 60% of floor')
    read('GET /analytics', '/analytics', 'p50 ≤ 20 ms', naive.analyticsAll + naive.p95All)
    read(
      'GET /analytics?project_id=…',
      `/analytics?project_id=${topProject}`,
      'p50 ≤ 20 ms',
      naive.analyticsProject + naive.p95Project,
    )
    read('GET /failures', '/failures', '—')
    rows.push(await annotationNext(base, topProject, TRACES))
    const big = await bigTraces(base, key)
    rows.push(big.row)
    read(`GET /traces/{id} (${LIMITS.steps} steps)`, `/traces/${big.id}`, '—')

    // Costs, sorting and deep paging, sessions and users, full-text search.
    read('GET /traces?sort=cost', '/traces?sort=cost', '—')
    read('GET /traces?min_cost=0.01', '/traces?min_cost=0.01', 'p50 ≤ 5 ms')
    const deep = (await (
      await fetch(`${base}/traces?sort=latency&limit=1000&offset=${Math.min(100_000, Math.floor(TRACES / 2))}`)
    ).json()) as { next_cursor: string | null }
    if (deep.next_cursor) {
      read(
        'GET /traces?sort=latency&cursor=(deep)',
        `/traces?sort=latency&cursor=${deep.next_cursor}`,
        'constant per page',
      )
    }
    read('GET /sessions', '/sessions', 'p50 ≤ 10 ms')
    read('GET /users', '/users', 'p50 ≤ 10 ms')
    if (sample?.session_id) {
      read('GET /sessions/{id}', `/sessions/${encodeURIComponent(sample.session_id)}`, 'p50 ≤ 10 ms')
    }
    // What a coding assistant asks first: an MCP tools/call of search_traces, one stateless POST /mcp.
    read('POST /mcp tools/call search_traces (status=failed)', '/mcp', 'p50 ≤ 20 ms', undefined, {
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search_traces', arguments: { status: 'failed' } },
      }),
      headers: ['content-type=application/json', 'accept=application/json, text/event-stream'],
    })
  }
  if (wants('search')) {
    // A rare word (one small-talk prompt of ten, in German) and a common one; the rare one also by cost, whose index
    // holds the German prompts far from its top.
    for (const [label, word, sort] of [
      ['rare', 'können', ''],
      ['common', 'the', ''],
      ['rare, by cost', 'können', '&sort=cost'],
    ] as const) {
      // The light list, as the viewer asks: the 1000-step traces posted above are the newest and hold "the", and whole
      // they would make this row a measure of 50 × 1000 steps of JSON instead of the search.
      read(
        `GET /traces?q=${word}${sort}&limit=50&fields=summary (${label})`,
        `/traces?q=${encodeURIComponent(word)}${sort}&limit=50&fields=summary`,
        'p50 ≤ 50 ms',
        postgres ? await postgres.floorNaiveSearch(word, 50) : floorNaiveSearch(word, 50),
      )
    }
    rows.push(
      await searchFirstAsk(base, postgres ? await postgres.floorNaiveSearch('and', 50) : floorNaiveSearch('and', 50)),
    )
    const storage = postgres ? await postgres.searchStorage() : searchStorage()
    if (storage) {
      rows.push({
        what: 'full-text index on disk',
        result: `${fmt(storage.search / 1e6)} MB`,
        floor: `traces table ${fmt(storage.traces / 1e6)} MB`,
        ratio: `+${fmt((100 * storage.search) / Math.max(storage.traces, 1))}%`,
        goal: '—',
      })
    }
  }

  // Ingest, with /ws clients connected and reading.
  if (wants('ingest')) {
    const listeners = Array.from({ length: 10 }, () => new WebSocket(`${base.replace('http', 'ws')}/ws`))
    await Promise.all(listeners.map((s) => new Promise((r) => s.once('open', r))))
    const headers = ['content-type=application/json', `authorization=Bearer ${key}`]
    // The raw floor runs on one core at 100%: its CPU per row is 1e6 / rows per second.
    const insertCpuRatio = (cpuPerTrace?: number) =>
      cpuPerTrace ? ` (${fmt((100 * (1e6 / rawInsert)) / cpuPerTrace)}% by CPU per trace)` : ''
    const one = autocannon(`${base}/traces`, {
      method: 'POST',
      headers,
      body: JSON.stringify(syntheticInput(1)),
      pid: server.pid,
    })
    rows.push({
      what: 'POST /traces (10 /ws clients)',
      result: `${fmt(one.rps)} traces/s · p50 ${one.p50} ms · p99 ${one.p99} ms${one.errors ? ` · ${one.errors} errors` : ''}`,
      floor: `raw inserts ${fmt(rawInsert)} rows/s`,
      ratio: `${fmt((100 * one.rps) / rawInsert)}% of floor${insertCpuRatio(one.cpuUs)}`,
      goal: '—',
    })
    const batchBody = JSON.stringify({ traces: Array.from({ length: 100 }, (_, i) => syntheticInput(i)) })
    const batch = autocannon(`${base}/traces/batch`, { method: 'POST', headers, body: batchBody, pid: server.pid })
    rows.push({
      what: 'POST /traces/batch ×100 (10 /ws clients)',
      result: `${fmt(batch.rps * 100)} traces/s · p50 ${batch.p50} ms · p99 ${batch.p99} ms${batch.errors ? ` · ${batch.errors} errors` : ''}`,
      floor: `raw inserts ${fmt(rawInsert)} rows/s`,
      ratio: `${fmt((100 * batch.rps * 100) / rawInsert)}% of floor${insertCpuRatio(batch.cpuUs === undefined ? undefined : batch.cpuUs / 100)}`,
      goal: '≥ 60% of floor',
    })
    rows.push(concurrentSingleIngest(base, headers, server.pid, batch.rps * 100))
    rows.push(await otlpIngest(base, server.pid!, rawInsert))
    say(`ingest: ${fmt(one.rps)} traces/s single, ${fmt(batch.rps * 100)} traces/s batched`)
    for (const s of listeners) s.terminate()
  }

  // Scores: the batch door beside the traces', then one score a trace and the reads they feed.
  if (wants('scores')) rows.push(...(await scoreRows(base, key, topProject, server.pid!, read, say)))

  // Evaluators: on servers of their own, with a fake judge.
  if (wants('evaluators')) rows.push(...(await evaluatorRows(say)))
  if (wants('datasets')) rows.push(...(await datasetRows(base, topProject, TRACES)))

  if (wants('fanout')) {
    const fan = await fanout(base, key)
    const expected = FANOUT_EVENTS * fan.connected
    rows.push({
      what: `trace.created → ${fan.connected} sockets`,
      result: `from send p50 ${fmt(percentile(fan.fromSend, 50), 1)} ms · p99 ${fmt(percentile(fan.fromSend, 99), 1)} ms; after ack p99 ${fmt(percentile(fan.fromAck, 99), 1)} ms · ${fmt(fan.fromSend.length)}/${fmt(expected)} received`,
      floor: '—',
      ratio: '—',
      goal: 'p99 ≤ 50 ms',
    })
    say(
      `fan-out: p99 ${fmt(percentile(fan.fromSend, 99), 1)} ms from send, ${fan.fromSend.length}/${expected} received`,
    )
  }

  const rss = peakRssMb(server.pid!)
  rows.push({ what: 'server peak RSS', result: `${fmt(rss)} MB`, floor: '—', ratio: '—', goal: '≤ 256 MB' })

  // The viewer, in headless Chromium, on the same database. A failure there is reported, and the run goes on.
  if (wants('viewer'))
    try {
      rows.push(...(await benchViewer(base, key, created.project.project_id, say)))
    } catch (err) {
      say(`viewer: not measured: ${(err as Error).message}`)
      rows.push({
        what: 'viewer',
        result: `not measured: ${(err as Error).message}`,
        floor: '—',
        ratio: '—',
        goal: '—',
      })
    }

  if (wants('burst')) {
    const burst = await burstFanout(base, key, server.pid!)
    const everyEvent = burst.delivered.complete === burst.ready
    rows.push({
      what: `burst: ${fmt(BURST_TRACES)} traces in one batch → ${fmt(burst.ready)} sockets`,
      result:
        `batch answered in ${fmt(burst.ackMs)} ms; all delivered in ${fmt(burst.delivered.ms)} ms; ` +
        `${fmt(burst.delivered.complete)}/${fmt(burst.ready)} sockets got all ${fmt(BURST_TRACES)} ` +
        `(${fmt(burst.delivered.received)} frames${burst.delivered.dropped ? `, ${burst.delivered.dropped} dropped` : ''}); ` +
        `/health meanwhile: ${fmt(burst.health.requests)} answers, longest ${fmt(burst.health.maxMs)} ms, p99 ${fmt(burst.health.p99Ms)} ms`,
      floor: '—',
      ratio: everyEvent ? 'every socket, every event' : 'MISSED: some sockets lacked events',
      goal: '/health ≤ 100 ms; every event to every socket',
    })
    rows.push({
      what: 'burst: server memory',
      result:
        `RSS ${fmt(burst.before)} MB before, ${fmt(burst.peak)} MB after delivery, ${fmt(burst.back)} MB ` +
        `${fmt(burst.backMs / 1000, 1)} s after the sockets closed`,
      floor: `before: ${fmt(burst.before)} MB`,
      ratio: `+${fmt(burst.back - burst.before)} MB`,
      goal: 'within 64 MB of before, within 10 s',
    })
    say(
      `burst: ${burst.delivered.complete}/${burst.ready} sockets complete, /health max ${burst.health.maxMs} ms, ` +
        `RSS ${fmt(burst.before)} → ${fmt(burst.peak)} → ${fmt(burst.back)} MB`,
    )
  }
  // As with the viewer: a failure there (an export cut short, say) is reported, and the run goes on to its table.
  if (wants('lifecycle'))
    try {
      rows.push(...(await dataLifecycleRows(base, server.pid!)))
    } catch (err) {
      say(`export and deletion: not measured: ${(err as Error).message}`)
      rows.push({
        what: 'export and deletion',
        result: `not measured: ${(err as Error).message}`,
        floor: '—',
        ratio: '—',
        goal: '—',
      })
    }
  if (server.exitCode === null && server.signalCode === null) {
    server.kill('SIGTERM')
    await new Promise((r) => server.once('exit', r))
  } else {
    say(`the server had ended (${server.exitCode ?? server.signalCode}) before the end of the run`)
  }

  const date = new Date().toISOString().slice(0, 10)
  const header = [
    `# Loupe benchmark, ${date}`,
    '',
    `${postgres ? 'PostgreSQL' : 'SQLite'}; ${TRACES.toLocaleString('en-US')} traces stored; ${DURATION} s per load run (autocannon, separate process): p50/p99 with 1 connection, req/s (2xx answers only; the rest are errors) with ${CONNECTIONS};`,
    `Node ${process.version}, ${(await import('node:os')).cpus().length} cores. Ratios are to floors measured in this same run.`,
    ...(only.length < GROUPS.length ? [`Only these groups of rows were measured: ${only.join(', ')}.`] : []),
    '',
    '| measurement | result | floor (same run) | ratio | goal |',
    '|---|---|---|---|---|',
  ]
  const table = [
    ...header,
    ...rows.map((r) => `| ${r.what} | ${r.result} | ${r.floor} | ${r.ratio} | ${r.goal} |`),
  ].join('\n')
  say(`\n${table}\n`)
  // A day's first run takes the day's name; a later one of the same day its own (-2, -3, …), so that no run writes over
  // results already written (and perhaps committed) that day.
  const dated = (n: number) =>
    join(root, 'bench', 'results', `${date}${postgres ? '-postgres' : ''}${n === 1 ? '' : `-${n}`}.md`)
  let n = 1
  while (!tiny && args.out === undefined && existsSync(dated(n))) n++
  const out =
    args.out ?? (tiny ? join(tmpdir(), `loupe-bench-tiny-${date}${postgres ? '-postgres' : ''}.md`) : dated(n))
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, `${table}\n`)
  say(`written to ${out}`)
  if (postgres) await postgres.dropWork()
  rmSync(workPath, { force: true })
  for (const suffix of ['-wal', '-shm']) rmSync(`${workPath}${suffix}`, { force: true })
}

await main()
