// GET /api-keys, POST /api-keys and DELETE /api-keys/{key_id}: keys are listed masked, stored hashed, revoked at once.
import { createHash } from 'node:crypto'
import t from 'tap'
import { ApiKeyCreatedSchema, ApiKeySchema, ErrorSchema, ListApiKeysResponse } from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { allRows, buildTestApp, createProject, createTestStore, postTrace, schemaErrors } from '../helper.js'

// 2026-11-21T13:45:00.000Z, worked out independently with `date -u -d @1795268700`.
const NOW = 1_795_268_700_000
const KEY = /^loupe_sk_[A-Za-z0-9]{32}$/

const random = (key: string) => key.slice('loupe_sk_'.length)
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

function listKeys(app: LoupeApp, query: Record<string, string> = {}) {
  return app.inject({ method: 'GET', url: '/api-keys', query })
}

function createKey(app: LoupeApp, fields: Record<string, string>, via: 'query' | 'body' = 'body') {
  return via === 'query'
    ? app.inject({ method: 'POST', url: '/api-keys', query: fields })
    : app.inject({ method: 'POST', url: '/api-keys', payload: fields })
}

function revoke(app: LoupeApp, keyId: string) {
  return app.inject({ method: 'DELETE', url: `/api-keys/${keyId}` })
}

t.test('GET /api-keys answers { total, items } and never contains a secret, nor its hash', async (t) => {
  const app = await buildTestApp(t)
  t.same((await listKeys(app)).json(), { total: 0, items: [] })
  const acme = await createProject(app, 'Acme')
  const globex = await createProject(app, 'Globex', 'staging')
  const extra = (await createKey(app, { project_id: 'acme', environment: 'production' })).json()
  const secrets = [acme.key, globex.key, extra.key]

  const res = await listKeys(app)
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(schemaErrors(ListApiKeysResponse, body), [])
  for (const item of body.items) {
    t.same(schemaErrors(ApiKeySchema, item), [], `${item.key_id} conforms to ApiKeySchema`)
    t.notOk('key' in item, 'no key field')
    t.notOk('key_hash' in item, 'no key_hash field')
  }
  t.equal(body.total, 3)
  for (const secret of secrets) {
    t.notOk(res.body.includes(random(secret)), 'the random part of no secret appears in the body')
    t.notOk(res.body.includes(sha256(secret)), 'nor its SHA-256 hash')
  }
})

t.test('GET /api-keys shows key_preview = loupe_sk_ + first 4 + … + last 4, and the key context', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const { key, key_id } = await createProject(app, 'Acme Corp', 'production')
  const [item] = (await listKeys(app)).json().items
  const r = random(key)
  t.equal(item.key_preview, `loupe_sk_${r.slice(0, 4)}…${r.slice(28, 32)}`)
  t.strictSame(item, {
    key_id,
    key_preview: `loupe_sk_${r.slice(0, 4)}…${r.slice(28, 32)}`,
    project_id: 'acme-corp',
    project_name: 'Acme Corp',
    environment: 'production',
    kind: 'secret',
    created_at: '2026-11-21T13:45:00.000',
    last_used_at: null,
    revoked_at: null,
  })
})

t.test('GET /api-keys?project_id= lists only that project keys, oldest first', async (t) => {
  let clock = NOW
  const app = await buildTestApp(t, { now: () => clock })
  const acme = await createProject(app, 'Acme')
  clock += 1000
  const globex = await createProject(app, 'Globex')
  clock += 1000
  const second = (await createKey(app, { project_id: 'acme', environment: 'staging' })).json()

  const onlyAcme = (await listKeys(app, { project_id: 'acme' })).json()
  t.same(schemaErrors(ListApiKeysResponse, onlyAcme), [])
  t.equal(onlyAcme.total, 2)
  t.same(
    onlyAcme.items.map((i: { key_id: string }) => i.key_id),
    [acme.key_id, second.key_id],
    'oldest first',
  )
  t.same(
    onlyAcme.items.map((i: { created_at: string }) => i.created_at),
    ['2026-11-21T13:45:00.000', '2026-11-21T13:45:02.000'],
  )
  const onlyGlobex = (await listKeys(app, { project_id: 'globex' })).json()
  t.same(
    onlyGlobex.items.map((i: { key_id: string }) => i.key_id),
    [globex.key_id],
  )
  t.same((await listKeys(app, { project_id: 'nobody' })).json(), { total: 0, items: [] })
  const all = (await listKeys(app)).json()
  t.same(
    all.items.map((i: { key_id: string }) => i.key_id),
    [acme.key_id, globex.key_id, second.key_id],
    'unfiltered: every key, oldest first',
  )
})

