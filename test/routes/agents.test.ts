// Reading traces by agent: GET /traces?agent= lists the traces with a step invoking that agent (and MCP search_traces
// answers the same), /analytics breaks calls, failures and mean latency down per agent and per tool, and both follow
// a deletion — by id and by filter — exactly.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import t from 'tap'
import { AnalyticsResponse } from '../../schemas/index.js'
import { createProject, postBatch, schemaErrors, startTestServer } from '../helper.js'

const NOW = Date.now()
const at = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString()

const agent = (name: string, extra: Record<string, unknown> = {}) => ({ name, type: 'agent', ...extra })
const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name: `call ${name}`,
  type: 'tool',
  tool: name,
  ...extra,
})

t.test('GET /traces?agent=, /analytics per agent and per tool, MCP search_traces, after deletions', async (t) => {
  const { app, url } = await startTestServer(t)
  const shop = await createProject(app, 'Shop')
  const lab = await createProject(app, 'Lab')
  const shopBatch = await postBatch(app, shop.key, [
    {
      trace_id: 'a1',
      prompt: 'plan a trip',
      created_at: at(5),
      steps: [
        agent('planner', { latency: 100 }),
        tool('search', { parent_index: 0, latency: 10 }),
        tool('search', { parent_index: 0, latency: 30, status: 'failed', error: 'timeout' }),
        agent('writer', { parent_index: 0, latency: 50 }),
      ],
    },
    {
      trace_id: 'a2',
      prompt: 'plan again',
      created_at: at(4),
      steps: [agent('planner', { latency: 300.5, status: 'failed', error: 'gave up' }), agent('planner')],
    },
    // A tool step without `tool` is a call of the tool of its name; an llm step is no call.
    { trace_id: 'a3', prompt: 'chat', created_at: at(3), steps: [{ name: 'fetch', type: 'tool' }, { type: 'llm' }] },
  ])
  t.equal(shopBatch.json().accepted, 3)
  await postBatch(app, lab.key, [
    { trace_id: 'b1', prompt: 'lab', created_at: at(2), steps: [agent('planner', { latency: 1 }), tool('search')] },
  ])

  const ids = async (query: string) => {
    const res = await app.inject({ method: 'GET', url: `/traces?${query}` })
    t.equal(res.statusCode, 200, query)
    const body = res.json()
    return { total: body.total, ids: body.items.map((x: { trace_id: string }) => x.trace_id) }
  }
  t.same(await ids('agent=planner'), { total: 3, ids: ['b1', 'a2', 'a1'] }, 'every trace invoking the agent')
  t.same(await ids('agent=planner&project_id=shop'), { total: 2, ids: ['a2', 'a1'] }, 'within a project')
  // a1 failed (the search's last attempt failed), a2 recovered (a warning).
  t.same(await ids('agent=planner&status=failed'), { total: 1, ids: ['a1'] }, 'with another filter')
  t.same(await ids('agent=writer&fields=summary'), { total: 1, ids: ['a1'] }, 'as summaries')
  t.same(await ids('agent=search'), { total: 0, ids: [] }, 'a tool is no agent')
  t.same(await ids('agent=planner&limit=1&offset=1'), { total: 3, ids: ['a2'] }, 'paged')

  const empty = await app.inject({ method: 'GET', url: '/traces?agent=' })
  t.equal(empty.statusCode, 400)
  t.match(empty.json().message, /querystring\/agent/, 'an empty agent name is refused, naming the field')

  const analytics = async (query = '') => {
    const res = await app.inject({ method: 'GET', url: `/analytics${query}` })
    t.equal(res.statusCode, 200)
    t.same(schemaErrors(AnalyticsResponse, res.json()), [])
    const { agent_breakdown, tool_breakdown } = res.json()
    return { agents: agent_breakdown, tools: tool_breakdown }
  }
  t.same(
    await analytics('?project_id=shop'),
    {
      agents: [
        // (100 + 300.5) / 2 timed calls; the third call reports no latency.
        { key: 'planner', traces: 2, calls: 3, failures: 1, mean_latency: 200.25 },
        { key: 'writer', traces: 1, calls: 1, failures: 0, mean_latency: 50 },
      ],
      tools: [
        { key: 'search', traces: 1, calls: 2, failures: 1, mean_latency: 20 },
        { key: 'fetch', traces: 1, calls: 1, failures: 0, mean_latency: null },
      ],
    },
    'per agent and per tool of a project: calls desc, then name',
  )
  t.same(
    (await analytics()).agents[0],
    { key: 'planner', traces: 3, calls: 4, failures: 1, mean_latency: 133.83 },
    'summed over projects',
  )

  // The MCP tool takes the same filter and answers the same traces.
  const client = new Client({ name: 'loupe-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url)))
  t.teardown(() => client.close())
  const result = (await client.callTool({
    name: 'search_traces',
    arguments: { agent: 'planner', project_id: 'shop' },
  })) as CallToolResult
  t.notOk(result.isError)
  const answer = JSON.parse(result.content[0]?.type === 'text' ? result.content[0].text : '{}')
  t.same(
    answer.items.map((x: { trace_id: string }) => x.trace_id),
    ['a2', 'a1'],
    'MCP search_traces by agent',
  )
  const bad = (await client.callTool({ name: 'search_traces', arguments: { agent: '' } })) as CallToolResult
  t.equal(bad.isError, true)
  t.match(bad.content[0]?.type === 'text' ? bad.content[0].text : '', /agent/, 'a bad agent names the field')

  // Deleted by id, then by the agent filter itself: the list and the breakdowns follow.
  t.equal((await app.inject({ method: 'DELETE', url: '/traces/a1' })).statusCode, 204)
  t.same(await ids('agent=writer'), { total: 0, ids: [] })
  t.same(
    await analytics('?project_id=shop'),
    {
      agents: [{ key: 'planner', traces: 1, calls: 2, failures: 1, mean_latency: 300.5 }],
      tools: [{ key: 'fetch', traces: 1, calls: 1, failures: 0, mean_latency: null }],
    },
    'a deleted trace takes its calls away; an agent or tool left with none goes',
  )
  const byFilter = await app.inject({ method: 'DELETE', url: '/traces?agent=planner' })
  t.equal(byFilter.statusCode, 200)
  t.equal(byFilter.json().deleted, 2, 'DELETE /traces?agent= deletes the traces invoking it')
  t.same(await ids('agent=planner'), { total: 0, ids: [] })
  t.same(await analytics(), {
    agents: [],
    tools: [{ key: 'fetch', traces: 1, calls: 1, failures: 0, mean_latency: null }],
  })
})
