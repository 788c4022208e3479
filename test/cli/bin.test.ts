// The `loupe` executable as a user runs it, one process per command: exit codes, Ctrl-C, and `loupe serve` stopped
// and started again on the same database while an app keeps recording — every trace arrives exactly once.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { Loupe } from '../../src/client/index.js'
import { scratchDatabase, unusedPort, waitFor } from '../helper.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const bin = ['--import', 'tsx', join(root, 'src/cli/index.ts')]

/** `loupe <argv>` to completion. */
function loupe(argv: string[], env: NodeJS.ProcessEnv = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [...bin, ...argv],
      { cwd: root, env: { ...process.env, ...env }, timeout: 20_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error.code as number) ?? null) : 0, stdout, stderr }),
    )
  })
}

/** A long-running `loupe <argv>`, stopped at the end of the test if still running. */
function start(t: Test, argv: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [...bin, ...argv], { cwd: root, env: { ...process.env, ...env } })
  const output = { stdout: '', stderr: '' }
  child.stdout.on('data', (chunk) => {
    output.stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    output.stderr += chunk
  })
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  return { child, output }
}

async function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode
  const [code] = await once(child, 'exit')
  return code as number | null
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok
  } catch {
    return false
  }
}

t.test('exit codes: 0 for --version, 1 when the server cannot be reached, 2 for wrong usage', async (t) => {
  const version = await loupe(['--version'])
  t.equal(version.code, 0)
  t.equal(version.stdout.trim(), JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version)

  const down = await loupe(['projects', 'list'], { LOUPE_BASE_URL: `http://127.0.0.1:${await unusedPort()}` })
  t.equal(down.code, 1)
  t.match(down.stderr, /^loupe: cannot reach the Loupe server at http:\/\/127\.0\.0\.1:\d+\/ \(connection refused/)

  const wrong = await loupe(['projects', 'create', '--environment', 'production'])
  t.equal(wrong.code, 2)
  t.match(wrong.stderr, /required option '-n, --name <name>' not specified/)
})

t.test('loupe serve restarts on the same database while an app records: every trace arrives once', async (t) => {
  const database = scratchDatabase(t, 'serve')
  const port = await unusedPort()
  const url = `http://127.0.0.1:${port}`
  const serveArgs = ['serve', '--port', String(port), '--database', database, '--log-level', 'info']

  const first = start(t, serveArgs)
  await waitFor(() => answers(url), 45_000, 'loupe serve to answer')
  const created = await loupe(['--url', url, 'projects', 'create', '--name', 'Restart App', '--quiet'])
  t.equal(created.code, 0)
  const app = new Loupe({ baseUrl: url, apiKey: created.stdout.trim(), flushIntervalMs: 50, maxDelayMs: 200 })
  t.teardown(() => app.shutdown({ timeoutMs: 100 }))
  const ids: string[] = []
  const record = async (n: number, phase: string) => {
    for (let i = 0; i < n; i++) {
      await app.trace({ name: `${phase}-${i}`, prompt: 'p' }, (tr) => {
        ids.push(tr.traceId)
      })
    }
  }

  await record(25, 'before')
  t.equal(await app.flush({ timeoutMs: 5000 }), true)
  first.child.kill('SIGTERM')
  t.equal(await exitOf(first.child), 0, 'SIGTERM stops the server cleanly')
  t.match(first.output.stdout, /"shutting down"/)

  await record(25, 'while-down')
  await waitFor(() => app.stats().retries > 0, 5000, 'a failed delivery')
  const second = start(t, serveArgs)
  await record(25, 'restarting')
  await waitFor(() => answers(url), 45_000, 'loupe serve to answer again')
  t.equal(await app.flush({ timeoutMs: 10_000 }), true, 'delivered once the server is back')

  const listed = await loupe(['--url', url, 'traces', 'list', '--project', 'restart-app', '--limit', '1000', '--json'])
  const stored = (JSON.parse(listed.stdout).items as { trace_id: string }[]).map((trace) => trace.trace_id)
  t.equal(stored.length, 75)
  t.same(stored.sort(), [...ids].sort(), 'each recorded trace stored exactly once')
  second.child.kill('SIGTERM')
  t.equal(await exitOf(second.child), 0)
})

t.test('loupe tail stops on Ctrl-C with exit code 0', async (t) => {
  const port = await unusedPort()
  const url = `http://127.0.0.1:${port}`
  start(t, ['serve', '--port', String(port), '--database', ':memory:', '--log-level', 'warn'])
  await waitFor(() => answers(url), 45_000, 'loupe serve to answer')
  const tail = start(t, ['--url', url, 'tail'], { NO_COLOR: '1' })
  await waitFor(() => tail.output.stderr.includes('Following every project'), 15_000, 'tail to connect')
  tail.child.kill('SIGINT')
  t.equal(await exitOf(tail.child), 0)
})