t.test('last_used_at is null until the key is used for ingest, then the time of use', async (t) => {
  let clock = NOW
  const app = await buildTestApp(t, { now: () => clock })
  const used = await createProject(app, 'Used')
  const idle = await createProject(app, 'Idle')
  clock = NOW + 5_000
  t.equal((await postTrace(app, used.key, { prompt: 'p' })).statusCode, 201)
  const items = (await listKeys(app)).json().items
  const byId = (id: string) => items.find((i: { key_id: string }) => i.key_id === id)
  t.equal(byId(used.key_id).last_used_at, '2026-11-21T13:45:05.000')
  t.equal(byId(idle.key_id).last_used_at, null, 'an unused key was never used')
  clock = NOW + 10_000
  const refused = await app.inject({
    method: 'POST',
    url: '/traces',
    headers: { 'x-api-key': `loupe_sk_${'Z'.repeat(32)}` },
    payload: { prompt: 'p' },
  })
  t.equal(refused.statusCode, 401)
  const after = (await listKeys(app)).json().items
  t.same(after, items, 'a refused request touches no key')
})

t.test('POST /api-keys issues another working key for an existing project (query string or JSON body)', async (t) => {
  const app = await buildTestApp(t, { now: () => NOW })
  const first = await createProject(app, 'Acme', 'development')
  for (const via of ['query', 'body'] as const) {
    const res = await createKey(app, { project_id: 'acme', environment: 'production' }, via)
    t.equal(res.statusCode, 201, `via ${via}`)
    const created = res.json()
    t.same(schemaErrors(ApiKeyCreatedSchema, created), [])
    t.match(created.key, KEY)
    t.not(created.key, first.key, 'a new secret')
    t.not(created.key_id, first.key_id, 'a new key id')
    t.equal(created.project_id, 'acme')
    t.equal(created.environment, 'production')
    t.equal(created.created_at, '2026-11-21T13:45:00.000')
    t.equal(created.key_preview, `loupe_sk_${random(created.key).slice(0, 4)}…${random(created.key).slice(-4)}`)
    // The new key records traces for its project, in its own environment.
    const trace = await postTrace(app, created.key, { prompt: 'p' })
    t.equal(trace.statusCode, 201)
    t.equal(trace.json().project_id, 'acme')
    t.equal(trace.json().environment, 'production')
  }
  t.equal((await postTrace(app, first.key, { prompt: 'p' })).json().environment, 'development', 'the first still works')
  t.equal((await listKeys(app, { project_id: 'acme' })).json().total, 3)
})

t.test('POST /api-keys for an unknown project is a 404; bad input is a 400 naming the field', async (t) => {
  const app = await buildTestApp(t)
  await createProject(app, 'Acme')
  const unknown = await createKey(app, { project_id: 'nobody', environment: 'production' })
  t.equal(unknown.statusCode, 404)
  t.same(schemaErrors(ErrorSchema, unknown.json()), [])
  t.match(unknown.json(), { statusCode: 404, error: 'Not Found', message: /nobody/ })
  const cases: [Record<string, string>, string][] = [
    [{ environment: 'production' }, 'project_id'],
    [{ project_id: 'acme' }, 'environment'],
    [{ project_id: 'acme', environment: 'live' }, 'environment'],
    [{ project_id: '', environment: 'production' }, 'project_id'],
  ]
  for (const [fields, field] of cases) {
    const res = await createKey(app, fields)
    t.equal(res.statusCode, 400, JSON.stringify(fields))
    t.match(res.json().message, new RegExp(`\\b${field}\\b`), `names ${field}`)
  }
  t.equal((await listKeys(app)).json().total, 1, 'no key was issued')
})

