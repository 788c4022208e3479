// POST /mcp: the MCP server over Streamable HTTP, asked with the SDK's own client against a listening app — every
// tool's answer is the REST answer to the same question, bad arguments are told which field is wrong, and in
// protected mode a project key sees its project only, the admin token everything, a public key and no key nothing.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import fc from 'fast-check'
import t, { type Test } from 'tap'
import {
  ListTracesQuery,
  MCP_COMPARE_ROWS,
  MCP_PREVIEW_LIMIT,
  MCP_TEXT_LIMIT,
  ScoreInputSchema,
} from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { createProject, postBatch, startTestServer } from '../helper.js'

const ADMIN = 'admin-token-for-mcp-0123456789'
const NOW = Date.now()
const LONG = 'x'.repeat(MCP_TEXT_LIMIT + 500)

/** A client of /mcp with these headers, closed when the test ends. */
async function connect(t: Test, url: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'loupe-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers } }))
  t.teardown(() => client.close())
  return client
}

/** A tool's answer: its JSON text parsed, failing the test when the tool reported an error. */
async function call(t: Test, client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  const text = result.content[0]?.type === 'text' ? result.content[0].text : ''
  t.notOk(result.isError, result.isError ? `${name}: ${text}` : `${name} ${JSON.stringify(args)} answered`)
  return JSON.parse(text)
}

/** A tool's error: its text, failing the test when the tool did not report one. */
async function callError(t: Test, client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  t.equal(result.isError, true, `${name} ${JSON.stringify(args)} is an error`)
  return result.content[0]?.type === 'text' ? result.content[0].text : ''
}

/** Two projects' traces: failures, a retry, a slow one, a session, long texts and many steps. */
async function seed(app: LoupeApp, admin?: string) {
  const shop = await createProject(app, 'Shop', 'production', admin)
  const other = await createProject(app, 'Other', 'production', admin)
  const at = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString()
  const batch = await postBatch(app, shop.key, [
    {
      trace_id: 'shop-long',
      name: 'answer',
      model: 'gpt-4o',
      prompt: LONG,
      response: 'short',
      session_id: 'chat-1',
      user_id: 'ann',
      created_at: at(5),
      steps: Array.from({ length: 120 }, (_, i) => ({
        name: `step-${i}`,
        type: i % 2 ? 'tool' : 'llm',
        tool: i % 2 ? `tool-${i}` : null,
        input: { question: i === 1 ? LONG : 'q' },
        output: 'ok',
        latency: 1,
      })),
    },
    {
      trace_id: 'shop-failed',
      name: 'lookup',
      model: 'gpt-4o-mini',
      prompt: 'find the order',
      failure_reason: 'the order service timed out',
      session_id: 'chat-1',
      created_at: at(4),
    },
    {
      trace_id: 'shop-retry',
      prompt: 'search twice',
      steps: [{ tool: 'search' }, { tool: 'search' }],
      created_at: at(3),
    },
    { trace_id: 'shop-slow', prompt: 'slow one', latency: 9000, created_at: at(2) },
    { trace_id: 'shop-refund', prompt: 'please refund my order', response: 'refunded', created_at: at(1) },
  ])
  const other1 = await postBatch(app, other.key, [
    { trace_id: 'other-1', prompt: 'secret of another project', failure_reason: 'boom', created_at: at(1) },
  ])
  if (batch.json().accepted !== 5 || other1.json().accepted !== 1) throw new Error(`seed failed: ${batch.body}`)
  return { shop, other }
}

const TOOLS = [
  'add_score',
  'compare_traces',
  'get_analytics',
  'get_failures',
  'get_session',
  'get_trace',
  'list_sessions',
  'search_traces',
]

