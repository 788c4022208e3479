// loupe.subscribe(): traces arrive as they are stored, filtered by project, and the stream comes back by itself
// after the server restarts.
import t from 'tap'
import { buildApp } from '../../src/app.js'
import { Loupe, type SubscriptionStatus, type Trace } from '../../src/client/index.js'
import { defaultConfig } from '../../src/config.js'
import { createProject, startTestServer, waitFor } from '../helper.js'

t.test('subscribe() hands over each stored trace, only those of its project when asked', async (t) => {
  const { app, url } = await startTestServer(t)
  const a = await createProject(app, 'Alpha')
  const b = await createProject(app, 'Beta')
  const reader = new Loupe({ baseUrl: url, enabled: false })
  const all: Trace[] = []
  const onlyA: Trace[] = []
  const types: string[] = []
  const s1 = reader.subscribe((trace) => all.push(trace), { onMessage: (m) => types.push(m.type) })
  const s2 = reader.subscribe((trace) => onlyA.push(trace), { projectId: a.project_id })
  t.teardown(() => reader.shutdown())
  await Promise.all([s1.opened, s2.opened])
  await waitFor(() => types.includes('connection.established'), 2000, 'the greeting')

  const writerA = new Loupe({ baseUrl: url, apiKey: a.key })
  const writerB = new Loupe({ baseUrl: url, apiKey: b.key })
  await writerA.trace({ name: 'from-a', prompt: 'p' }, () => 'ok')
  await writerB.trace({ name: 'from-b', prompt: 'p' }, () => 'ok')
  await Promise.all([writerA.shutdown(), writerB.shutdown()])

  await waitFor(() => all.length === 2, 3000, 'both traces')
  t.same(all.map((trace) => trace.name).sort(), ['from-a', 'from-b'])
  await waitFor(() => onlyA.length === 1, 3000, "alpha's trace")
  t.equal(onlyA[0]?.name, 'from-a')
  t.equal(onlyA[0]?.project_id, a.project_id)
})

t.test('the stream reconnects after the server restarts, and a throwing callback does not break it', async (t) => {
  const start = async (port: number) => {
    const app = await buildApp(
      { ...defaultConfig(), databaseUrl: ':memory:', logLevel: 'silent', maxEventLoopDelayMs: 0 },
      { logger: false },
    )
    await app.listen({ port, host: '127.0.0.1' })
    return app
  }
  const first = await start(0)
  const port = (first.server.address() as { port: number }).port
  const url = `http://127.0.0.1:${port}`
  const statuses: SubscriptionStatus['state'][] = []
  const received: string[] = []
  const warnings: string[] = []
  const reader = new Loupe({ baseUrl: url, enabled: false, onWarning: (m) => warnings.push(m) })
  const subscription = reader.subscribe(
    (trace) => {
      received.push(trace.name ?? '')
      throw new Error('a bug in the app’s callback')
    },
    { onStatus: (s) => statuses.push(s.state), baseDelayMs: 20, maxDelayMs: 100 },
  )
  await subscription.opened
  await first.close()
  await waitFor(() => statuses.includes('reconnecting'), 3000, 'a reconnect attempt')

  const second = await start(port)
  t.teardown(() => second.close())
  await waitFor(() => statuses.filter((s) => s === 'open').length === 2, 5000, 'the second connection')
  const { key } = await createProject(second, 'After Restart')
  const writer = new Loupe({ baseUrl: url, apiKey: key })
  await writer.trace({ name: 'after-restart', prompt: 'p' }, () => 'ok')
  await writer.trace({ name: 'and-another', prompt: 'p' }, () => 'ok')
  await writer.shutdown()
  await waitFor(() => received.length === 2, 3000, 'traces after the restart')
  t.same(received, ['after-restart', 'and-another'])
  t.match(warnings[0], /subscribe callback threw: a bug/)
  subscription.close()
  t.equal(statuses.at(-1), 'closed')
})

t.test(
  'protected mode: the credential goes as ?token=, a project key streams its own project, no status shows it',
  async (t) => {
    const admin = 'admin-token-for-the-sdk-test'
    const { app, url } = await startTestServer(t, { config: { adminToken: admin } })
    const a = await createProject(app, 'Guarded A', 'development', admin)
    const b = await createProject(app, 'Guarded B', 'development', admin)
    const urls: string[] = []
    const seen: string[] = []
    const reader = new Loupe({ baseUrl: url, apiKey: a.key, enabled: false })
    t.teardown(() => reader.shutdown())
    const subscription = reader.subscribe((trace) => seen.push(trace.project_id), {
      onStatus: (s) => urls.push(s.url),
    })
    await subscription.opened
    for (const { key } of [a, b]) {
      const writer = new Loupe({ baseUrl: url, apiKey: key })
      await writer.trace({ prompt: 'p' }, () => 'ok')
      await writer.shutdown()
    }
    await waitFor(() => seen.length === 1, 3000, "project A's trace")
    await new Promise((resolve) => setTimeout(resolve, 100))
    t.same(seen, [a.project_id], "only the key's own project")
    t.same(urls, [`${url.replace('http', 'ws')}/ws?token=***`])
    t.same(
      (await reader.listTraces()).items.map((trace) => trace.project_id),
      [a.project_id],
      'reads are scoped too',
    )
  },
)
