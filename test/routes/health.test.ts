// GET / and GET /health.
import t from 'tap'
import { HealthResponse, RootResponse } from '../../schemas/index.js'
import { buildTestApp, schemaErrors } from '../helper.js'

t.test('GET / answers 200 with a non-empty message', async (t) => {
  const app = await buildTestApp(t)
  const res = await app.inject('/')
  t.equal(res.statusCode, 200)
  t.same(schemaErrors(RootResponse, res.json()), [])
  t.ok(res.json().message.length > 0)
})

t.test('GET /health reports the database up and the package version', async (t) => {
  const app = await buildTestApp(t)
  const res = await app.inject('/health')
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(schemaErrors(HealthResponse, body), [])
  t.equal(body.status, 'ok')
  t.equal(body.database.status, 'up')
  t.match(body.version, /^\d+\.\d+\.\d+/)
})

t.test('GET /health answers 503 when the store cannot answer', async (t) => {
  const app = await buildTestApp(t)
  app.store.ping = async () => {
    throw new Error('disk gone')
  }
  const res = await app.inject('/health')
  t.equal(res.statusCode, 503)
  t.equal(res.json().status, 'unavailable')
  t.equal(res.json().database.status, 'down')
  t.equal(res.json().statusCode, 503)
  t.equal(res.json().code, 'LOUPE_STORE_UNAVAILABLE', 'the code every store outage carries')
  t.equal(res.headers['retry-after'], '5', 'and Retry-After, like every 503')
  t.same(schemaErrors(HealthResponse, res.json()), [])
})

t.test('CORS is open to any origin', async (t) => {
  const app = await buildTestApp(t)
  const res = await app.inject({ url: '/traces', headers: { origin: 'https://example.test' } })
  t.equal(res.headers['access-control-allow-origin'], '*')
})

t.test('an unknown route is a JSON 404', async (t) => {
  const app = await buildTestApp(t)
  const res = await app.inject('/nope')
  t.equal(res.statusCode, 404)
  t.match(res.json(), { statusCode: 404, error: 'Not Found', message: /nope/ })
})
