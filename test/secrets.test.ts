// Secrets never leak: a full run of every route — with project keys and the admin token in Authorization,
// X-API-Key and ?token=, successes and every kind of refusal, and /ws — logged at `trace` level through Loupe's own
// logger configuration; no log line and no response body holds a key, the admin token or a key's hash, except the
// one creation response that must hand the new key over.
import { createHash } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import t from 'tap'
import WebSocket from 'ws'
import { buildApp, loggerOptions } from '../src/app.js'
import { type Config, defaultConfig } from '../src/config.js'
import { createSqliteStore } from '../src/store/sqlite/store.js'
import { within } from './ws-peer.js'

const ADMIN = 'S3cret-admin-token-never-logged-42'
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

t.test('no key, token or key hash in any log line or response body of a full run', { timeout: 60_000 }, async (t) => {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean))
      done()
    },
  })
  // No overload guard: a busy machine must not turn this test's requests into 503s.
  const config: Config = {
    ...defaultConfig(),
    databaseUrl: ':memory:',
    logLevel: 'trace',
    adminToken: ADMIN,
    maxEventLoopDelayMs: 0,
  }
  const app = await buildApp(config, {
    store: createSqliteStore(':memory:'),
    logger: { ...loggerOptions(config), stream },
  })
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`

  const bodies: string[] = []
  /** Every request goes over real HTTP, so the logged request line is the one a proxy would see. */
  async function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    })
    const text = await res.text()
    return { status: res.status, text }
  }
  const keep = (r: { text: string }) => {
    bodies.push(r.text)
    return r
  }

  // Two projects; their creation responses are the only place a key may appear.
  const created: string[] = []
  const secrets: string[] = [ADMIN]
  for (const name of ['Alpha', 'Beta']) {
    const r = await call('POST', `/projects?name=${name}&environment=production`, { authorization: `Bearer ${ADMIN}` })
    t.equal(r.status, 201)
    created.push(r.text)
    secrets.push(JSON.parse(r.text).api_key.key)
  }
  const [, a, b] = secrets as [string, string, string]
  const extra = await call('POST', '/api-keys', { 'x-api-key': a }, { project_id: 'alpha', environment: 'production' })
  t.equal(extra.status, 201)
  created.push(extra.text)
  const revoked = JSON.parse(extra.text) as { key: string; key_id: string }
  secrets.push(revoked.key)

  const carriers = (secret: string): Record<string, string>[] => [
    { authorization: `Bearer ${secret}` },
    { 'x-api-key': secret },
  ]
  const paths = ['/', '/health', '/traces', '/traces/t-1', '/traces/nope', '/analytics', '/failures', '/projects']
  for (const path of [...paths, '/api-keys', '/api-keys?project_id=beta', '/traces?project_id=beta', '/docs/json']) {
    for (const secret of [ADMIN, a, b, 'loupe_sk_unknownunknownunknownunknown12']) {
      for (const headers of carriers(secret)) keep(await call('GET', path, headers))
      keep(await call('GET', `${path}${path.includes('?') ? '&' : '?'}token=${secret}`))
    }
  }
  // A credential in any other query parameter, percent-encoded, in the path, or in a header of another name.
  for (const secret of [ADMIN, a]) {
    const sep = (path: string) => (path.includes('?') ? '&' : '?')
    for (const path of ['/traces', '/analytics?project_id=beta', '/no-such-route']) {
      for (const param of ['access_token', 'api_key', 'apikey', 'key', 'auth', 'x', 'TOKEN']) {
        keep(await call('GET', `${path}${sep(path)}${param}=${encodeURIComponent(secret)}`))
      }
      keep(await call('GET', `${path}${sep(path)}q=${encodeURIComponent(`prefix ${secret} suffix`)}`))
    }
    keep(await call('GET', `/traces/${encodeURIComponent(secret)}`))
    keep(await call('GET', `/${encodeURIComponent(secret)}/x`))
    keep(await call('GET', '/traces', { 'x-auth-token': secret, 'proxy-authorization': `Bearer ${secret}` }))
  }
  // Ingest: accepted, idempotent, invalid, conflicting, refused, oversized, unparsable.
  keep(await call('POST', '/traces', { authorization: `Bearer ${a}` }, { trace_id: 't-1', prompt: 'p' }))
  keep(await call('POST', '/traces', { authorization: `Bearer ${a}` }, { trace_id: 't-1', prompt: 'p' }))
  keep(await call('POST', '/traces', { 'x-api-key': b }, { trace_id: 't-1', prompt: 'p' }))
  keep(await call('POST', '/traces', { 'x-api-key': a }, { prompt: 'p', latency: -1 }))
  keep(await call('POST', '/traces', { 'x-api-key': a }, '{"prompt": '))
  keep(await call('POST', '/traces', { 'x-api-key': a }, { prompt: 'x'.repeat(2_000_000) }))
  keep(await call('POST', '/traces', { authorization: `Bearer ${ADMIN}` }, { prompt: 'p' }))
  keep(await call('POST', `/traces?token=${a}`, {}, { prompt: 'p' }))
  keep(await call('POST', '/traces/batch', { 'x-api-key': b }, { traces: [{ prompt: 'ok' }, { prompt: 5 }] }))
  // Management refusals and a revocation, after which the revoked key is refused.
  keep(await call('POST', '/projects?name=Gamma&environment=staging', { 'x-api-key': a }))
  keep(await call('POST', '/api-keys', { 'x-api-key': a }, { project_id: 'beta', environment: 'production' }))
  keep(await call('DELETE', `/api-keys/${revoked.key_id}`, { authorization: `Bearer ${a}` }))
  keep(await call('GET', '/traces', { authorization: `Bearer ${revoked.key}` }))
  keep(await call('GET', '/no-such-route', { authorization: `Bearer ${a}` }))

  // /ws with ?token= and a header, a refused upgrade, and a few frames.
  const wsBase = base.replace('http', 'ws')
  for (const url of [`${wsBase}/ws?token=${a}`, `${wsBase}/ws?token=${ADMIN}`]) {
    const ws = new WebSocket(url)
    ws.on('message', (data) => bodies.push(data.toString()))
    await within(3000, 'open', new Promise((r) => ws.on('open', r)))
    ws.send(JSON.stringify({ type: 'subscribe', project_id: 'beta' }))
    ws.send(`{"type":"${a}"}`)
    await new Promise((r) => setTimeout(r, 100))
    ws.close()
  }
  const refused = new WebSocket(`${wsBase}/ws?token=${revoked.key}`)
  refused.on('error', () => {})
  await within(3000, 'refusal', new Promise((r) => refused.on('unexpected-response', (_q, res) => r(res.statusCode))))
  refused.terminate()

  await app.close()
  t.ok(lines.length > 200, `${lines.length} log lines captured`)
  t.ok(
    lines.some((l) => l.includes('[redacted]')),
    'credentials were present, and redacted',
  )
  const leaks: string[] = []
  for (const secret of secrets) {
    // The random part of a key is what must not leak; the admin token whole.
    const needles = [secret.startsWith('loupe_sk_') ? secret.slice('loupe_sk_'.length) : secret, sha256(secret)]
    for (const needle of needles) {
      for (const line of lines) if (line.includes(needle)) leaks.push(`log: ${line.slice(0, 300)}`)
      for (const body of bodies) if (body.includes(needle)) leaks.push(`body: ${body.slice(0, 300)}`)
    }
  }
  t.strictSame(leaks, [], 'no secret anywhere')
  t.equal(bodies.length > 100, true, `${bodies.length} response bodies and frames scanned`)
  for (const [i, body] of created.entries())
    t.ok(body.includes(secrets[i + 1]!), 'the creation response hands the key over')
})
