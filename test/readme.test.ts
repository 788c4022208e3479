// The README's examples run as written against a real server: the SDK examples (only the import points at the source)
// and every curl command of the quick start, whose answers must be what its comments say; the Layout names every
// folder and script.
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import t, { type Test } from 'tap'
import { runCli } from '../src/cli/program.js'
import { Loupe } from '../src/client/index.js'
import { samplePoint } from '../src/evaluators/selection.js'
import { startFakeJudge } from './evaluators/fake-judge.js'
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

t.test('"User feedback from a browser": the fetch sends a thumbs-up with a public key, as feedback', async (t) => {
  const { app, url } = await startTestServer(t)
  const admin = new Loupe({ baseUrl: url, enabled: false })
  const { api_key } = await admin.projects.create({ name: 'Support Bot', environment: 'production' })
  const writer = new Loupe({ baseUrl: url, apiKey: api_key.key })
  let traceId = ''
  await writer.trace({ prompt: 'Where is my order?' }, (tr) => {
    traceId = tr.traceId
    return 'Shipped.'
  })
  await writer.shutdown()
  const { key } = await admin.apiKeys.create({ project_id: 'support-bot', environment: 'production', kind: 'public' })
  const block = codeAfter('README-FEEDBACK-EXAMPLE')
  t.ok(block.trim().split('\n').length <= 5, 'five lines')
  t.ok(block.includes("'https://loupe.example.com/scores'") && block.includes('loupe_pk_…'), 'placeholders as expected')
  const code = `const traceId = ${JSON.stringify(traceId)}\n${block
    .replace('https://loupe.example.com', url)
    .replace('loupe_pk_…', key)}`
  await runModule(t, code, {})
  const { items } = (await app.inject({ url: '/scores', query: { trace_id: traceId } })).json()
  t.match(items, [{ trace_id: traceId, name: 'thumbs', value: 1, source: 'feedback', comment: 'Spot on' }])
})

t.test(
  '"Evaluators on live traffic": the two rules check every trace, the judge a quarter of production',
  async (t) => {
    const judge = await startFakeJudge(t)
    judge.fallback = { answer: '{"score": 0.9, "reasoning": "answers the question"}' }
    const { app, url } = await startTestServer(t, { config: { judgeBaseUrl: judge.url, judgeModel: 'judge-1' } })
    await runModule(t, codeAfter('README-EVALUATORS-EXAMPLE'), { LOUPE_BASE_URL: url })
    const admin = new Loupe({ baseUrl: url, enabled: false })
    const { api_key } = await admin.projects.create({ name: 'Support Bot', environment: 'production' })
    const ids = Array.from({ length: 24 }, (_, i) => `readme-${i}`)
    const res = await app.inject({
      method: 'POST',
      url: '/traces/batch',
      headers: { authorization: `Bearer ${api_key.key}` },
      payload: { traces: ids.map((trace_id, i) => ({ trace_id, prompt: 'q', response: i % 2 ? '{"a":1}' : 'plain' })) },
    })
    t.equal(res.json().accepted, 24)
    await app.evaluationWorker.idle()
    const scores = async (name: string) => (await app.inject({ url: '/scores', query: { name, limit: '100' } })).json()
    const json = await scores('valid_json')
    t.equal(json.total, 24, 'every trace is checked for JSON')
    t.equal(json.items.filter((s: { value: number }) => s.value === 1).length, 12)
    const helpful = await scores('helpfulness')
    const sampled = ids.filter((id) => samplePoint(id) < 0.25)
    t.same(helpful.items.map((s: { trace_id: string }) => s.trace_id).sort(), sampled.sort(), 'a quarter, by trace id')
    t.ok(sampled.length > 0)
    t.match(helpful.items[0], { source: 'evaluator', author: 'helpful', comment: 'answers the question', value: 0.9 })
  },
)

