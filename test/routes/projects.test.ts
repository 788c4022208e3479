// GET /projects and POST /projects: the project is created with its first API key (docs/api.md, Projects and keys).
import t, { type Test } from 'tap'
import { CreateProjectResponse, ErrorSchema, ListProjectsResponse, ProjectSchema } from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { buildTestApp, postTrace, schemaErrors } from '../helper.js'

// 2026-11-21T13:45:00.000Z, worked out independently with `date -u -d @1795268700`.
const NOW = 1_795_268_700_000
const ZONELESS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/
const KEY = /^loupe_sk_[A-Za-z0-9]{32}$/

function createViaQuery(app: LoupeApp, query: Record<string, string>) {
  return app.inject({ method: 'POST', url: '/projects', query })
}

function createViaBody(app: LoupeApp, payload: Record<string, unknown>) {
  return app.inject({ method: 'POST', url: '/projects', payload })
}

/** Asserts a 400 in the contract's error shape whose message names `field`. */
function badRequestNaming(t: Test, res: { statusCode: number; json: () => unknown }, field: string, label: string) {
  t.equal(res.statusCode, 400, `${label}: 400`)
  const body = res.json() as { statusCode: number; error: string; message: string }
  t.same(schemaErrors(ErrorSchema, body), [], `${label}: error shape`)
  t.equal(body.error, 'Bad Request')
  t.match(body.message, new RegExp(`\\b${field}\\b`), `${label}: names ${field} (${body.message})`)
}

async function projectCount(app: LoupeApp): Promise<number> {
  return (await app.inject('/projects')).json().total
}

t.test('POST /projects with the fields in the query string answers 201 { project, api_key }', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const res = await createViaQuery(app, { name: 'Acme Corp', environment: 'production', description: 'Main app' })
  t.equal(res.statusCode, 201)
  const body = res.json()
  t.same(schemaErrors(CreateProjectResponse, body), [])
  t.strictSame(body.project, {
    project_id: 'acme-corp',
    name: 'Acme Corp',
    description: 'Main app',
    created_at: '2026-11-21T13:45:00.000',
  })
  t.strictSame(Object.keys(body.api_key).sort(), [
    'created_at',
    'environment',
    'key',
    'key_id',
    'key_preview',
    'kind',
    'project_id',
  ])
  t.match(body.api_key.key, KEY)
  t.equal(body.api_key.project_id, 'acme-corp')
  t.equal(body.api_key.environment, 'production')
  t.equal(body.api_key.created_at, '2026-11-21T13:45:00.000')
  const random = body.api_key.key.slice('loupe_sk_'.length)
  t.equal(body.api_key.key_preview, `loupe_sk_${random.slice(0, 4)}…${random.slice(-4)}`)
  t.type(body.api_key.key_id, 'string')
  t.ok(body.api_key.key_id.length > 0)
})

t.test('POST /projects with the fields in a JSON body answers 201; the body wins over the query', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const res = await createViaBody(app, { name: 'Globex', environment: 'staging' })
  t.equal(res.statusCode, 201)
  t.same(schemaErrors(CreateProjectResponse, res.json()), [])
  t.strictSame(res.json().project, {
    project_id: 'globex',
    name: 'Globex',
    description: '',
    created_at: '2026-11-21T13:45:00.000',
  })
  t.equal(res.json().api_key.environment, 'staging')

  const both = await app.inject({
    method: 'POST',
    url: '/projects',
    query: { name: 'From Query', environment: 'development', description: 'query' },
    payload: { name: 'From Body', environment: 'production' },
  })
  t.equal(both.statusCode, 201)
  t.equal(both.json().project.project_id, 'from-body')
  t.equal(both.json().project.description, 'query', 'a field only in the query is still taken')
  t.equal(both.json().api_key.environment, 'production')
})

t.test('POST /projects with Content-Type: application/json and no body takes the query string', async (t) => {
  const app = await buildTestApp(t)
  const res = await app.inject({
    method: 'POST',
    url: '/projects?name=Initech&environment=development',
    headers: { 'content-type': 'application/json' },
  })
  t.equal(res.statusCode, 201)
  t.equal(res.json().project.project_id, 'initech')
})

