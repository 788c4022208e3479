// The loupe CLI run in-process against a real server: what each command prints, and its exit code
// (0 done, 1 failed, 2 used wrongly).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { runCli } from '../../src/cli/program.js'
import { Loupe } from '../../src/client/index.js'
import { createSqliteStore } from '../../src/store/sqlite/store.js'
import { startTestServer, unusedPort, waitFor } from '../helper.js'

/** The escape character that starts every ANSI colour sequence. */
const ESC = String.fromCharCode(27)

interface Captured {
  write(text: string): void
  text: string
  isTTY?: boolean
}

const capture = (isTTY = false): Captured => ({
  text: '',
  isTTY,
  write(text) {
    this.text += text
  },
})

/** Runs `loupe <argv>`; `stop` ends a long-running command as Ctrl-C would; `answer` answers a confirmation. */
function cli(argv: string[], env: NodeJS.ProcessEnv = {}, tty = false, answer?: (question: string) => boolean) {
  const stdout = capture(tty)
  const stderr = capture(tty)
  let stop: () => void = () => {}
  const interrupted = new Promise<void>((resolve) => {
    stop = resolve
  })
  const confirm = answer ? async (question: string) => answer(question) : undefined
  const code = runCli(argv, { stdout, stderr, env, interrupted: () => interrupted, confirm })
  return { code, stdout, stderr, stop }
}

async function server(t: Test) {
  const { app, url } = await startTestServer(t)
  const run = async (...argv: string[]) => {
    const r = cli(['--url', url, ...argv])
    return { code: await r.code, out: r.stdout.text, err: r.stderr.text }
  }
  return { app, url, run }
}

t.test('projects create prints the key once; --quiet prints only the key; --json the whole answer', async (t) => {
  const { run } = await server(t)
  const created = await run('projects', 'create', '--name', 'Support Bot', '--environment', 'production')
  t.equal(created.code, 0)
  t.match(created.out, /Created project support-bot \(Support Bot\)\.\nAPI key \(production\), shown only this once/)
  t.match(created.out, /^loupe_sk_[A-Za-z0-9]{32}$/m)

  const quiet = await run('projects', 'create', '--name', 'Quiet', '-q')
  t.match(quiet.out, /^loupe_sk_[A-Za-z0-9]{32}\n$/)

  const json = await run('projects', 'create', '--name', 'As Json', '--json')
  t.match(JSON.parse(json.out), { project: { project_id: 'as-json' }, api_key: { environment: 'development' } })

  const list = await run('projects', 'list')
  t.equal(list.code, 0)
  const lines = list.out.trim().split('\n')
  t.match(lines[0], /^PROJECT ID\s+NAME\s+CREATED \(UTC\)\s+DESCRIPTION$/)
  t.match(lines.slice(1), [/^support-bot\s+Support Bot\s+\d{4}-/, /^quiet\s+Quiet/, /^as-json\s+As Json/])
  t.equal(JSON.parse((await run('projects', 'list', '--json')).out).total, 3)
})

t.test('server errors are one line on stderr with exit code 1', async (t) => {
  const { run } = await server(t)
  await run('projects', 'create', '--name', 'Twice')
  const again = await run('projects', 'create', '--name', 'Twice')
  t.equal(again.code, 1)
  t.equal(again.out, '')
  t.equal(
    again.err,
    "loupe: 409 a project with project_id 'twice' already exists (project_id is the slug of the name)\n",
  )
  const missing = await run('traces', 'get', 'no-such-trace')
  t.equal(missing.code, 1)
  t.match(missing.err, /^loupe: 404 trace 'no-such-trace' not found\n$/)
})

