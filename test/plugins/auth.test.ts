// Protected mode (docs/api.md, Authentication) through the HTTP interface: every route with every kind of credential, a project
// key confined to its project on every read and write, the admin token that sees all but cannot ingest, /ws with
// ?token=, and the warning when open mode listens beyond this machine.
import { Writable } from 'node:stream'
import t, { type Test } from 'tap'
import { buildApp } from '../../src/app.js'
import { defaultConfig } from '../../src/config.js'
import { isLoopback } from '../../src/plugins/auth.js'
import { createSqliteStore } from '../../src/store/sqlite/store.js'
import { buildTestApp, postBatch, postTrace } from '../helper.js'

const ADMIN = 'admin-token-for-tests-0123456789'

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/** A protected app with two projects (alpha: production key, beta: staging key), a revoked key and some traces. */
async function setup(t: Test) {
  const app = await buildTestApp(t, { config: { adminToken: ADMIN } })
  const create = async (name: string, environment: string) => {
    const res = await app.inject({
      method: 'POST',
      url: '/projects',
      query: { name, environment },
      headers: bearer(ADMIN),
    })
    t.equal(res.statusCode, 201, `admin creates ${name}`)
    return res.json() as { project: { project_id: string }; api_key: { key: string; key_id: string } }
  }
  const alpha = await create('Alpha', 'production')
  const beta = await create('Beta', 'staging')
  const gone = await app.inject({
    method: 'POST',
    url: '/api-keys',
    payload: { project_id: 'alpha', environment: 'production' },
    headers: bearer(ADMIN),
  })
  const revoked = gone.json().key as string
  t.equal(
    (await app.inject({ method: 'DELETE', url: `/api-keys/${gone.json().key_id}`, headers: bearer(ADMIN) })).statusCode,
    200,
  )
  const a = alpha.api_key.key
  const b = beta.api_key.key
  // Three traces each (the first failed), so that every read has something to show and to confine.
  for (const [secret, prefix, model] of [
    [a, 'a', 'ma'],
    [b, 'b', 'mb'],
  ] as const) {
    for (let i = 0; i < 3; i++) {
      const trace = { trace_id: `${prefix}-${i}`, prompt: prefix, model, failure_reason: i === 0 ? 'x' : undefined }
      t.equal((await postTrace(app, secret, trace)).statusCode, 201)
    }
  }
  return { app, a, b, revoked, alphaKeyId: alpha.api_key.key_id, betaKeyId: beta.api_key.key_id }
}

/** Every route a client can call, as inject options without credentials. */
const ROUTES = [
  { method: 'GET', url: '/traces' },
  { method: 'GET', url: '/traces/a-1' },
  { method: 'GET', url: '/analytics' },
  { method: 'GET', url: '/failures' },
  { method: 'GET', url: '/projects' },
  { method: 'GET', url: '/api-keys' },
  { method: 'POST', url: '/projects?name=Gamma&environment=development' },
  { method: 'POST', url: '/api-keys', payload: { project_id: 'alpha', environment: 'production' } },
  { method: 'DELETE', url: '/api-keys/some-key-id' },
  { method: 'POST', url: '/traces', payload: { prompt: 'p' } },
  { method: 'POST', url: '/traces/batch', payload: { traces: [{ prompt: 'p' }] } },
  { method: 'GET', url: '/no-such-route' },
] as const

t.test(
  'protected mode: every route but GET /, /health and the API docs answers 401 without a credential',
  async (t) => {
    const { app, revoked } = await setup(t)
    for (const path of ['/', '/health', '/docs', '/docs/json', '/docs/static/swagger-ui.css']) {
      t.equal((await app.inject(path)).statusCode, 200, `${path} is public`)
    }
    t.match((await app.inject('/docs/json')).json(), { openapi: String, paths: Object }, 'the whole document')
    const carriers: [string, Record<string, string>][] = [
      ['nothing', {}],
      ['an unknown bearer token', bearer('loupe_sk_00000000000000000000000000000000')],
      ['a revoked key', bearer(revoked)],
      ['an unknown X-API-Key', { 'x-api-key': 'not-a-token' }],
      ['a malformed Authorization', { authorization: `Basic ${ADMIN}` }],
      ['the admin token in the query string (only /ws reads it)', {}],
    ]
    for (const route of ROUTES) {
      for (const [what, headers] of carriers) {
        const url = what.startsWith('the admin token')
          ? `${route.url}${route.url.includes('?') ? '&' : '?'}token=${ADMIN}`
          : route.url
        const res = await app.inject({ ...route, url, headers })
        t.equal(res.statusCode, 401, `${route.method} ${route.url} with ${what}`)
        t.match(res.json(), { statusCode: 401, error: 'Unauthorized', message: String })
        t.notOk(res.body.includes(ADMIN), 'the body never echoes the token')
      }
    }
  },
)