t.test(
  'project_id is the slug of the name: lower-case, accents folded, runs of others → "-", trimmed, ≤ 64',
  async (t) => {
    const app = await buildTestApp(t)
    const cases: [string, string][] = [
      ['My Project', 'my-project'],
      ['  Hello,   World!  ', 'hello-world'],
      ['API_v2.0', 'api-v2-0'],
      ['---x---', 'x'],
      ['Crème Brûlée', 'creme-brulee'],
      ['ÀÉÎÕÜ ñ', 'aeiou-n'],
      ['日本 Project 2', 'project-2'],
      ['a'.repeat(100), 'a'.repeat(64)],
      // Trimmed, then cut: leading punctuation does not count against the 64.
      [`  !!${'z'.repeat(96)}`, 'z'.repeat(64)],
      // Cut at 64 lands on the dash: the dash is trimmed too.
      [`${'b'.repeat(63)} c`, 'b'.repeat(63)],
      ['UPPER lower 123', 'upper-lower-123'],
    ]
    for (const [name, slug] of cases) {
      const res = await createViaQuery(app, { name, environment: 'development' })
      t.equal(res.statusCode, 201, `${JSON.stringify(name)} is accepted`)
      t.equal(res.json().project.project_id, slug, `${JSON.stringify(name)} → ${slug}`)
      t.equal(res.json().project.name, name, 'the name is kept as given')
      t.equal(res.json().api_key.project_id, slug, 'the key belongs to the slug')
    }
  },
)

t.test('POST /projects with a name that has no letter or digit is a 400 naming name', async (t) => {
  const app = await buildTestApp(t)
  for (const name of ['!!!', '   ', '日本', '-_-']) {
    badRequestNaming(t, await createViaQuery(app, { name, environment: 'development' }), 'name', JSON.stringify(name))
  }
  t.equal(await projectCount(app), 0, 'nothing was created')
  t.equal((await app.inject('/api-keys')).json().total, 0, 'no key was issued')
})

t.test('POST /projects with a taken slug is a 409 and issues no key', async (t) => {
  const app = await buildTestApp(t)
  t.equal((await createViaQuery(app, { name: 'Acme', environment: 'development' })).statusCode, 201)
  for (const name of ['Acme', 'ACME!', ' acme ']) {
    const res = await createViaQuery(app, { name, environment: 'production' })
    t.equal(res.statusCode, 409, `${JSON.stringify(name)} → 409`)
    t.same(schemaErrors(ErrorSchema, res.json()), [])
    t.match(res.json(), { statusCode: 409, error: 'Conflict', message: /acme/ })
  }
  t.equal(await projectCount(app), 1)
  t.equal((await app.inject('/api-keys')).json().total, 1)
  t.equal((await app.inject('/projects')).json().items[0].name, 'Acme', 'the first project is unchanged')
})

t.test('POST /projects: name is required and 1–100 characters', async (t) => {
  const app = await buildTestApp(t)
  badRequestNaming(t, await createViaQuery(app, { environment: 'development' }), 'name', 'missing')
  badRequestNaming(t, await createViaQuery(app, { name: '', environment: 'development' }), 'name', 'empty')
  badRequestNaming(t, await createViaQuery(app, { name: 'n'.repeat(101), environment: 'development' }), 'name', '101')
  badRequestNaming(t, await createViaBody(app, { name: 42, environment: 'development' }), 'name', 'a number in JSON')
  t.equal(await projectCount(app), 0)
  const longest = await createViaQuery(app, { name: 'n'.repeat(100), environment: 'development' })
  t.equal(longest.statusCode, 201, '100 characters are fine')
  const shortest = await createViaQuery(app, { name: 'x', environment: 'development' })
  t.equal(shortest.statusCode, 201, '1 character is fine')
})

t.test('POST /projects: description is at most 1000 characters and defaults to ""', async (t) => {
  const app = await buildTestApp(t)
  const none = await createViaQuery(app, { name: 'No Description', environment: 'development' })
  t.equal(none.json().project.description, '')
  const longest = await createViaBody(app, { name: 'Long', environment: 'development', description: 'd'.repeat(1000) })
  t.equal(longest.statusCode, 201)
  t.equal(longest.json().project.description.length, 1000)
  badRequestNaming(
    t,
    await createViaBody(app, { name: 'Too Long', environment: 'development', description: 'd'.repeat(1001) }),
    'description',
    '1001 characters',
  )
  t.equal(await projectCount(app), 2)
})