t.test('an unreachable server is exit code 1 with a hint', async (t) => {
  const r = cli(['--url', `http://127.0.0.1:${await unusedPort()}`, 'projects', 'list'])
  t.equal(await r.code, 1)
  t.match(r.stderr.text, /loupe: cannot reach the Loupe server at http:\/\/127\.0\.0\.1:\d+\/ \(connection refused/)
  t.match(r.stderr.text, /Is the server running\? Start it with `loupe serve`/)
})

t.test('wrong usage is exit code 2 with a message naming the problem', async (t) => {
  const cases: [string[], RegExp][] = [
    [['projects', 'create'], /required option '-n, --name <name>' not specified/],
    [['projects', 'create', '-n', 'x', '-e', 'prod'], /argument 'prod' is invalid\. Allowed choices are development/],
    [['traces', 'list', '--limit', '0'], /--limit must be a whole number from 1 to 1000/],
    [['traces', 'list', '--status', 'ok'], /Allowed choices are success, warning, failed/],
    [['keys', 'revoke'], /missing required argument 'key_id'/],
    [['nope'], /unknown command 'nope'/],
    [['traces', 'list', '--colour'], /unknown option '--colour'/],
    [['--url', 'localhost:3000', 'projects', 'list'], /expected an http\(s\) URL/],
  ]
  for (const [argv, message] of cases) {
    const r = cli(argv)
    t.equal(await r.code, 2, `loupe ${argv.join(' ')}`)
    t.match(r.stderr.text, message)
  }
  const help = cli(['--help'])
  t.equal(await help.code, 0)
  t.match(help.stdout.text, /Usage: loupe \[options\] \[command\][\s\S]*serve[\s\S]*projects[\s\S]*tail/)
  const version = cli(['--version'])
  t.equal(await version.code, 0)
  t.match(version.stdout.text, /^\d+\.\d+\.\d+\n$/)
})

t.test('keys list, create and revoke', async (t) => {
  const { run } = await server(t)
  await run('projects', 'create', '--name', 'Keys')
  const created = await run('keys', 'create', '--project', 'keys', '--environment', 'staging')
  t.equal(created.code, 0)
  t.match(created.out, /Created secret key \S+ for project keys\.\nAPI key \(staging\), shown only this once/)
  const list = JSON.parse((await run('keys', 'list', '--project', 'keys', '--json')).out)
  t.equal(list.total, 2)
  const keyId = list.items[1].key_id as string
  const revoked = await run('keys', 'revoke', keyId)
  t.equal(revoked.code, 0)
  t.match(revoked.out, /^Revoked key loupe_sk_\w{4}…\w{4} of project keys\.\n$/)
  const table = (await run('keys', 'list')).out.split('\n')
  t.match(table[0], /^KEY ID\s+KEY\s+PROJECT\s+ENVIRONMENT\s+KIND\s+CREATED \(UTC\)\s+LAST USED\s+STATE$/)
  t.match(table[1], /loupe_sk_\w{4}…\w{4}\s+keys\s+development\s+secret\s+.*\s+active$/)
  t.match(table[2], /staging\s+secret\s+.*\s+revoked$/)
  const publicKey = await run('keys', 'create', '--project', 'keys', '--kind', 'public', '-q')
  t.match(publicKey.out, /^loupe_pk_[A-Za-z0-9]{32}\n$/)
  t.match((await run('keys', 'list')).out.split('\n')[3], /loupe_pk_\w{4}…\w{4}\s+keys\s+development\s+public\s+/)
  const wrongKind = await run('keys', 'create', '--project', 'keys', '--kind', 'private')
  t.equal(wrongKind.code, 2)
  t.match(wrongKind.err, /--kind/)
  const unknown = await run('keys', 'revoke', 'nope')
  t.equal(unknown.code, 1)
  t.match(unknown.err, /404/)
})

t.test('evaluators run follows a backfill to its end with progress; list shows the figures; cancel', async (t) => {
  const { app, run } = await server(t)
  const key = (await run('projects', 'create', '--name', 'Judged', '-q')).out.trim()
  const traces = Array.from({ length: 12 }, (_, i) => ({
    trace_id: `old-${i}`,
    prompt: 'p',
    response: i % 3 === 0 ? 'not json' : '{"ok": true}',
  }))
  const stored = await app.inject({
    method: 'POST',
    url: '/traces/batch',
    headers: { authorization: `Bearer ${key}` },
    payload: { traces },
  })
  t.equal(stored.json().accepted, 12)
  const rule = { name: 'valid-json', score_name: 'json_valid', kind: 'json', config: { field: 'response' } }
  t.equal((await app.inject({ method: 'POST', url: '/evaluators', payload: rule })).statusCode, 201)

  const missing = await run('evaluators', 'run', 'nope')
  t.equal(missing.code, 1)
  t.match(missing.err, /no evaluator has the id or name 'nope'/)

  const done = await run('evaluators', 'run', 'valid-json')
  t.equal(done.code, 0, done.err)
  t.match(done.err, /Run \S+ of 'valid-json' started/)
  t.match(done.err, /12\/12 traces \(100%\)/, 'progress on stderr')
  t.match(done.out, /^done \S+: 12\/12 traces evaluated, 0 errors, judge \$0\.0000\n/)
  const scores = (await app.inject('/scores?name=json_valid&limit=100')).json()
  t.equal(scores.total, 12)
  t.equal(scores.items.filter((s: { value: number }) => s.value === 0).length, 4)

  const list = (await run('evaluators', 'list')).out.split('\n')
  t.match(list[0], /^ID\s+NAME\s+KIND\s+SCORE\s+ON\s+EVALUATED\s+ERRORS\s+PENDING\s+JUDGE \$$/)
  t.match(list[1], /valid-json\s+json\s+json_valid\s+yes\s+12\s+0\s+0\s+0\.0000/)

  const again = JSON.parse((await run('evaluators', 'run', 'valid-json', '--no-wait', '--json')).out)
  t.match(again, { status: 'running', done: 0 })
  const cancelled = await run('evaluators', 'cancel', again.run_id)
  t.equal(cancelled.code, 0)
  t.match(cancelled.out, new RegExp(`^(cancelled|done) ${again.run_id}: 0/0 traces evaluated`))
})

t.test('scores add records a score of a trace or a step; scores list shows them, filtered, or as JSON', async (t) => {
  const { app, run } = await server(t)
  const project = await run('projects', 'create', '--name', 'Scored', '-q')
  const key = project.out.trim()
  const post = (trace_id: string, project = key) =>
    app.inject({
      method: 'POST',
      url: '/traces',
      headers: { authorization: `Bearer ${project}` },
      payload: { trace_id, prompt: 'p', response: 'r', steps: [{ type: 'llm', name: 'think' }] },
    })
  t.equal((await post('tr-1')).statusCode, 201)
  t.equal((await post('tr-2')).statusCode, 201)

  const added = await run(
    'scores',
    'add',
    '--trace',
    'tr-1',
    '--name',
    'helpfulness',
    '--value',
    '0.8',
    '--comment',
    'good',
  )
  t.equal(added.code, 0, added.err)
  t.match(added.out, /^Recorded helpfulness = 0\.8 of tr-1 \(api; score_id \S+\)\.\n$/)
  const thumbs = await run('scores', 'add', '-t', 'tr-1', '--name', 'thumbs', '--value', 'true', '--step', '0')
  t.match(thumbs.out, /^Recorded thumbs = true of tr-1 #0 /)
  const label = await run(
    'scores',
    'add',
    '-t',
    'tr-2',
    '--name',
    'stars',
    '--value',
    '5',
    '--data-type',
    'categorical',
  )
  t.match(label.out, /stars = 5 of tr-2/)
  const json = JSON.parse(
    (await run('scores', 'add', '-t', 'tr-2', '--name', 'tone', '--value', 'friendly', '--author', 'ana', '--json'))
      .out,
  )
  t.match(json, { trace_id: 'tr-2', name: 'tone', data_type: 'categorical', label: 'friendly', author: 'ana' })
  t.match(JSON.parse((await run('scores', 'list', '--name', 'stars', '--json')).out).items[0], {
    data_type: 'categorical',
    label: '5',
  })

  const table = (await run('scores', 'list')).out.split('\n')
  t.match(table[0], /^CREATED \(UTC\)\s+NAME\s+VALUE\s+SOURCE\s+AUTHOR\s+PROJECT\s+TRACE\s+COMMENT$/)
  t.match(table[1], /\stone\s+friendly\s+api\s+ana\s+scored\s+tr-2\s*$/)
  t.match(table[4], /\shelpfulness\s+0\.8\s+api\s+-\s+scored\s+tr-1\s+good$/)
  t.equal(table[5], '4 of 4 score(s), newest first')

  const onlyTr1 = JSON.parse((await run('scores', 'list', '--trace', 'tr-1', '--json')).out)
  t.same(onlyTr1.items.map((s: { name: string }) => s.name).sort(), ['helpfulness', 'thumbs'])
  const page = await run('scores', 'list', '-n', '1')
  const cursor = /--cursor (\S+)/.exec(page.out)?.[1]
  t.ok(cursor, 'the footer names the next page')
  const next = JSON.parse((await run('scores', 'list', '-n', '1', '--cursor', cursor!, '--json')).out)
  t.equal(next.items[0].name, 'stars', 'the page after the newest')
  t.equal((await run('scores', 'list', '--source', 'feedback')).out, 'No scores match.\n')

  // Refusals: the server's (an unknown trace, a step past the trace's) exit 1; wrong usage exits 2.
  const unknown = await run('scores', 'add', '-t', 'nope', '--name', 'x', '--value', '1')
  t.equal(unknown.code, 1)
  t.match(unknown.err, /404 trace 'nope' not found/)
  const step = await run('scores', 'add', '-t', 'tr-1', '--name', 'x', '--value', '1', '--step', '5')
  t.equal(step.code, 1)
  t.match(step.err, /400 .*step_index/)
  for (const [argv, says] of [
    [['scores', 'add', '-t', 'tr-1', '--value', '1'], /--name/],
    [
      ['scores', 'add', '-t', 'tr-1', '--name', 'x', '--value', 'lots', '--data-type', 'numeric'],
      /--value must be a number/,
    ],
    [['scores', 'add', '-t', 'tr-1', '--name', 'x', '--value', '1', '--source', 'robot'], /--source/],
    [['scores', 'list', '-n', '0'], /--limit/],
  ] as const) {
    const r = await run(...argv)
    t.equal(r.code, 2, argv.join(' '))
    t.match(r.err, says)
  }
  t.equal(JSON.parse((await run('scores', 'list', '--json')).out).total, 4, 'no refused score was stored')
})

t.test('costs: set a price, list it, re-price stored traces, remove it', async (t) => {
  const { url, run } = await server(t)
  const key = (await run('projects', 'create', '--name', 'Costly', '-q')).out.trim()
  const loupe = new Loupe({ baseUrl: url, apiKey: key })
  await loupe.trace({ model: 'house-model-1', prompt: 'p' }, (tr) => {
    tr.setTokens({ prompt_tokens: 1000, completion_tokens: 1000 })
  })
  await loupe.shutdown()
  t.match((await run('costs', 'list')).out, /No price overrides/)
  const set = await run('costs', 'set', 'house-model-*', '--input', '2', '--output', '8')
  t.equal(set.code, 0)
  t.match(set.out, /house-model-\*: \$2 input, \$8 output/)
  t.match((await run('costs', 'list')).out, /house-model-\*\s+\$2\s+\$8\s+-/)
  t.match((await run('costs', 'recompute')).out, /^1 trace\(s\) priced again; 1 changed\.$/m)
  t.match((await run('traces', 'list', '--min-cost', '0.01')).out, /house-model-1\s+\d+ ms\s+2000\s+\$0\.01/)
  t.equal((await run('costs', 'set', 'x', '--input', '-1', '--output', '1')).code, 2, 'a negative price is misuse')
  t.equal((await run('costs', 'remove', 'house-model-*')).code, 0)
  t.equal((await run('costs', 'remove', 'house-model-*')).code, 1, 'an unknown pattern is a 404')
})

t.test('traces list is a readable table with filters, a page footer, and --json for scripts', async (t) => {
  const { url, run } = await server(t)
  const key = (await run('projects', 'create', '--name', 'Listing', '-q')).out.trim()
  const loupe = new Loupe({ baseUrl: url, apiKey: key })
  for (let i = 0; i < 3; i++) {
    await loupe.trace({ name: 'answer', model: 'gpt-4o', prompt: `question ${i}\nwith a newline` }, (tr) => {
      tr.setTokens(10 + i)
      return 'ok'
    })
  }
  await loupe
    .trace({ name: 'broken', model: 'claude', prompt: 'p' }, () => {
      throw new Error('upstream said no')
    })
    .catch(() => {})
  await loupe.shutdown()

  const all = await run('traces', 'list')
  t.equal(all.code, 0)
  const lines = all.out.trim().split('\n')
  t.match(
    lines[0],
    /^CREATED \(UTC\)\s+STATUS\s+PROJECT\s+MODEL\s+LATENCY\s+TOKENS\s+COST\s+TRACE ID\s+NAME \/ PROMPT$/,
  )
  t.equal(lines.length, 6, 'a header, four traces, a footer')
  // A total alone cannot be priced without guessing its split: unpriced, shown as `-`.
  t.match(lines[1], /failed\s+listing\s+claude\s+\d+ ms\s+0\s+-\s+[0-9a-f-]{36}\s+broken: upstream said no$/)
  t.match(lines[2], /success\s+listing\s+gpt-4o\s+\d+ ms\s+12\s+-\s+[0-9a-f-]{36}\s+answer: question 2 with a newline$/)
  t.equal(lines[5], '4 of 4 trace(s), newest first')
  t.notOk(all.out.includes(ESC), 'no colour when the output is not a terminal')

  const page = await run('traces', 'list', '--model', 'gpt-4o', '--min-tokens', '11', '--limit', '1')
  t.match(page.out, /answer: question 2/)
  const next = /1 of 2 trace\(s\), newest first; next page: --cursor (\S+)\n$/.exec(page.out)
  t.ok(next, 'the footer names the next page')
  const second = await run(
    'traces',
    'list',
    '--model',
    'gpt-4o',
    '--min-tokens',
    '11',
    '--limit',
    '1',
    '--cursor',
    next![1]!,
  )
  t.match(second.out, /answer: question 1/)
  t.match(second.out, /1 of 2 trace\(s\), newest first\n$/, 'the last page names none')
  const bySize = await run('traces', 'list', '--sort', 'token_count', '--order', 'asc', '--limit', '1')
  t.match(bySize.out, /broken/)
  t.match(bySize.out, /by token_count asc; next page/)
  t.equal((await run('traces', 'list', '--sort', 'name')).code, 2, 'an unknown sort is misuse')
  const searched = await run('traces', 'list', '--q', 'QUESTION 1')
  t.match(searched.out, /answer: question 1/)
  t.match(searched.out, /1 of 1 trace\(s\), newest first\n$/)
  const failed = JSON.parse((await run('traces', 'list', '--status', 'failed', '--json')).out)
  t.equal(failed.total, 1)
  t.equal(failed.items[0].failure_reason, 'upstream said no')
  const none = await run('traces', 'list', '--project', 'nobody')
  t.equal(none.out, 'No traces match.\n')

  const one = await run('traces', 'get', failed.items[0].trace_id)
  t.equal(one.code, 0)
  t.equal(JSON.parse(one.out).trace_id, failed.items[0].trace_id)
})

t.test('colours only on a terminal, and never with NO_COLOR', async (t) => {
  const { url, app } = await startTestServer(t)
  await app.inject({ method: 'POST', url: '/projects', query: { name: 'Colour', environment: 'development' } })
  const tty = cli(['--url', url, 'projects', 'list'], {}, true)
  t.equal(await tty.code, 0)
  t.ok(tty.stdout.text.includes(`${ESC}[1mPROJECT ID`), 'bold headers on a terminal')
  const noColor = cli(['--url', url, 'projects', 'list'], { NO_COLOR: '1' }, true)
  t.equal(await noColor.code, 0)
  t.notOk(noColor.stdout.text.includes(ESC), 'NO_COLOR wins')
})

t.test('tail prints one line per stored trace, filtered by --project, until interrupted', async (t) => {
  const { url, run } = await server(t)
  const keyA = (await run('projects', 'create', '--name', 'Tail A', '-q')).out.trim()
  const keyB = (await run('projects', 'create', '--name', 'Tail B', '-q')).out.trim()
  const all = cli(['--url', url, 'tail'])
  const onlyB = cli(['--url', url, 'tail', '--project', 'tail-b', '--json'])
  await waitFor(() => all.stderr.text.includes('Following every project'), 5000, 'tail to connect')
  await waitFor(() => onlyB.stderr.text.includes('Following project tail-b'), 5000, 'tail --project to connect')

  for (const [key, name] of [
    [keyA, 'from-a'],
    [keyB, 'from-b'],
  ] as const) {
    const loupe = new Loupe({ baseUrl: url, apiKey: key })
    await loupe.trace({ name, model: 'gpt-4o', prompt: 'hello' }, () => 'ok')
    await loupe.shutdown()
  }
  await waitFor(() => all.stdout.text.split('\n').length === 3, 5000, 'two lines')
  const lines = all.stdout.text.trim().split('\n')
  t.match(lines[0], /^\d{2}:\d{2}:\d{2}\.\d{3} {2}success {2}tail-a {2}gpt-4o {2}\d+ ms {2}0 tok {2}from-a: hello$/)
  t.match(lines[1], /tail-b .* from-b: hello$/)
  await waitFor(() => onlyB.stdout.text.length > 0, 5000, 'the filtered line')
  t.equal(JSON.parse(onlyB.stdout.text).name, 'from-b')

  all.stop()
  onlyB.stop()
  t.equal(await all.code, 0)
  t.equal(await onlyB.code, 0)
})

t.test('tail with no server to reach fails at once', async (t) => {
  const r = cli(['--url', `http://127.0.0.1:${await unusedPort()}`, 'tail'])
  t.equal(await r.code, 1)
  t.match(r.stderr.text, /cannot reach the Loupe server/)
})

t.test('seed fills a fresh database and prints the demo keys; it refuses one that has traces', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-seed-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const database = join(dir, 'demo.db')

  const fresh = cli([
    'seed',
    '--traces',
    '300',
    '--days',
    '2',
    '--projects',
    '2',
    '--seed',
    '7',
    '--database',
    database,
  ])
  t.equal(await fresh.code, 0, fresh.stderr.text)
  t.match(fresh.stderr.text, /^Seeding 300 traces over 2 day\(s\) into .*demo\.db\n/)
  t.match(fresh.stdout.text, /^Stored 300 traces in [\d.]+ s/)
  t.match(fresh.stdout.text, /^ {2}support-bot\s+production\s+loupe_sk_[A-Za-z0-9]{32}$/m)

  const store = createSqliteStore(database)
  t.equal((await store.traces.list({}, { limit: 1, offset: 0 })).total, 300)
  await store.close()

  const again = cli(['seed', '--traces', '5', '--database', database])
  t.equal(await again.code, 1)
  t.match(again.stderr.text, /already holds 300 traces; refusing to add synthetic data to it\.\nPass --force/)

  const forced = cli(['seed', '--traces', '5', '--database', database, '--force', '--json'])
  t.equal(await forced.code, 0)
  t.match(
    JSON.parse(forced.stdout.text),
    { traces: 5, projects: [{ project_id: 'support-bot', key: null, keys: [], created: false }] },
    '--force adds traces to its own demo projects, and no keys',
  )

  const other = cli(['seed', '--database', 'mysql://user:secret@db/loupe'])
  t.equal(await other.code, 1)
  t.match(
    other.stderr.text,
    /only SQLite .* or PostgreSQL .* databases can be seeded, got 'mysql:\/\/\*\*\*@db\/loupe'/,
  )
  t.notMatch(other.stderr.text, /secret/)
})

t.test('protected mode: --token (or LOUPE_ADMIN_TOKEN) is sent; without it the 401 is a clear exit 1', async (t) => {
  const admin = 'admin-token-for-the-cli-test'
  const { url } = await startTestServer(t, { config: { adminToken: admin } })
  const refused = cli(['--url', url, 'projects', 'list'])
  t.equal(await refused.code, 1)
  t.match(refused.stderr.text, /^loupe: 401 /)
  t.match(refused.stderr.text, /--token/, 'and says how to pass the token')
  const created = cli(['--url', url, '--token', admin, 'projects', 'create', '--name', 'Guarded', '-q'])
  t.equal(await created.code, 0)
  t.match(created.stdout.text, /^loupe_sk_/)
  const listed = cli(['--url', url, '--token', admin, 'projects', 'list', '--json'])
  t.equal(await listed.code, 0)
  t.equal(JSON.parse(listed.stdout.text).total, 1)

  const tail = cli(['--url', url, '--token', admin, 'tail'])
  await waitFor(() => tail.stderr.text.includes('Following every project'), 5000, 'tail to connect')
  t.notOk(tail.stderr.text.includes(admin), 'the token is never printed')
  tail.stop()
  t.equal(await tail.code, 0)
})

t.test('export streams NDJSON or CSV with the filters, to stdout or a new file', async (t) => {
  const { app, run } = await server(t)
  const key = (await run('projects', 'create', '--name', 'Exported', '-q')).out.trim()
  const res = await app.inject({
    method: 'POST',
    url: '/traces/batch',
    headers: { authorization: `Bearer ${key}` },
    payload: { traces: [{ prompt: 'é one', status: 'failed' }, { prompt: 'two' }, { prompt: 'three' }] },
  })
  t.equal(res.json().accepted, 3)
  const all = await run('export')
  t.equal(all.code, 0)
  t.equal(all.out, (await app.inject('/traces/export')).body, 'the server’s NDJSON as it is')
  const failed = await run('export', '--status', 'failed', '--format', 'csv')
  t.equal(failed.code, 0)
  t.equal(failed.out.split('\r\n').filter(Boolean).length, 2, 'a header and the one failed trace')
  t.match(failed.out, /é one/)
  const dir = mkdtempSync(join(tmpdir(), 'loupe-export-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'traces.ndjson')
  t.equal((await run('export', '-o', file)).code, 0)
  const again = await run('export', '-o', file)
  t.equal(again.code, 1)
  t.match(again.err, /exists: not overwritten/)
  t.equal((await run('export', '--format', 'xml')).code, 2)
})

t.test('traces delete and projects delete: asked on a terminal, --yes in scripts, nothing without', async (t) => {
  const { app, url } = await server(t)
  const run = async (argv: string[], answer?: (q: string) => boolean) => {
    const r = cli(['--url', url, ...argv], {}, false, answer)
    return { code: await r.code, out: r.stdout.text, err: r.stderr.text }
  }
  const key = (await run(['projects', 'create', '--name', 'Doomed', '-q'])).out.trim()
  const post = (traces: unknown[]) =>
    app.inject({
      method: 'POST',
      url: '/traces/batch',
      headers: { authorization: `Bearer ${key}` },
      payload: { traces },
    })
  await post([
    { trace_id: 'k-1', prompt: 'a', status: 'failed' },
    { trace_id: 'k-2', prompt: 'b', status: 'failed' },
    { trace_id: 'k-3', prompt: 'c' },
  ])
  const script = await run(['traces', 'delete', 'k-1'])
  t.equal(script.code, 2, 'no terminal and no --yes: refused')
  t.match(script.err, /--yes/)
  const questions: string[] = []
  const declined = await run(['traces', 'delete', 'k-1'], (q) => {
    questions.push(q)
    return false
  })
  t.equal(declined.code, 1)
  t.same(questions, ['Delete trace k-1?'])
  t.equal((await app.inject('/traces/k-1')).statusCode, 200, 'still there')
  t.equal((await run(['traces', 'delete', 'k-1'], () => true)).code, 0)
  t.equal((await app.inject('/traces/k-1')).statusCode, 404)
  t.equal((await run(['traces', 'delete'])).code, 2, 'no id, no filter, no --all')
  const asked: string[] = []
  const filtered = await run(['traces', 'delete', '--status', 'failed'], (q) => {
    asked.push(q)
    return true
  })
  t.same(asked, ['Delete 1 matching trace(s)?'], 'the question says how many')
  t.match(filtered.out, /Deleted 1 trace\(s\)/)
  const missing = await run(['traces', 'delete', 'k-1', '--yes'])
  t.equal(missing.code, 1)
  t.match(missing.err, /404/)
  const project = await run(['projects', 'delete', 'doomed', '--yes', '--json'])
  t.equal(project.code, 0)
  t.match(JSON.parse(project.out), { project_id: 'doomed', deleted_traces: 1, deleted_api_keys: 1 })
})

t.test('projects retention shows what applies and sets the project’s own values', async (t) => {
  const { run } = await server(t)
  await run('projects', 'create', '--name', 'Kept')
  const shown = await run('projects', 'retention', 'kept')
  t.equal(shown.code, 0)
  t.equal(shown.out, 'kept: age no limit (the server’s), count no limit (the server’s)\n')
  const set = await run('projects', 'retention', 'kept', '--days', '30')
  t.equal(set.out, 'kept: age 30 days, count no limit (the server’s)\n')
  const json = JSON.parse((await run('projects', 'retention', 'kept', '--max-traces', '500', '--json')).out)
  t.match(json, { retention_days: 30, retention_max_traces: 500, effective: { retention_days: 30 } })
  t.equal((await run('projects', 'retention', 'kept', '--days', '-2')).code, 2)
  const back = JSON.parse((await run('projects', 'retention', 'kept', '--days', 'default', '--json')).out)
  t.equal(back.retention_days, null)
  t.equal((await run('projects', 'retention', 'none-such')).code, 1)
})

t.test('alerts create, list, events and delete', async (t) => {
  const { app, run } = await server(t)
  const created = await run(
    'alerts',
    'create',
    '--name',
    'Any traffic',
    '--metric',
    'trace_count',
    '--window',
    '5',
    '--threshold',
    '0',
    '--slack',
    'http://127.0.0.1:9/hook',
    '--json',
  )
  t.equal(created.code, 0)
  const rule = JSON.parse(created.out)
  t.match(rule, { name: 'Any traffic', metric: 'trace_count', destination: { type: 'slack', signed: false } })
  t.equal(
    (await run('alerts', 'create', '--name', 'x', '--metric', 'trace_count', '--window', '5', '--threshold', '1')).code,
    2,
    'no destination',
  )
  t.equal(
    (
      await run(
        'alerts',
        'create',
        '--name',
        'x',
        '--metric',
        'mood',
        '--window',
        '5',
        '--threshold',
        '1',
        '--slack',
        'http://x.test',
      )
    ).code,
    2,
  )
  t.match((await run('alerts', 'list')).out, /ok {6}Any traffic: trace_count over 5 min > 0 on every project → slack/)
  t.equal((await run('alerts', 'events')).out, 'No alert events.\n')
  const key = (await run('projects', 'create', '--name', 'Busy', '-q')).out.trim()
  await app.inject({
    method: 'POST',
    url: '/traces',
    headers: { authorization: `Bearer ${key}` },
    payload: { prompt: 'x' },
  })
  await app.alerts.evaluate()
  t.match((await run('alerts', 'events')).out, /fired {5}Any traffic: trace_count 1 \(threshold 0\)/)
  t.equal((await run('alerts', 'delete', rule.rule_id, '--yes')).code, 0)
  t.equal((await run('alerts', 'list')).out, 'No alert rules.\n')
})

t.test('sessions and users: a table of conversations, one of them in order', async (t) => {
  const { url, run } = await server(t)
  const key = (await run('projects', 'create', '--name', 'Talks', '-q')).out.trim()
  const loupe = new Loupe({ baseUrl: url, apiKey: key })
  for (const prompt of ['hello', 'and then?']) {
    await loupe.trace({ prompt, sessionId: 'talk-1', userId: 'ann' }, () => 'ok')
  }
  await loupe.shutdown()
  const list = await run('sessions')
  t.equal(list.code, 0)
  t.match(list.out, /Talks|talks/)
  t.match(list.out, /ann\s+2\s+0\s+\d+\s+-\s+talk-1/)
  const one = await run('sessions', 'get', 'talk-1')
  t.match(one.out, /^talk-1 \(talks, user ann\): 2 trace\(s\), 0 failed/)
  t.ok(one.out.indexOf('hello') < one.out.indexOf('and then?'), 'the conversation in order')
  t.match((await run('users')).out, /1\s+2\s+0\s+-\s+ann/)
  t.equal((await run('sessions', 'get', 'nope')).code, 1)
})

t.test('the help of serve and seed is true: both take a PostgreSQL URL', async (t) => {
  for (const command of ['serve', 'seed']) {
    const help = cli([command, '--help'])
    t.equal(await help.code, 0)
    t.match(help.stdout.text, /postgres:\/\//, `${command} --help names PostgreSQL`)
  }
})