t.test('open mode: every tool answers what the REST API answers to the same question', async (t) => {
  const { app, url } = await startTestServer(t)
  await seed(app)
  const client = await connect(t, url)
  const rest = async (path: string, query: Record<string, string> = {}) => {
    const res = await app.inject({ url: path, query })
    t.equal(res.statusCode, 200, `GET ${path}`)
    return res.json()
  }

  t.match(client.getServerVersion(), { name: 'loupe' })
  t.match(client.getInstructions(), /get_failures/)

  const { tools } = await client.listTools()
  t.same(tools.map((tool) => tool.name).sort(), TOOLS, 'every tool, add_score too: open mode may record scores')
  const search = tools.find((tool) => tool.name === 'search_traces')
  t.same(
    Object.keys(search?.inputSchema.properties ?? {}).sort(),
    Object.keys(ListTracesQuery.properties)
      .filter((name) => name !== 'fields')
      .sort(),
    'search_traces takes every parameter of GET /traces but fields',
  )
  t.same(
    Object.keys(tools.find((tool) => tool.name === 'add_score')?.inputSchema.properties ?? {}).sort(),
    Object.keys(ScoreInputSchema.properties).sort(),
    'add_score takes the body of POST /scores',
  )
  for (const tool of tools) {
    t.notMatch(JSON.stringify(tool.inputSchema), /\$ref|loupe-timestamp/, `${tool.name}: a schema a client can read`)
    t.equal(tool.annotations?.readOnlyHint, tool.name !== 'add_score', `${tool.name} says whether it writes`)
  }

  // search_traces: the page of summaries of GET /traces?fields=summary, cursor and all.
  const first = await call(t, client, 'search_traces', { limit: 2 })
  const firstRest = await rest('/traces', { limit: '2', fields: 'summary' })
  t.same(first.items, firstRest.items)
  t.equal(first.total, 6)
  t.equal(first.next_cursor, firstRest.next_cursor)
  t.match(first.notes, [/2 of 6 traces shown: pass next_cursor/])
  const second = await call(t, client, 'search_traces', { limit: 2, cursor: first.next_cursor })
  t.same(second.items, (await rest('/traces', { limit: '2', fields: 'summary', cursor: first.next_cursor })).items)
  t.same(
    (await call(t, client, 'search_traces', { q: 'refund order', project_id: 'shop' })).items.map(
      (i: { trace_id: string }) => i.trace_id,
    ),
    ['shop-refund'],
    'q searches the texts',
  )
  const byLatency = await call(t, client, 'search_traces', { sort: 'latency', order: 'desc', limit: 1 })
  t.equal(byLatency.items[0].trace_id, 'shop-slow')
  t.same(
    (await call(t, client, 'search_traces', { status: 'failed', min_latency: 0, since: String(NOW - 3_600_000) }))
      .items,
    (await rest('/traces', { status: 'failed', min_latency: '0', since: String(NOW - 3_600_000), fields: 'summary' }))
      .items,
  )
  t.notOk('notes' in (await call(t, client, 'search_traces', { status: 'warning' })), 'no notes when all is shown')

  // get_trace: whole, it is GET /traces/{trace_id}; by default its texts are cut and its steps summed up.
  const whole = await call(t, client, 'get_trace', {
    trace_id: 'shop-long',
    steps: 'full',
    full_text: true,
    step_limit: 1000,
  })
  t.same(whole.trace, await rest('/traces/shop-long'))
  t.notOk('notes' in whole)
  const brief = await call(t, client, 'get_trace', { trace_id: 'shop-long' })
  t.equal(brief.step_count, 120)
  t.equal(brief.trace.steps.length, 100)
  t.same(Object.keys(brief.trace.steps[1]).sort(), [
    'cost',
    'error',
    'index',
    'latency',
    'name',
    'parent_index',
    'status',
    'token_count',
    'tool',
    'type',
  ])
  t.match(brief.trace.prompt, new RegExp(`^x{${MCP_TEXT_LIMIT}}… \\[cut: 500 more of ${LONG.length} characters`))
  t.match(brief.notes, [/steps 0–99 of 120 shown: step_offset=100 for the next/, /1 text longer than 2000/])
  const tail = await call(t, client, 'get_trace', { trace_id: 'shop-long', steps: 'full', step_offset: 100 })
  t.same(
    tail.trace.steps.map((s: { index: number }) => s.index),
    Array.from({ length: 20 }, (_, i) => 100 + i),
  )
  const cutInput = await call(t, client, 'get_trace', { trace_id: 'shop-long', steps: 'full', step_limit: 2 })
  t.match(cutInput.trace.steps[1].input, /^\{"question":"x+… \[cut: \d+ more of \d+ characters/, 'a long input is cut')
  t.same(cutInput.trace.steps[0].input, { question: 'q' }, 'a short one stays as it is')
  t.notOk('steps' in (await call(t, client, 'get_trace', { trace_id: 'shop-long', steps: 'none' })).trace)

  // get_failures and get_analytics: the same figures, the traces as summaries.
  const failures = await call(t, client, 'get_failures', {})
  const failuresRest = await rest('/failures', { limit: '10' })
  t.same(failures.totals, failuresRest.totals)
  for (const list of ['failed_traces', 'retries', 'slow_requests']) {
    t.same(
      failures[list].map((tr: { trace_id: string }) => tr.trace_id),
      failuresRest[list].map((tr: { trace_id: string }) => tr.trace_id),
      list,
    )
    for (const item of failures[list]) t.notOk('prompt' in item || 'steps' in item, `${list}: summaries`)
  }
  t.match(failures.failed_traces, [{ trace_id: 'other-1' }, { failure_reason: 'the order service timed out' }])
  const analytics = await call(t, client, 'get_analytics', { project_id: 'shop' })
  const analyticsRest = await rest('/analytics', { project_id: 'shop' })
  t.same(analytics.summary, analyticsRest.summary)
  t.same(analytics.status_breakdown, analyticsRest.status_breakdown)
  t.same(analytics.charts, analyticsRest.charts)
  t.same(
    analytics.recent_failures.map((tr: { trace_id: string }) => tr.trace_id),
    analyticsRest.recent_failures.map((tr: { trace_id: string }) => tr.trace_id),
  )

  // Sessions: the list as it is; one session's traces as summaries with their texts cut to a preview.
  t.same(await call(t, client, 'list_sessions', {}), await rest('/sessions', { limit: '20' }))
  const session = await call(t, client, 'get_session', { session_id: 'chat-1' })
  const sessionRest = await rest('/sessions/chat-1')
  t.same(session.session, sessionRest.session)
  t.same(
    session.traces.map((tr: { trace_id: string }) => tr.trace_id),
    sessionRest.traces.map((tr: { trace_id: string }) => tr.trace_id),
  )
  t.equal(session.traces[0].prompt.indexOf('…'), MCP_PREVIEW_LIMIT, 'a prompt cut to a preview')
  t.equal(session.traces[1].prompt, 'find the order')
  const sessionWhole = await call(t, client, 'get_session', { session_id: 'chat-1', full_text: true })
  t.equal(sessionWhole.traces[0].prompt, LONG)

  // add_score: stored as POST /scores stores it, and read back by the REST API.
  const score = await call(t, client, 'add_score', {
    trace_id: 'shop-failed',
    name: 'root_cause_found',
    value: true,
    comment: 'the order service timed out',
  })
  t.match(score, { trace_id: 'shop-failed', project_id: 'shop', name: 'root_cause_found', data_type: 'boolean' })
  t.same(score, await rest(`/scores/${score.score_id}`))

  // The trace resource.
  const { resourceTemplates } = await client.listResourceTemplates()
  t.match(resourceTemplates, [{ uriTemplate: 'loupe://traces/{trace_id}', mimeType: 'application/json' }])
  const { resources } = await client.listResources()
  t.equal(resources[0]?.uri, 'loupe://traces/shop-refund', 'the newest traces are listed')
  const read = await client.readResource({ uri: 'loupe://traces/shop-failed' })
  const content = read.contents[0] as { text: string; mimeType: string }
  t.equal(content.mimeType, 'application/json')
  t.same(JSON.parse(content.text).trace.prompt, 'find the order')
  await t.rejects(client.readResource({ uri: 'loupe://traces/nope' }), { code: -32002 })
  await t.rejects(client.readResource({ uri: 'loupe://projects/shop' }), { code: -32002 })
})

t.test('compare_traces: two traces side by side, their steps aligned as the viewer aligns them', async (t) => {
  const { app, url } = await startTestServer(t)
  const shop = await createProject(app, 'Shop', 'production')
  const steps = (names: string, output = 'ok', error: string | null = null) =>
    [...names].map((name) => ({ name, type: 'tool', tool: name, output, error, latency: 1 }))
  const posted = await postBatch(app, shop.key, [
    {
      trace_id: 'run-a',
      prompt: LONG,
      response: 'fine',
      latency: 100,
      token_count: 50,
      cost: 0.1,
      steps: steps('abc'),
    },
    {
      trace_id: 'run-b',
      prompt: LONG,
      response: 'worse',
      latency: 250,
      token_count: 80,
      cost: 0.3,
      failure_reason: 'tool c failed',
      steps: [...steps('ab'), ...steps('x'), ...steps('c', 'no', 'boom')],
    },
    { trace_id: 'run-long', prompt: 'p', steps: steps('ab'.repeat(150)) },
  ])
  t.equal(posted.json().accepted, 3)
  const client = await connect(t, url)
  const answer = await call(t, client, 'compare_traces', { trace_a: 'run-a', trace_b: 'run-b' })
  const rest = (id: string) => app.inject(`/traces/${id}`).then((r) => r.json())
  const [a, b] = await Promise.all([rest('run-a'), rest('run-b')])
  t.same(
    answer.steps.map(
      (r: { kind: string; a: { name: string } | null; b: { name: string } | null }) =>
        `${r.a?.name ?? '-'}>${r.b?.name ?? '-'}:${r.kind}`,
    ),
    ['a>a:same', 'b>b:same', '->x:added', 'c>c:changed'],
  )
  t.same(answer.steps[3].differs, ['status', 'error', 'output'], 'what differs in the changed pair')
  t.same(answer.step_alignment, { same: 2, changed: 1, added: 1, missing: 0 })
  t.same(
    [answer.a.latency, answer.b.latency, answer.a.token_count, answer.b.token_count, answer.a.cost, answer.b.cost],
    [a.latency, b.latency, a.token_count, b.token_count, a.cost, b.cost],
    'each side’s figures are the REST answer’s',
  )
  t.same(answer.difference, {
    latency: b.latency - a.latency,
    token_count: b.token_count - a.token_count,
    cost: 0.2,
    step_count: 1,
    status: `${a.status} → ${b.status}`,
    prompt: 'same',
    response: 'differs',
  })
  t.ok(answer.a.prompt.length < LONG.length && /cut: /.test(answer.a.prompt), 'a long prompt is cut')
  t.match(answer.notes.join(' '), /2 text\(s\) longer than/)
  const whole = await call(t, client, 'compare_traces', { trace_a: 'run-a', trace_b: 'run-b', full_text: true })
  t.equal(whole.a.prompt, LONG, 'full_text: the whole text')
  t.notOk(whole.notes, 'nothing cut, nothing noted')
  const long = await call(t, client, 'compare_traces', { trace_a: 'run-long', trace_b: 'run-a' })
  t.equal(long.steps.length, MCP_COMPARE_ROWS)
  t.match(long.notes.join(' '), new RegExp(`the first ${MCP_COMPARE_ROWS} of \\d+ aligned step pairs shown`))
})

t.test('bad arguments are an error naming the field; nothing is stored; nothing fails the server', async (t) => {
  const { app, url } = await startTestServer(t)
  await seed(app)
  const client = await connect(t, url)
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['search_traces', { limit: 0 }, /^Invalid arguments for tool search_traces: arguments\/limit must be >= 1$/],
    ['search_traces', { limit: '5' }, /arguments\/limit must be integer/],
    ['search_traces', { status: 'broken' }, /arguments\/status must be one of: "success", "warning", "failed"/],
    ['search_traces', { since: 'yesterday' }, /arguments\/since must be an ISO 8601 timestamp/],
    ['search_traces', { fields: 'full' }, /arguments\/fields is not an argument of this tool/],
    ['search_traces', { cursor: 'garbage' }, /^Loupe answered: 400 .*cursor/],
    ['get_trace', {}, /arguments must have required property 'trace_id'/],
    ['get_trace', { trace_id: 'a b' }, /arguments\/trace_id must match pattern/],
    [
      'get_trace',
      { trace_id: 'shop-long', steps: 'all' },
      /arguments\/steps must be one of: "none", "summary", "full"/,
    ],
    ['get_trace', { trace_id: 'nope' }, /^Loupe answered: 404 /],
    ['compare_traces', { trace_a: 'shop-long' }, /arguments must have required property 'trace_b'/],
    ['compare_traces', { trace_a: 'shop-long', trace_b: 'a b' }, /arguments\/trace_b must match pattern/],
    ['compare_traces', { trace_a: 'shop-long', trace_b: 'nope' }, /^Loupe answered: 404 trace 'nope'/],
    ['get_failures', { limit: 1001 }, /arguments\/limit must be <= 1000/],
    ['get_session', { session_id: '' }, /arguments\/session_id must NOT have fewer than 1 characters/],
    ['get_session', { session_id: 'nope' }, /^Loupe answered: 404 /],
    ['list_sessions', { since: 'soon' }, /arguments\/since/],
    ['add_score', { trace_id: 'shop-slow' }, /arguments must have required property 'name'/],
    ['add_score', { trace_id: 'shop-slow', name: 'q', value: 1e12 }, /arguments\/value must be <= 1000000000/],
    ['add_score', { trace_id: 'missing', name: 'q', value: 1 }, /^Loupe answered: 404 /],
  ]
  for (const [tool, args, message] of cases) {
    t.match(await callError(t, client, tool, args), message, `${tool} ${JSON.stringify(args)}`)
  }
  t.equal((await app.inject('/scores')).json().total, 0, 'no score stored')
  await t.rejects(client.callTool({ name: 'drop_tables', arguments: {} }), { code: -32602 }, 'an unknown tool')

  // Not MCP at all: the transport's own answers, never a 5xx.
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(new URL('/mcp', url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    })
  for (const body of ['{}', '[]', '{"jsonrpc":"2.0","method":"tools/call","id":1}', '"x"', 'null']) {
    const res = await post(body)
    t.ok(res.status < 500, `${body}: ${res.status}`)
  }
  t.equal((await post('{not json')).status, 400)
  const poisoned =
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_trace","arguments":{"__proto__":{}}}}'
  t.equal((await post(poisoned)).status, 400, 'a __proto__ key: the body refused, as on every route')
  const call = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
  t.equal((await post(call, { accept: 'text/html' })).status, 406)
  t.equal((await post(call)).status, 200, 'a stateless server answers without initialize')
  for (const method of ['GET', 'DELETE']) {
    const res = await fetch(new URL('/mcp', url), { method, headers: { accept: 'text/event-stream' } })
    t.equal(res.status, 405, method)
    t.equal(res.headers.get('allow'), 'POST')
  }
})

t.test('whatever arguments an assistant sends: an answer or a tool error, never a failure of the server', async (t) => {
  const { app, url } = await startTestServer(t)
  await seed(app)
  const client = await connect(t, url)
  const { tools } = await client.listTools()
  // Plausible values and wrong ones, for each tool's own parameters and for names it does not have. A `__proto__` key,
  // at any depth, is refused with the whole body, as on every route (see the test above), so no value holds one.
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }).filter((v) => !JSON.stringify(v).includes('"__proto__"')),
    fc.constantFrom('shop-long', 'chat-1', 'failed', 'full', 'latency', 'score:q', '\uD800', '', -1, 0, 1e308, 2.5),
    fc.string({ maxLength: 20 }),
  )
  let calls = 0
  for (const tool of tools) {
    const names = [...Object.keys(tool.inputSchema.properties ?? {}), 'constructor', 'toString', 'extra']
    const args = fc.dictionary(fc.constantFrom(...names), value, { maxKeys: 4 })
    await fc.assert(
      fc.asyncProperty(args, async (args) => {
        const result = (await client.callTool({ name: tool.name, arguments: args })) as CallToolResult
        calls++
        return result.content[0]?.type === 'text' && result.content[0].text.length > 0
      }),
      { numRuns: 25 },
    )
  }
  t.ok(calls >= 150, `${calls} calls answered`)
  t.equal((await app.inject('/health')).statusCode, 200, 'the server still answers')
})