t.test('protected mode: the admin token (Bearer or X-API-Key) reads and manages every project', async (t) => {
  const { app } = await setup(t)
  for (const headers of [bearer(ADMIN), { 'x-api-key': ADMIN }]) {
    const traces = (await app.inject({ url: '/traces', headers })).json()
    t.equal(traces.total, 6)
    t.equal((await app.inject({ url: '/traces?project_id=beta', headers })).json().total, 3)
    t.equal((await app.inject({ url: '/traces/b-1', headers })).statusCode, 200)
    t.equal((await app.inject({ url: '/analytics', headers })).json().summary.total_traces, 6)
    t.equal((await app.inject({ url: '/failures', headers })).json().totals.failed_traces, 2)
    t.equal((await app.inject({ url: '/projects', headers })).json().total, 2)
    t.equal((await app.inject({ url: '/api-keys', headers })).json().total, 3)
    t.equal((await app.inject({ url: '/docs/json', headers })).statusCode, 200)
  }
})

t.test('protected mode: the admin token cannot ingest (a trace belongs to the project of its key)', async (t) => {
  const { app } = await setup(t)
  const one = await postTrace(app, ADMIN, { prompt: 'p' })
  t.equal(one.statusCode, 403)
  t.match(one.json().message, /project API key/)
  t.equal((await postBatch(app, ADMIN, [{ prompt: 'p' }])).statusCode, 403)
  t.equal((await app.inject({ url: '/traces', headers: bearer(ADMIN) })).json().total, 6, 'nothing stored')
})

t.test('protected mode: a project key reads only its own project', async (t) => {
  const { app, a } = await setup(t)
  for (const headers of [bearer(a), { 'x-api-key': a }]) {
    const own = (await app.inject({ url: '/traces', headers })).json()
    t.equal(own.total, 3, 'no project_id: its own')
    t.ok(own.items.every((i: { project_id: string }) => i.project_id === 'alpha'))
    t.equal((await app.inject({ url: '/traces?project_id=alpha', headers })).json().total, 3)
    const other = await app.inject({ url: '/traces?project_id=beta', headers })
    t.equal(other.statusCode, 403, "another project's id: 403")
    t.notOk(other.body.includes(a))

    t.equal((await app.inject({ url: '/traces/a-1', headers })).statusCode, 200)
    const foreign = await app.inject({ url: '/traces/b-1', headers })
    t.equal(foreign.statusCode, 404, "another project's trace is answered as unknown")
    t.notOk(foreign.body.includes('"prompt"'), 'and nothing of it leaks')

    const analytics = (await app.inject({ url: '/analytics', headers })).json()
    t.equal(analytics.summary.total_traces, 3)
    t.strictSame(analytics.project_breakdown, [{ key: 'alpha', count: 3 }], 'breakdowns: only its project')
    t.strictSame(
      analytics.model_breakdown.map((e: { key: string }) => e.key),
      ['ma'],
    )
    t.ok(analytics.recent_failures.every((f: { project_id: string }) => f.project_id === 'alpha'))
    t.equal((await app.inject({ url: '/analytics?project_id=beta', headers })).statusCode, 403)

    const failures = (await app.inject({ url: '/failures', headers })).json()
    t.equal(failures.totals.failed_traces, 1)
    t.equal(failures.failed_traces[0].project_id, 'alpha')
    t.equal((await app.inject({ url: '/failures?project_id=beta', headers })).statusCode, 403)

    const projects = (await app.inject({ url: '/projects', headers })).json()
    t.strictSame(
      projects.items.map((p: { project_id: string }) => p.project_id),
      ['alpha'],
      'GET /projects: only its own',
    )
    const keys = (await app.inject({ url: '/api-keys', headers })).json()
    t.equal(keys.total, 2, "GET /api-keys: its project's keys (the live one and the revoked one)")
    t.ok(keys.items.every((k: { project_id: string }) => k.project_id === 'alpha'))
    t.equal((await app.inject({ url: '/api-keys?project_id=beta', headers })).statusCode, 403)
  }
})