/** The shell words of a command: single quotes literal, double quotes with $VARS expanded. */
function words(command: string, vars: Record<string, string>): string[] {
  const out: string[] = []
  const re = /'([^']*)'|"([^"]*)"|(\S+)/g
  for (const m of command.matchAll(re)) {
    const expand = (text: string) => text.replace(/\$([A-Z_]+)/g, (_, name: string) => vars[name] ?? '')
    out.push(m[1] ?? expand(m[2] ?? m[3] ?? ''))
  }
  return out
}

/** Runs one `curl -s [-X M] [-H h]… [-d body] URL` the way curl would, through fetch. */
async function curl(command: string, vars: Record<string, string>) {
  const args = words(command, vars).slice(1)
  let method = 'GET'
  let body: string | undefined
  let url = ''
  const headers: Record<string, string> = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    if (arg === '-s') continue
    if (arg === '-X') method = args[++i] as string
    else if (arg === '-H') {
      const [name, ...value] = (args[++i] as string).split(':')
      headers[(name as string).trim().toLowerCase()] = value.join(':').trim()
    } else if (arg === '-d') {
      body = args[++i]
      if (method === 'GET') method = 'POST'
    } else if (arg.startsWith('-')) throw new Error(`the README uses a curl option this test does not know: ${arg}`)
    else url = arg
  }
  const res = await fetch(url, { method, headers, body })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> & { api_key?: { key: string } } }
}

t.test('"Record and read a trace with curl": every curl command answers as its comment says', async (t) => {
  const { url } = await startTestServer(t)
  const start = readme.indexOf('### Record and read a trace with curl')
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(start))?.[1] ?? ''
  // A command runs on while a quote is open or a line ends with a backslash.
  const commands: string[] = []
  let current: string | null = null
  for (const line of block.split('\n')) {
    if (current === null && !line.startsWith('curl ')) continue
    current = current === null ? line : `${current}\n${line}`
    const quoteOpen = (current.match(/'/g) ?? []).length % 2 === 1
    if (quoteOpen || current.endsWith('\\')) continue
    commands.push(current.replace(/\\\n\s*/g, ' ').replaceAll('http://127.0.0.1:3000', url))
    current = null
  }
  t.ok(commands.length >= 6, `${commands.length} curl commands`)
  const vars: Record<string, string> = {}
  const answers = []
  for (const command of commands) {
    const answer = await curl(command, vars)
    t.ok(answer.status < 300, `${answer.status}: ${command.slice(0, 80)}`)
    if (answer.json?.api_key?.key) vars.KEY = answer.json.api_key.key
    answers.push(answer)
  }
  const [created, trace, batch] = answers
  t.match(created?.json, { project: { project_id: 'support-bot' } })
  t.equal(trace?.status, 201)
  t.match(trace?.json, { latency: 2330, token_count: 54, retry_count: 1, status: 'warning' })
  t.match(batch?.json, { accepted: 2, rejected: [], items: [{ status: 'success' }, { status: 'failed' }] })
})

t.test('"Ask from a coding assistant": both mcpServers entries connect and list the tools', async (t) => {
  const ADMIN = 'admin-token-for-the-readme-mcp'
  const { url } = await startTestServer(t, { config: { adminToken: ADMIN } })
  const start = readme.indexOf('README-MCP-CONFIG')
  const block = /```json\n([\s\S]*?)```/.exec(readme.slice(start))?.[1] ?? ''
  // The example's server and credential, replaced by this test's.
  const local = (text: string) => text.replace('http://127.0.0.1:3000', url).replace('loupe_sk_…', ADMIN)
  const { mcpServers } = JSON.parse(block) as {
    mcpServers: Record<string, { url?: string; headers?: Record<string, string>; command?: string; args?: string[] }>
  }
  const { loupe: http, 'loupe-local': stdio } = mcpServers
  t.ok(http?.url && stdio?.command === 'npx' && stdio.args?.[0] === 'loupe', 'an HTTP entry and a `npx loupe` one')
  const transports = [
    new StreamableHTTPClientTransport(new URL(local(http?.url ?? '')), {
      requestInit: { headers: Object.fromEntries(Object.entries(http?.headers ?? {}).map(([k, v]) => [k, local(v)])) },
    }),
    // `npx loupe` is this checkout's command: run from its source.
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', join(root, 'src/cli/index.ts'), ...(stdio?.args ?? []).slice(1).map(local)],
      cwd: root,
      stderr: 'pipe',
    }),
  ]
  for (const transport of transports) {
    const client = new Client({ name: 'readme', version: '1.0.0' })
    await client.connect(transport)
    t.teardown(() => client.close())
    const { tools } = await client.listTools()
    t.ok(
      tools.some((tool) => tool.name === 'search_traces'),
      `${transport.constructor.name}: the tools`,
    )
    const answer = (await client.callTool({ name: 'get_failures', arguments: {} })) as CallToolResult
    t.notOk(answer.isError, `${transport.constructor.name}: the credential reads`)
  }
})