t.test('DELETE /api-keys/{key_id} revokes the key: 401 at once, revoked_at set, other keys unaffected', async (t) => {
  let clock = NOW
  const app = await buildTestApp(t, { now: () => clock })
  const { key, key_id } = await createProject(app, 'Acme')
  const other = (await createKey(app, { project_id: 'acme', environment: 'development' })).json()
  t.equal((await postTrace(app, key, { prompt: 'before' })).statusCode, 201, 'the key works before')

  clock = NOW + 60_000
  const res = await revoke(app, key_id)
  t.equal(res.statusCode, 200)
  t.same(schemaErrors(ApiKeySchema, res.json()), [])
  t.equal(res.json().key_id, key_id)
  t.equal(res.json().revoked_at, '2026-11-21T13:46:00.000')
  t.notOk(res.body.includes(random(key)), 'the answer does not carry the secret')

  const refused = await postTrace(app, key, { prompt: 'after' })
  t.equal(refused.statusCode, 401, 'the revoked key is refused at once')
  t.notOk(refused.body.includes(random(key)))
  const viaHeader = await app.inject({
    method: 'POST',
    url: '/traces',
    headers: { 'x-api-key': key },
    payload: { prompt: 'after' },
  })
  t.equal(viaHeader.statusCode, 401, 'whichever header carries it')
  t.equal((await postTrace(app, other.key, { prompt: 'other' })).statusCode, 201, 'the other key still works')

  const listed = (await listKeys(app)).json().items
  t.equal(listed.find((i: { key_id: string }) => i.key_id === key_id).revoked_at, '2026-11-21T13:46:00.000')
  t.equal(listed.find((i: { key_id: string }) => i.key_id === other.key_id).revoked_at, null)

  clock = NOW + 120_000
  const again = await revoke(app, key_id)
  t.equal(again.statusCode, 200, 'revoking twice is harmless')
  t.equal(again.json().revoked_at, '2026-11-21T13:46:00.000', 'and keeps the first revocation time')
})

t.test('DELETE /api-keys/{key_id} of an unknown key is a 404', async (t) => {
  const app = await buildTestApp(t)
  await createProject(app, 'Acme')
  const res = await revoke(app, 'no-such-key')
  t.equal(res.statusCode, 404)
  t.same(schemaErrors(ErrorSchema, res.json()), [])
  t.match(res.json(), { statusCode: 404, error: 'Not Found', message: /no-such-key/ })
  t.equal((await listKeys(app)).json().items[0].revoked_at, null, 'no key was touched')
})

t.test('the database keeps only the SHA-256 hash of a key, never the secret', async (t) => {
  const store = await createTestStore(t)
  const app = await buildTestApp(t, { store })
  const { key, key_id } = await createProject(app, 'Acme')
  const extra = (await createKey(app, { project_id: 'acme', environment: 'staging' })).json()
  t.equal((await postTrace(app, key, { prompt: 'p' })).statusCode, 201)

  const tables = await allRows(store)
  const row = tables.api_keys?.find((r) => r.key_id === key_id)
  t.equal(row?.key_hash, sha256(key), 'key_hash is the SHA-256 hex of the whole key')
  t.match(row?.key_hash, /^[0-9a-f]{64}$/)

  t.ok('api_keys' in tables)
  for (const [name, rows] of Object.entries(tables)) {
    for (const r of rows) {
      for (const [column, value] of Object.entries(r)) {
        const text = typeof value === 'string' ? value : JSON.stringify(value)
        if (text === undefined) continue
        for (const secret of [key, extra.key]) {
          t.notOk(text.includes(random(secret)), `${name}.${column} does not hold the secret`)
        }
      }
    }
  }
})

t.test(
  'the store finds a live key by the hash of its secret, with its project, and no longer once revoked',
  async (t) => {
    const app = await buildTestApp(t, { now: () => NOW })
    const { key, key_id } = await createProject(app, 'Acme Corp', 'staging')
    t.strictSame(await app.store.projects.findApiKey(sha256(key)), {
      key_id,
      project_id: 'acme-corp',
      project_name: 'Acme Corp',
      environment: 'staging',
      kind: 'secret',
      last_used_at: null,
    })
    t.equal(await app.store.projects.findApiKey(sha256(`${key}x`)), null, 'another secret finds nothing')
    t.equal((await revoke(app, key_id)).statusCode, 200)
    t.equal(await app.store.projects.findApiKey(sha256(key)), null, 'a revoked key is not found')
  },
)

