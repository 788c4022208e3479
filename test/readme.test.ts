// The README's SDK examples run as written (only the import points at the source) against a real server.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t, { type Test } from 'tap'
import { Loupe } from '../src/client/index.js'
import { startTestServer } from './helper.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../', import.meta.url))
const readme = readFileSync(join(root, 'README.md'), 'utf8')
const sdk = new URL('../src/client/index.ts', import.meta.url).href

/** The first ```js block after `marker` in the README. */
function codeAfter(marker: string): string {
  const start = readme.indexOf(marker)
  if (start < 0) throw new Error(`README has no "${marker}"`)
  const match = /```js\n([\s\S]*?)```/.exec(readme.slice(start))
  if (!match?.[1]) throw new Error(`README has no js block after "${marker}"`)
  return match[1]
}

async function runModule(t: Test, code: string, env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-readme-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'app.mjs')
  writeFileSync(file, code.replaceAll("'loupe/client'", `'${sdk}'`))
  return run(process.execPath, ['--import', 'tsx', file], {
    cwd: root,
    env: { ...process.env, ...env },
    timeout: 20_000,
  })
}

t.test('"Record traces from your app": the ten-line example records its trace', async (t) => {
  const { app, url } = await startTestServer(t)
  const admin = new Loupe({ baseUrl: url, enabled: false })
  const { api_key } = await admin.projects.create({ name: 'My App', environment: 'development' })
  const code = codeAfter('README-SDK-EXAMPLE')
  t.ok(code.trim().split('\n').length <= 12, 'about ten lines')
  const { stdout } = await runModule(t, code, { LOUPE_BASE_URL: url, LOUPE_API_KEY: api_key.key })
  t.equal(stdout, 'Your order has shipped.\n')
  const { items } = (await app.inject({ url: '/traces', query: { project_id: 'my-app' } })).json()
  t.match(items, [
    {
      name: 'answer_question',
      model: 'gpt-4o',
      prompt: 'Where is my order?',
      response: 'Your order has shipped.',
      token_count: 54,
      status: 'success',
      steps: [{ name: 'lookup', type: 'tool', tool: 'order_lookup', output: { status: 'shipped' } }],
    },
  ])
})

t.test('"Reading back": the read-client example runs against a project with a failure', async (t) => {
  const { url } = await startTestServer(t)
  const admin = new Loupe({ baseUrl: url, enabled: false })
  const { api_key } = await admin.projects.create({ name: 'Support Bot', environment: 'production' })
  const writer = new Loupe({ baseUrl: url, apiKey: api_key.key })
  await writer.trace({ name: 'refund', prompt: 'p' }, () => Promise.reject(new Error('tool down'))).catch(() => {})
  await writer.shutdown()
  const prelude = `import { Loupe } from 'loupe/client'\nconst loupe = new Loupe()\n`
  const code = `${prelude}${codeAfter('**Reading back.**')}console.log(total, trace.status, summary.failed_traces, totals.failed_traces)\n`
  const { stdout } = await runModule(t, code, { LOUPE_BASE_URL: url })
  t.equal(stdout.trim().split('\n').at(-1), '1 failed 1 1')
})
