// One error road: every error body, whoever raised it (Loupe, Fastify, a plugin), carries a LOUPE_* code from the
// one list docs/api.md documents; a 415 says which content types the route takes; the first mistakes a new user
// makes each get a sentence that helps.
import { readFileSync } from 'node:fs'
import type { InjectOptions } from 'fastify'
import t from 'tap'
import * as errors from '../../src/errors.js'
import { buildTestApp, createProject } from '../helper.js'

const docs = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8')
const source = readFileSync(new URL('../../src/', import.meta.url).pathname + 'plugins/errors.ts', 'utf8')

t.test('every code Loupe can answer with is documented in docs/api.md', async (t) => {
  const codes = new Set<string>([...Object.values(errors.CODE_BY_STATUS), errors.FALLBACK_CODE])
  for (const value of Object.values(errors)) {
    if (typeof value !== 'function') continue
    const code = (new (value as new (...args: unknown[]) => { code?: unknown })('x') as { code?: unknown }).code
    if (typeof code === 'string') codes.add(code)
  }
  for (const match of source.matchAll(/'(LOUPE_[A-Z_]+)'/g)) codes.add(match[1] as string)
  t.ok(codes.size > 20, `${codes.size} codes`)
  for (const code of codes) t.match(docs, `\`${code}\``, code)
})

t.test('the errors a new user meets first: each has a LOUPE_* code and a helpful message', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app)
  const auth = { authorization: `Bearer ${key}` }
  const cases: [string, InjectOptions, number, RegExp][] = [
    [
      'curl -d without a content type',
      {
        method: 'POST',
        url: '/traces',
        headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'prompt=x',
      },
      415,
      /not accepted here: send application\/json/,
    ],
    [
      'text on OTLP',
      { method: 'POST', url: '/v1/traces', headers: { ...auth, 'content-type': 'text/plain' }, payload: 'x' },
      415,
      /send application\/x-protobuf or application\/json/,
    ],
    [
      'a body that is not JSON',
      { method: 'POST', url: '/traces', headers: { ...auth, 'content-type': 'application/json' }, payload: '{x' },
      400,
      /JSON/,
    ],
    ['a query out of bounds', { method: 'GET', url: '/traces?limit=0' }, 400, /querystring\/limit must be >= 1/],
    ['a 300-character trace id', { method: 'GET', url: `/traces/${'a'.repeat(300)}` }, 404, /not found/],
    ['an unknown route', { method: 'GET', url: '/nope' }, 404, /Route GET \/nope not found/],
    ['GET /ws without the upgrade', { method: 'GET', url: '/ws' }, 426, /connect with a WebSocket client/],
  ]
  for (const [what, request, status, message] of cases) {
    const res = await app.inject(request)
    t.equal(res.statusCode, status, what)
    t.match(res.json(), { statusCode: status, message, code: /^LOUPE_[A-Z_]+$/ }, what)
  }
})