t.test('protected mode: a project key manages keys only of its own project and environment', async (t) => {
  const { app, a, b, betaKeyId } = await setup(t)
  const headers = bearer(a)
  const project = await app.inject({ method: 'POST', url: '/projects?name=Gamma&environment=production', headers })
  t.equal(project.statusCode, 403, 'it may not create projects')

  const issue = (project_id: string, environment: string, as = headers) =>
    app.inject({ method: 'POST', url: '/api-keys', payload: { project_id, environment }, headers: as })
  const own = await issue('alpha', 'production')
  t.equal(own.statusCode, 201, 'a key for its own project and environment')
  const otherEnv = await app.inject({
    method: 'POST',
    url: '/api-keys?project_id=alpha&environment=development',
    headers,
  })
  t.equal(otherEnv.statusCode, 403, 'not for another environment (fields from the query string)')
  t.equal((await issue('beta', 'staging')).statusCode, 403, 'not for another project')

  const foreign = await app.inject({ method: 'DELETE', url: `/api-keys/${betaKeyId}`, headers })
  t.equal(foreign.statusCode, 404, "another project's key is answered as unknown")
  t.equal((await app.inject({ url: '/traces', headers: bearer(b) })).statusCode, 200, 'and stays live')

  const stagingKey = (await issue('alpha', 'staging', bearer(ADMIN))).json().key_id as string
  t.equal(
    (await app.inject({ method: 'DELETE', url: `/api-keys/${stagingKey}`, headers })).statusCode,
    403,
    'not a key of another environment',
  )

  const successor = own.json()
  t.equal(
    (await app.inject({ method: 'DELETE', url: `/api-keys/${successor.key_id}`, headers })).statusCode,
    200,
    'revokes its own project key',
  )
  t.equal((await app.inject({ url: '/traces', headers: bearer(successor.key) })).statusCode, 401, 'refused at once')
})

t.test('protected mode: a project key ingests into its own project only', async (t) => {
  const { app, a } = await setup(t)
  const res = await postTrace(app, a, { trace_id: 'mine', prompt: 'p', project_id: 'beta' })
  t.equal(res.statusCode, 201)
  t.equal(res.json().project_id, 'alpha', 'project_id comes from the key, never the body')
  t.equal(
    (await postTrace(app, a, { trace_id: 'b-1', prompt: 'p' })).statusCode,
    409,
    "another project's trace id: 409, nothing changes",
  )
})

t.test('open mode is as before: reads and management open, ingest needs a key', async (t) => {
  const app = await buildTestApp(t)
  t.equal((await app.inject({ method: 'POST', url: '/projects?name=Open&environment=development' })).statusCode, 201)
  for (const url of ['/traces', '/analytics', '/failures', '/projects', '/api-keys', '/docs/json']) {
    t.equal((await app.inject(url)).statusCode, 200, url)
  }
  t.equal((await app.inject({ method: 'POST', url: '/traces', payload: { prompt: 'p' } })).statusCode, 401)
  t.equal((await postTrace(app, ADMIN, { prompt: 'p' })).statusCode, 401, 'there is no admin token in open mode')
})

t.test('a short admin token is refused at start', async (t) => {
  const { loadConfig } = await import('../../src/config.js')
  t.throws(() => loadConfig({ LOUPE_ADMIN_TOKEN: 'short' }), /LOUPE_ADMIN_TOKEN/)
  t.equal(loadConfig({ LOUPE_ADMIN_TOKEN: ADMIN }).adminToken, ADMIN)
  t.equal(loadConfig({}).adminToken, null)
})

/** Log lines of an app that listens on `host`, in `mode`. */
async function startupLog(t: Test, host: string, adminToken: string | null): Promise<string[]> {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean))
      done()
    },
  })
  const app = await buildApp(
    { ...defaultConfig(), databaseUrl: ':memory:', host, adminToken },
    { store: createSqliteStore(':memory:'), logger: { level: 'warn', stream } },
  )
  t.teardown(() => app.close())
  await app.listen({ host, port: 0 })
  return lines
}

t.test('a warning at start when open mode listens beyond loopback', async (t) => {
  const exposed = await startupLog(t, '0.0.0.0', null)
  t.ok(
    exposed.some((l) => /open mode/.test(l) && /LOUPE_ADMIN_TOKEN/.test(l)),
    'open mode on 0.0.0.0 warns',
  )
  t.notOk(
    (await startupLog(t, '127.0.0.1', null)).some((l) => /open mode/.test(l)),
    'loopback: no warning',
  )
  t.notOk(
    (await startupLog(t, '0.0.0.0', ADMIN)).some((l) => /open mode/.test(l)),
    'protected mode: no warning',
  )
})

t.test('isLoopback', async (t) => {
  for (const a of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1']) t.ok(isLoopback(a), a)
  for (const a of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.1', '::ffff:10.0.0.1', 'example.com'])
    t.notOk(isLoopback(a), a)
})