t.test('"From a failed trace to a passing CI gate": the dataset from failed traces, the task, the gate', async (t) => {
  const { app, url } = await startTestServer(t)
  const admin = new Loupe({ baseUrl: url, enabled: false })
  const { api_key } = await admin.projects.create({ name: 'Support Bot', environment: 'production' })
  const capitals: Record<string, string> = { France: 'Paris', Italy: 'Rome', Spain: 'Madrid', Peru: 'Lima' }
  await app.inject({
    method: 'POST',
    url: '/traces/batch',
    headers: { authorization: `Bearer ${api_key.key}` },
    payload: {
      traces: Object.entries(capitals).map(([country, capital]) => ({
        prompt: country,
        response: capital,
        status: 'failed',
        created_at: '2026-11-25T10:00:00Z',
      })),
    },
  })
  // Step 1, as the README's curl commands send it.
  const block = readme.slice(readme.indexOf('## From a failed trace'))
  const bodies = [...block.matchAll(/-d '([^']+)'/g)].map((m) => JSON.parse(m[1] as string))
  const dataset = await app.inject({ method: 'POST', url: '/datasets', payload: bodies[0] })
  t.equal(dataset.statusCode, 201)
  const added = await app.inject({
    method: 'POST',
    url: `/datasets/${dataset.json().dataset_id}/items/from-traces`,
    payload: bodies[1],
  })
  t.same(added.json(), { added: 4, skipped: 0 })

  // Step 2: the task module as written, beside a fake app whose v6 prompt gets Peru wrong.
  const dir = mkdtempSync(join(tmpdir(), 'loupe-readme-gate-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'task.mjs'), codeAfter('## From a failed trace'))
  writeFileSync(
    join(dir, 'app.mjs'),
    `const capitals = ${JSON.stringify(capitals)}
export async function answer(country, { prompt, trace }) {
  trace.setTokens({ prompt_tokens: 12, completion_tokens: 2 })
  return prompt === 'v6' && country === 'Peru' ? 'Cusco' : capitals[country]
}\n`,
  )
  // Step 3: the README's command line, run in-process.
  const command = /npx loupe (experiment run [^\n]+\\\n[^\n]+)/.exec(block)?.[1] ?? ''
  const argv = (command.replace(/\\\n/, ' ').match(/"[^"]*"|\S+/g) ?? []).map((a) => a.replace(/^"|"$/g, ''))
  t.match(argv, ['experiment', 'run', '--dataset', 'refund-questions', '--task', './task.mjs'])
  const gate = async (args: string[]) => {
    const out = {
      text: '',
      write(s: string) {
        this.text += s
      },
    }
    const code = await runCli(['--url', url, ...args], {
      stdout: out,
      stderr: out,
      env: { LOUPE_API_KEY: api_key.key },
      interrupted: () => new Promise(() => {}),
    })
    return { code, out: out.text }
  }
  const inDir = (args: string[]) => args.map((a) => (a === './task.mjs' ? join(dir, 'task.mjs') : a))
  const withoutBaseline = inDir(argv.slice(0, argv.indexOf('--baseline')))
  // The prompt of v6 is the fake app's; the task passes 'v7', so v6 is run with a task that says so.
  writeFileSync(join(dir, 'task-v6.mjs'), codeAfter('## From a failed trace').replace("prompt: 'v7'", "prompt: 'v6'"))
  const v6 = await gate(
    withoutBaseline.map((a) =>
      a.endsWith('task.mjs') ? join(dir, 'task-v6.mjs') : a === 'prompt-v7' ? 'prompt-v6' : a,
    ),
  )
  t.equal(v6.code, 1, 'v6 fails the gate: correctness 0.75')
  t.match(v6.out, /FAIL {2}correctness >= 0.9/)
  const v7 = await gate(inDir(argv))
  t.equal(v7.code, 0, v7.out)
  t.match(v7.out, /pass {2}correctness >= 0.9 {2}\(1\)/)
  t.match(v7.out, /pass {2}cost <= 0.50/)
})

t.test('the `loupe datasets` command lines of the CLI section run as written', async (t) => {
  const { app, url } = await startTestServer(t)
  const admin = new Loupe({ baseUrl: url, enabled: false })
  const { api_key } = await admin.projects.create({ name: 'Support Bot', environment: 'production' })
  await app.inject({
    method: 'POST',
    url: '/traces/batch',
    headers: { authorization: `Bearer ${api_key.key}` },
    payload: { traces: [{ prompt: 'France', response: 'Lyon', status: 'failed', created_at: '2026-11-22T10:00:00Z' }] },
  })
  const dir = mkdtempSync(join(tmpdir(), 'loupe-readme-datasets-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'cases.csv'), 'input,expected_output\nItaly,Rome\n')
  const lines = [...readme.matchAll(/^npx loupe (datasets [^#\n]+?)\s*(?:#.*)?$/gm)].map((m) => m[1] as string)
  t.same(
    lines.map((l) => l.split(' ')[1]),
    ['create', 'add', 'import', 'items', 'export'],
    'each datasets command is shown',
  )
  const inDir = (arg: string) => (/\.(csv|jsonl)$/.test(arg) ? join(dir, arg) : arg)
  const said: string[] = []
  for (const line of lines) {
    const out = {
      text: '',
      write(text: string) {
        this.text += text
      },
    }
    const argv = ['--url', url, ...line.split(/\s+/).map(inDir)]
    const code = await runCli(argv, { stdout: out, stderr: out, env: {}, interrupted: () => new Promise(() => {}) })
    t.equal(code, 0, `npx loupe ${line}: ${out.text}`)
    said.push(out.text)
  }
  t.match(said[1], /Added 1 item/, 'the failed trace of the week')
  t.match(said[2], /Imported 1 item/)
  t.match(readFileSync(join(dir, 'qa.csv'), 'utf8'), /France,Lyon[\s\S]*Italy,Rome/)
})

t.test('"Layout" names every folder of src/ and every file of scripts/', async (t) => {
  const start = readme.indexOf('### Layout')
  t.ok(start >= 0, 'the README has a Layout section')
  const layout = /```\n([\s\S]*?)```/.exec(readme.slice(start))?.[1] ?? ''
  const folders = readdirSync(join(root, 'src'), { withFileTypes: true }).filter((e) => e.isDirectory())
  t.ok(folders.length > 5, 'src/ has its folders')
  for (const folder of folders) t.match(layout, `src/${folder.name}/`, `src/${folder.name}/ is in the Layout`)
  const scripts = readdirSync(join(root, 'scripts'), { withFileTypes: true }).filter((e) => e.isFile())
  for (const script of scripts) t.match(layout, ` ${script.name} `, `scripts/${script.name} is in the Layout`)
})