t.test('POST /projects: environment is required and one of development, staging, production', async (t) => {
  const app = await buildTestApp(t)
  for (const environment of ['development', 'staging', 'production']) {
    const res = await createViaQuery(app, { name: `env ${environment}`, environment })
    t.equal(res.statusCode, 201, environment)
    t.equal(res.json().api_key.environment, environment)
  }
  badRequestNaming(t, await createViaQuery(app, { name: 'x' }), 'environment', 'missing')
  badRequestNaming(t, await createViaQuery(app, { name: 'x', environment: 'prod' }), 'environment', 'prod')
  badRequestNaming(t, await createViaQuery(app, { name: 'x', environment: 'Production' }), 'environment', 'case')
  badRequestNaming(t, await createViaBody(app, { name: 'x', environment: 3 }), 'environment', 'a number')
  t.equal(await projectCount(app), 3)
})

t.test('POST /projects refuses a body that is not a JSON object', async (t) => {
  const app = await buildTestApp(t)
  const post = (url: string, contentType: string, payload: string) =>
    app.inject({ method: 'POST', url, headers: { 'content-type': contentType }, payload })
  const text = await post('/projects?name=x&environment=development', 'text/plain', 'name=x')
  t.equal(text.statusCode, 415, 'text/plain is an unsupported media type')
  t.same(schemaErrors(ErrorSchema, text.json()), [])
  const array = await post('/projects', 'application/json', '[{"name":"x","environment":"development"}]')
  t.equal(array.statusCode, 400, 'a JSON array is a 400')
  t.match(array.json().message, /body/)
  t.equal(await projectCount(app), 0)
})

t.test('created_at of projects and keys is ISO 8601 without a zone, in UTC', async (t) => {
  const app = await buildTestApp(t)
  const before = Date.now()
  const res = await createViaQuery(app, { name: 'Clocked', environment: 'development' })
  const after = Date.now()
  const { project, api_key } = res.json()
  t.match(project.created_at, ZONELESS)
  t.match(api_key.created_at, ZONELESS)
  // Read as UTC, the stamp falls between the two readings of the clock.
  const at = Date.parse(`${project.created_at}Z`)
  t.ok(at >= before - 1 && at <= after + 1, `${project.created_at} is now, in UTC`)
  const listed = (await app.inject('/projects')).json().items[0]
  t.match(listed.created_at, ZONELESS)
  t.equal(listed.created_at, project.created_at)
})

t.test('every key is loupe_sk_ + 32 characters of [A-Za-z0-9], and no two are alike', async (t) => {
  const app = await buildTestApp(t)
  const keys = new Set<string>()
  const keyIds = new Set<string>()
  for (let i = 0; i < 5; i++) {
    const res = await createViaQuery(app, { name: `project ${i}`, environment: 'development' })
    t.match(res.json().api_key.key, KEY)
    keys.add(res.json().api_key.key)
    keyIds.add(res.json().api_key.key_id)
  }
  t.equal(keys.size, 5, 'five different keys')
  t.equal(keyIds.size, 5, 'five different key ids')
  // Each key works for its own project.
  for (const [i, key] of [...keys].entries()) {
    const res = await postTrace(app, key, { prompt: 'p' })
    t.equal(res.statusCode, 201)
    t.equal(res.json().project_id, `project-${i}`)
  }
})

t.test('GET /projects answers { total, items } oldest first, without any key', async (t) => {
  let clock = NOW
  const app = await buildTestApp(t, { now: () => clock })
  t.same((await app.inject('/projects')).json(), { total: 0, items: [] })
  const created = []
  for (const name of ['Zeta', 'Alpha', 'Mid']) {
    created.push((await createViaQuery(app, { name, environment: 'development' })).json())
    clock += 1000
  }
  const res = await app.inject('/projects')
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(schemaErrors(ListProjectsResponse, body), [])
  for (const item of body.items) t.same(schemaErrors(ProjectSchema, item), [])
  t.equal(body.total, 3)
  t.strictSame(body.items, [
    { project_id: 'zeta', name: 'Zeta', description: '', created_at: '2026-11-21T13:45:00.000' },
    { project_id: 'alpha', name: 'Alpha', description: '', created_at: '2026-11-21T13:45:01.000' },
    { project_id: 'mid', name: 'Mid', description: '', created_at: '2026-11-21T13:45:02.000' },
  ])
  for (const { api_key } of created) t.notOk(res.body.includes(api_key.key), 'no secret is listed')
})