t.test('protected mode: a project key sees its project only, the admin token everything', async (t) => {
  const { app, url } = await startTestServer(t, { config: { adminToken: ADMIN } })
  const { shop } = await seed(app, ADMIN)
  const publicKey = (
    await app.inject({
      method: 'POST',
      url: '/api-keys',
      query: { project_id: 'shop', environment: 'production', kind: 'public' },
      headers: { authorization: `Bearer ${ADMIN}` },
    })
  ).json().key

  // No credential, a wrong one, a public key: refused before any MCP message is read.
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  })
  const refused: [Record<string, string>, number, RegExp][] = [
    [{}, 401, /credential/],
    [{ authorization: 'Bearer loupe_sk_wrong' }, 401, /credential/],
    [{ authorization: `Bearer ${publicKey}` }, 403, /public key may only send feedback scores/],
    [{ 'x-api-key': publicKey }, 403, /public key may only send feedback scores/],
  ]
  for (const [headers, status, message] of refused) {
    const res = await fetch(new URL('/mcp', url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: initialize,
    })
    t.equal(res.status, status, JSON.stringify(headers))
    t.match((await res.json()).message, message)
  }
  await t.rejects(connect(t, url), 'the SDK client without a credential cannot connect')

  // A project key: its own project's traces, nothing of the other.
  const mine = await connect(t, url, { authorization: `Bearer ${shop.key}` })
  t.same((await mine.listTools()).tools.map((tool) => tool.name).sort(), TOOLS, 'a secret key may record scores')
  const listed = await call(t, mine, 'search_traces', { limit: 100 })
  t.equal(listed.total, 5)
  t.notOk(listed.items.some((i: { project_id: string }) => i.project_id !== 'shop'))
  t.match(await callError(t, mine, 'search_traces', { project_id: 'other' }), /^Loupe answered: 403 .*'shop'/)
  t.match(await callError(t, mine, 'get_trace', { trace_id: 'other-1' }), /^Loupe answered: 404 /)
  t.match(
    await callError(t, mine, 'compare_traces', { trace_a: 'shop-failed', trace_b: 'other-1' }),
    /^Loupe answered: 404 trace 'other-1'/,
    "a project key cannot compare another project's trace",
  )
  await t.rejects(mine.readResource({ uri: 'loupe://traces/other-1' }), { code: -32002 })
  t.equal((await call(t, mine, 'get_failures', {})).totals.failed_traces, 1)
  t.equal((await call(t, mine, 'get_analytics', {})).summary.total_traces, 5)
  t.match(await callError(t, mine, 'get_analytics', { project_id: 'other' }), /403/)
  t.match(await callError(t, mine, 'add_score', { trace_id: 'other-1', name: 'q', value: 1 }), /404/)
  t.notMatch(JSON.stringify(await mine.listResources()), /other-1/)
  const sameAsKey = await app.inject({ url: '/traces?fields=summary&limit=100', headers: { 'x-api-key': shop.key } })
  t.same(listed.items, sameAsKey.json().items, 'the key’s REST answer, whichever header carries it')
  const viaHeader = await connect(t, url, { 'x-api-key': shop.key })
  t.equal((await call(t, viaHeader, 'search_traces', {})).total, 5, 'X-API-Key works too')

  // The admin token: every project.
  const admin = await connect(t, url, { authorization: `Bearer ${ADMIN}` })
  t.equal((await call(t, admin, 'search_traces', {})).total, 6)
  t.equal((await call(t, admin, 'get_trace', { trace_id: 'other-1' })).trace.project_id, 'other')
  t.equal((await call(t, admin, 'get_analytics', { project_id: 'other' })).summary.total_traces, 1)
})
