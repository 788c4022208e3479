// `loupe mcp`: the MCP server over stdio, spawned as an assistant spawns it and asked with the SDK's own client — the
// same tools as /mcp, each answering what the REST API answers the same credential, a project key confined to its
// project, --read-only without add_score, and a server that cannot be reached told as a tool error.
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import t, { type Test } from 'tap'
import { createProject, postBatch, startTestServer, unusedPort } from '../helper.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const ADMIN = 'admin-token-for-mcp-stdio-0123456789'

/** `loupe <global options> mcp <options>` started as an assistant starts it, and a client over its stdio. */
async function spawnMcp(t: Test, global: string[], options: string[] = []) {
  const stderr: string[] = []
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', join(root, 'src/cli/index.ts'), ...global, 'mcp', ...options],
    cwd: root,
    // Nothing of this process's own Loupe settings: only what the arguments say.
    env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('LOUPE_'))) as Record<
      string,
      string
    >,
    stderr: 'pipe',
  })
  transport.stderr?.on('data', (chunk) => stderr.push(String(chunk)))
  const client = new Client({ name: 'loupe-test', version: '1.0.0' })
  await client.connect(transport)
  t.teardown(() => client.close())
  return { client, stderr }
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  const text = result.content[0]?.type === 'text' ? result.content[0].text : ''
  return { error: result.isError === true, text, json: result.isError ? undefined : JSON.parse(text) }
}

t.test('loupe mcp answers what the REST API answers the same credential', async (t) => {
  const { app, url } = await startTestServer(t, { config: { adminToken: ADMIN } })
  const shop = await createProject(app, 'Shop', 'production', ADMIN)
  const other = await createProject(app, 'Other', 'production', ADMIN)
  await postBatch(app, shop.key, [
    { trace_id: 's1', prompt: 'first', session_id: 'c1', steps: [{ tool: 'search' }, { tool: 'search' }] },
    { trace_id: 's2', prompt: 'second', session_id: 'c1', failure_reason: 'timeout' },
  ])
  await postBatch(app, other.key, [{ trace_id: 'o1', prompt: 'not yours', failure_reason: 'boom' }])
  const rest = async (path: string, key: string) => {
    const res = await app.inject({ url: path, headers: { authorization: `Bearer ${key}` } })
    t.equal(res.statusCode, 200, path)
    return res.json()
  }

  const { client } = await spawnMcp(t, ['--url', url, '--token', shop.key])
  t.match(client.getServerVersion(), { name: 'loupe' })
  const overHttp = new Client({ name: 'loupe-test', version: '1.0.0' })
  await overHttp.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', url), {
      requestInit: { headers: { authorization: `Bearer ${shop.key}` } },
    }),
  )
  t.teardown(() => overHttp.close())
  const { tools } = await client.listTools()
  t.equal(tools.length, 8)
  t.same(tools, (await overHttp.listTools()).tools, 'the tools of /mcp, schemas and all')

  const search = await call(client, 'search_traces', {})
  t.same(search.json.items, (await rest('/traces?fields=summary&limit=20', shop.key)).items, 'search_traces')
  t.equal(search.json.total, 2, 'the project key’s traces only')
  const trace = await call(client, 'get_trace', { trace_id: 's1', steps: 'full', full_text: true })
  t.same(trace.json.trace, await rest('/traces/s1', shop.key), 'get_trace')
  const failures = await call(client, 'get_failures', {})
  t.same(failures.json.totals, (await rest('/failures', shop.key)).totals, 'get_failures')
  const analytics = await call(client, 'get_analytics', {})
  t.same(analytics.json.summary, (await rest('/analytics', shop.key)).summary, 'get_analytics')
  const sessions = await call(client, 'list_sessions', {})
  t.same(sessions.json, await rest('/sessions?limit=20', shop.key), 'list_sessions')
  const session = await call(client, 'get_session', { session_id: 'c1' })
  t.same(session.json.session, (await rest('/sessions/c1', shop.key)).session, 'get_session')
  const score = await call(client, 'add_score', { trace_id: 's2', name: 'triaged', value: true })
  t.same(score.json, await rest(`/scores/${score.json.score_id}`, shop.key), 'add_score')

  // Another project's traces do not exist for this key; bad arguments name the field.
  t.match(await call(client, 'get_trace', { trace_id: 'o1' }), { error: true, text: /^Loupe answered: 404 / })
  t.match(await call(client, 'search_traces', { project_id: other.project_id }), { error: true, text: /403/ })
  t.match(await call(client, 'search_traces', { limit: 5000 }), {
    error: true,
    text: 'Invalid arguments for tool search_traces: arguments/limit must be <= 1000',
  })
  const read = await client.readResource({ uri: 'loupe://traces/s2' })
  t.match(JSON.parse((read.contents[0] as { text: string }).text), { trace: { trace_id: 's2', prompt: 'second' } })

  // The admin token reads every project; --read-only offers no add_score.
  const admin = await spawnMcp(t, ['--url', url, '--token', ADMIN], ['--read-only'])
  t.notOk(
    (await admin.client.listTools()).tools.some((tool) => tool.name === 'add_score'),
    '--read-only',
  )
  await t.rejects(admin.client.callTool({ name: 'add_score', arguments: { name: 'x', value: 1 } }), { code: -32602 })
  t.equal((await call(admin.client, 'search_traces', {})).json.total, 3)

  // Without a credential the protected server refuses each call: a tool error, the server’s own words.
  const none = await spawnMcp(t, ['--url', url])
  t.match(await call(none.client, 'get_failures', {}), { error: true, text: /^Loupe answered: 401 / })
})

t.test('loupe mcp with no server to reach: each call is a tool error saying so', async (t) => {
  const { client, stderr } = await spawnMcp(t, ['--url', `http://127.0.0.1:${await unusedPort()}`])
  t.match(await call(client, 'search_traces', {}), {
    error: true,
    text: /^Loupe answered: cannot reach the Loupe server at http:\/\/127\.0\.0\.1:\d+\/ \(connection refused/,
  })
  t.equal(stderr.join(''), '', 'nothing on stderr either')
})