t.test('POST /api-keys with kind=public issues a loupe_pk_ key, stored and listed with its kind', async (t) => {
  const store = await createTestStore(t)
  const app = await buildTestApp(t, { store, now: () => NOW })
  const acme = await createProject(app, 'Acme', 'production')
  const issued: { key_id: string; key: string }[] = []
  for (const via of ['query', 'body'] as const) {
    const res = await createKey(app, { project_id: 'acme', environment: 'production', kind: 'public' }, via)
    t.equal(res.statusCode, 201, `via ${via}`)
    const created = res.json()
    t.same(schemaErrors(ApiKeyCreatedSchema, created), [])
    t.match(created.key, /^loupe_pk_[A-Za-z0-9]{32}$/)
    t.equal(created.kind, 'public')
    const body = created.key.slice('loupe_pk_'.length)
    t.equal(created.key_preview, `loupe_pk_${body.slice(0, 4)}…${body.slice(-4)}`)
    issued.push(created)
  }
  const secret = (await createKey(app, { project_id: 'acme', environment: 'production', kind: 'secret' })).json()
  t.match(secret.key, KEY)
  t.equal(secret.kind, 'secret')

  // Each key's kind, as listed and as the store keeps it.
  const listed = (await listKeys(app)).json()
  t.same(schemaErrors(ListApiKeysResponse, listed), [])
  t.same(
    listed.items.map((k: { key_id: string; kind: string }) => [k.key_id, k.kind]),
    [
      [acme.key_id, 'secret'],
      [issued[0]!.key_id, 'public'],
      [issued[1]!.key_id, 'public'],
      [secret.key_id, 'secret'],
    ],
  )
  const rows = (await allRows(store)).api_keys ?? []
  t.equal(rows.find((r) => r.key_id === issued[0]!.key_id)?.kind, 'public', 'stored with its kind')
  t.equal(rows.find((r) => r.key_id === secret.key_id)?.kind, 'secret')
  t.equal((await app.store.projects.findApiKey(sha256(issued[1]!.key)))?.kind, 'public', 'resolved with its kind')

  const bad = await createKey(app, { project_id: 'acme', environment: 'production', kind: 'private' })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().message, /\bkind\b/, 'names kind')
})

t.test('a public key can neither issue nor revoke keys, nor list them; a secret key of its project can', async (t) => {
  const admin = 'admin-token-of-the-key-tests'
  const app = await buildTestApp(t, { config: { adminToken: admin } })
  const acme = await createProject(app, 'Acme', 'production', admin)
  const as = (key: string) => ({ authorization: `Bearer ${key}` })
  const fields = { project_id: 'acme', environment: 'production', kind: 'public' }
  const made = await app.inject({ method: 'POST', url: '/api-keys', payload: fields, headers: as(acme.key) })
  t.equal(made.statusCode, 201, 'a secret key issues a public key of its project')
  const publicKey = made.json()
  for (const kind of ['public', 'secret']) {
    const res = await app.inject({
      method: 'POST',
      url: '/api-keys',
      payload: { ...fields, kind },
      headers: as(publicKey.key),
    })
    t.equal(res.statusCode, 403, `a public key may not issue a ${kind} key`)
  }
  for (const keyId of [acme.key_id, publicKey.key_id]) {
    const res = await app.inject({ method: 'DELETE', url: `/api-keys/${keyId}`, headers: as(publicKey.key) })
    t.equal(res.statusCode, 403, 'nor revoke one, its own included')
  }
  t.equal((await app.inject({ url: '/api-keys', headers: as(publicKey.key) })).statusCode, 403, 'nor list them')
  const listed = (await app.inject({ url: '/api-keys', headers: as(admin) })).json()
  t.equal(listed.total, 2, 'no key was issued by it')
  t.ok(
    listed.items.every((k: { revoked_at: string | null }) => k.revoked_at === null),
    'none was revoked',
  )
})
