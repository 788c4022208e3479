// startServer as `npm start` and `loupe serve` run it: it listens, prints a short banner for people (version,
// database, open or protected mode, the URLs), and writes no log line per request at the default level.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { defaultConfig } from '../src/config.js'
import { version } from '../src/lib/version.js'
import { startServer } from '../src/server.js'
import { scratchDatabase, waitFor } from './helper.js'

const root = fileURLToPath(new URL('../', import.meta.url))

t.test('the banner names the version, the database, the mode and the URLs', async (t) => {
  const texts: string[] = []
  const adminToken = 'a-protected-token-0123456789'
  const app = await startServer(
    { ...defaultConfig(), port: 0, databaseUrl: ':memory:', adminToken },
    { logger: false, announce: (text) => texts.push(text) },
  )
  t.teardown(() => app.close())
  const port = (app.server.address() as { port: number }).port
  const text = texts.join('')
  t.match(text, new RegExp(`^Loupe ${version.replace(/\./g, '\\.')} is listening`))
  t.match(text, /database {2}SQLite, in memory/)
  t.match(text, /mode {6}protected: every data route needs the admin token or a project key/)
  t.match(text, new RegExp(`API {7}http://127\\.0\\.0\\.1:${port}/\\n`))
  t.match(text, new RegExp(`docs {6}http://127\\.0\\.0\\.1:${port}/docs\\n`))
  t.match(text, new RegExp(`live {6}ws://127\\.0\\.0\\.1:${port}/ws\\n`))
  t.notMatch(text, adminToken, 'never the token')
})

t.test('npm start: the banner on stderr, the file it opened, open mode, and no log line per request', async (t) => {
  const database = scratchDatabase(t, 'server')
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: database,
    LOG_LEVEL: 'info',
    // What is tested is the log; on a machine busy with other work the event-loop guard would answer 503 and log it.
    MAX_EVENT_LOOP_DELAY_MS: '0',
  }
  delete env.LOUPE_ADMIN_TOKEN
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/server.ts')], { cwd: root, env })
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  await waitFor(() => /live {6}ws:/.test(stderr), 60_000)
  t.match(stderr, new RegExp(`database {2}SQLite, ${database.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\n`))
  t.match(stderr, /mode {6}open: reads and management need no credential/)
  const api = /API {7}(\S+)/.exec(stderr)?.[1] as string
  for (let i = 0; i < 5; i++) t.equal((await fetch(`${api}traces`)).status, 200)
  await new Promise((resolve) => setTimeout(resolve, 300))
  // Other lines may come (the viewer's address, a warning on a loaded machine); none is about a request.
  const requestLines = stdout.split('\n').filter((line) => line.includes('"reqId"'))
  t.same(requestLines, [], 'five requests, no log line about them at the default level')
  child.kill('SIGTERM')
  await new Promise((resolve) => child.once('exit', resolve))
  t.equal(child.exitCode ?? 0, 0, 'stops cleanly on SIGTERM')
})
