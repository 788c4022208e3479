// The viewer's files at /ui/: deep links answer the app's HTML, assets are cached for good and sent compressed,
// /ui redirects, GET / stays the JSON health answer, and the files are public and outside the per-address limit.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import t, { type Test } from 'tap'
import { buildTestApp, createProject } from '../helper.js'

const HTML = '<!doctype html><title>Loupe</title><script type="module" src="/ui/assets/app-1234.js"></script>'
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))})`

/** A built viewer in a temporary folder: index.html and one hashed script with its compressed twins. */
function fakeBuild(t: Test): string {
  const root = mkdtempSync(join(tmpdir(), 'loupe-ui-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  mkdirSync(join(root, 'assets'))
  writeFileSync(join(root, 'index.html'), HTML)
  writeFileSync(join(root, 'assets', 'app-1234.js'), SCRIPT)
  writeFileSync(join(root, 'assets', 'app-1234.js.gz'), gzipSync(SCRIPT))
  writeFileSync(join(root, 'assets', 'app-1234.js.br'), brotliCompressSync(SCRIPT))
  return root
}

t.test('every /ui/ path that is not a file answers the app HTML (200, never cached); /ui redirects', async (t) => {
  const app = await buildTestApp(t, { uiRoot: fakeBuild(t) })
  for (const url of ['/ui/', '/ui/traces', '/ui/traces/abc-123?step=4', '/ui/projects', '/ui/failures?project_id=x']) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 200, url)
    t.match(res.headers['content-type'], /^text\/html/, `${url} is HTML`)
    t.equal(res.body, HTML, `${url} is the app`)
    t.equal(res.headers['cache-control'], 'no-cache', `${url} is revalidated, so a new build is picked up`)
  }
  const redirect = await app.inject('/ui')
  t.equal(redirect.statusCode, 301)
  t.equal(redirect.headers.location, '/ui/')
  const root = await app.inject('/')
  t.same(root.json(), { message: 'Loupe is running' }, 'GET / stays the JSON health answer')
})

t.test('hashed assets are cached for good and sent compressed when the client accepts it', async (t) => {
  const app = await buildTestApp(t, { uiRoot: fakeBuild(t) })
  const plain = await app.inject({ url: '/ui/assets/app-1234.js', headers: { 'accept-encoding': 'identity' } })
  t.equal(plain.statusCode, 200)
  t.equal(plain.body, SCRIPT)
  t.match(plain.headers['content-type'], /javascript/)
  t.match(plain.headers['cache-control'], /max-age=31536000/)
  t.match(plain.headers['cache-control'], /immutable/)
  const br = await app.inject({ url: '/ui/assets/app-1234.js', headers: { 'accept-encoding': 'gzip, br' } })
  t.equal(br.headers['content-encoding'], 'br')
  t.ok(br.rawPayload.length < SCRIPT.length / 10, 'the brotli twin is sent')
  const gz = await app.inject({ url: '/ui/assets/app-1234.js', headers: { 'accept-encoding': 'gzip' } })
  t.equal(gz.headers['content-encoding'], 'gzip')
  const missing = await app.inject('/ui/assets/app-9999.js')
  t.equal(missing.statusCode, 404, 'a missing asset is a 404, not the HTML (a stale page must not run HTML)')
  t.equal(missing.json().statusCode, 404)
})

t.test('the viewer files are public in protected mode; its data still needs a credential', async (t) => {
  const token = 'a-very-long-admin-token-for-tests'
  const app = await buildTestApp(t, { uiRoot: fakeBuild(t), config: { adminToken: token } })
  t.equal((await app.inject('/ui/traces')).statusCode, 200)
  t.equal((await app.inject('/ui/assets/app-1234.js')).statusCode, 200)
  t.equal((await app.inject('/traces')).statusCode, 401, 'the data behind it is not')
  const { key } = await createProject(app, 'Acme', 'production', token)
  t.equal((await app.inject({ url: '/traces', headers: { authorization: `Bearer ${key}` } })).statusCode, 200)
})

t.test('loading the viewer does not use up the per-address request limit', async (t) => {
  const app = await buildTestApp(t, { uiRoot: fakeBuild(t), config: { rateLimit: 3 } })
  for (let i = 0; i < 10; i++) {
    t.equal((await app.inject('/ui/traces')).statusCode, 200)
    t.equal((await app.inject('/ui/assets/app-1234.js')).statusCode, 200)
  }
  const codes = []
  for (let i = 0; i < 4; i++) codes.push((await app.inject('/traces')).statusCode)
  t.same(codes, [200, 200, 200, 429], 'data requests are counted as before')
})

t.test('without a build, /ui/ answers 404 saying so and the API runs as usual', async (t) => {
  const app = await buildTestApp(t, { uiRoot: join(tmpdir(), 'loupe-no-such-build') })
  const res = await app.inject('/ui/traces')
  t.equal(res.statusCode, 404)
  t.match(res.json().message, /viewer/)
  t.equal((await app.inject('/traces')).statusCode, 200)
})

t.test('listening logs the viewer address', async (t) => {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    },
  })
  const app = await buildTestApp(t, { uiRoot: fakeBuild(t), logger: { level: 'info', stream } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as { port: number }).port
  const line = lines.map((l) => JSON.parse(l)).find((l) => typeof l.msg === 'string' && l.msg.startsWith('viewer at'))
  t.equal(line?.msg, `viewer at http://127.0.0.1:${port}/ui/`)
})
