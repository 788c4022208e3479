// Text that is not valid Unicode (lone UTF-16 surrogates) at every door: refused with a 400 naming the field in JSON
// bodies, query strings and path parameters (a batch rejects the bad trace alone), answered with an error on /ws, and
// made valid (U+FFFD) in OTLP exports, where refusing would lose the export's good spans.
import t from 'tap'
import type { Trace } from '../../schemas/index.js'
import type { LoupeApp } from '../../src/app.js'
import { buildTestApp, createProject, postBatch, postTrace } from '../helper.js'
import { exportOf, jsonSpan, postOtlp, protobufRequest, TRACE, waitFor } from '../otlp/http.js'
import { connect, startServer } from '../ws-peer.js'

/** The strings of the issue: a lone high, a lone low inside text, and a pair in the wrong order. */
const BAD = ['\ud800', 'a\udc00b', '\udfff\ud800']

/** TRACE once the OTLP service has stored it. */
const storedTrace = (app: LoupeApp) =>
  waitFor(async () => {
    const got = await app.inject(`/traces/${TRACE}`)
    return got.statusCode === 200 ? (got.json() as Trace) : undefined
  })

const totalTraces = async (app: LoupeApp) => (await app.inject('/traces?limit=1')).json().total as number

t.test('POST /traces: every string field, nested string and key is checked, and the 400 names it', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app)
  for (const bad of BAD) {
    const cases: [Record<string, unknown>, string][] = [
      [{ user_id: bad }, 'body/user_id must be valid Unicode text'],
      [{ session_id: bad }, 'body/session_id must be valid Unicode text'],
      [{ name: bad }, 'body/name must be valid Unicode text'],
      [{ model: bad }, 'body/model must be valid Unicode text'],
      [{ prompt: `Where is ${bad}?` }, 'body/prompt must be valid Unicode text'],
      [{ response: bad }, 'body/response must be valid Unicode text'],
      [{ failure_reason: bad }, 'body/failure_reason must be valid Unicode text'],
      [{ tags: ['fine', bad] }, 'body/tags/1 must be valid Unicode text'],
      [{ metadata: { a: { b: [1, bad] } } }, 'body/metadata/a/b/1 must be valid Unicode text'],
      [{ metadata: { a: { [bad]: 1 } } }, 'body/metadata/a has a key that is not valid Unicode text'],
      [{ metadata: { 'x/y': bad } }, 'body/metadata/x~1y must be valid Unicode text'],
      [{ steps: [{ name: 'ok' }, { name: bad }] }, 'body/steps/1/name must be valid Unicode text'],
      [{ steps: [{ name: 's', tool: bad }] }, 'body/steps/0/tool must be valid Unicode text'],
      [{ steps: [{ name: 's', input: { q: bad } }] }, 'body/steps/0/input/q must be valid Unicode text'],
      [{ steps: [{ name: 's', error: bad }] }, 'body/steps/0/error must be valid Unicode text'],
    ]
    for (const [fields, message] of cases) {
      const res = await postTrace(app, key, { prompt: 'Hi', ...fields })
      t.equal(res.statusCode, 400, `${JSON.stringify(fields)}: 400`)
      t.equal(res.json().message, message)
      t.equal(res.json().code, 'LOUPE_INVALID_INPUT')
    }
  }
  t.equal(await totalTraces(app), 0, 'nothing was stored')

  // A valid pair is text like any other, at every door.
  const ok = await postTrace(app, key, { prompt: '💥', user_id: '💥', metadata: { '💥': '💥' }, tags: ['💥'] })
  t.equal(ok.statusCode, 201)
  t.match(ok.json(), { prompt: '💥', user_id: '💥', metadata: { '💥': '💥' }, tags: ['💥'] })
})

t.test(
  'POST /traces/batch: a trace with bad text is a rejected item with its index; the others are stored',
  async (t) => {
    const app = await buildTestApp(t)
    const { key } = await createProject(app)
    const res = await postBatch(app, key, [
      { prompt: 'one' },
      { prompt: 'two', session_id: 'a\udc00b' },
      { prompt: 'three' },
      { prompt: 'four', steps: [{ name: 'x', metadata: { '\udfff\ud800': true } }] },
    ])
    t.equal(res.statusCode, 200)
    t.same(res.json().rejected, [
      { index: 1, message: 'body/traces/1/session_id must be valid Unicode text' },
      { index: 3, message: 'body/traces/3/steps/0/metadata has a key that is not valid Unicode text' },
    ])
    t.equal(res.json().accepted, 2)
    t.equal(await totalTraces(app), 2)

    const envelope = await app.inject({
      method: 'POST',
      url: '/traces/batch',
      headers: { authorization: `Bearer ${key}` },
      payload: { traces: 'not an array', note: '\ud800' },
    })
    t.equal(envelope.statusCode, 400, 'the envelope itself is still checked')
  },
)

t.test('management bodies and query fields: projects, keys, alert rules, prices', async (t) => {
  const app = await buildTestApp(t)
  await createProject(app)
  const post = (url: string, payload: unknown) => app.inject({ method: 'POST', url, payload: payload as object })
  const cases: [Awaited<ReturnType<typeof post>>, string][] = [
    [
      await post('/projects', { name: 'Bot \ud800', environment: 'production' }),
      'body/name must be valid Unicode text',
    ],
    [
      await post('/projects', { name: 'Bot', environment: 'production', description: 'a\udc00b' }),
      'body/description must be valid Unicode text',
    ],
    [
      await app.inject({ method: 'POST', url: '/projects?name=Bot%ED%A0%80&environment=production' }),
      'body/name must be valid Unicode text',
    ],
    [
      await post('/api-keys', { project_id: '\udfff\ud800', environment: 'production' }),
      'body/project_id must be valid Unicode text',
    ],
    [
      await post('/alerts/rules', {
        name: 'slow \ud800',
        metric: 'failure_rate',
        window_minutes: 5,
        threshold: 1,
        destination: { type: 'webhook', url: 'http://127.0.0.1:9/hook' },
      }),
      'body/name must be valid Unicode text',
    ],
  ]
  for (const [res, message] of cases) {
    t.equal(res.statusCode, 400, message)
    t.equal(res.json().message, message)
  }
  t.equal((await app.inject('/projects')).json().total, 1, 'no project was created')
  t.equal((await app.inject('/alerts/rules')).json().items.length, 0, 'no rule was created')
})

t.test('query strings and path parameters: escapes that are not UTF-8 are refused, naming the field', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app)
  await postTrace(app, key, { prompt: 'Hi', user_id: 'u' })
  // %ED%A0%80 is U+D800 as a careless UTF-8 encoder writes it; %E9 a Latin-1 é; neither is UTF-8.
  const refused: [string, string][] = [
    ['/traces?q=%ED%A0%80', 'querystring/q must be valid Unicode text'],
    ['/traces?user_id=a%ED%B0%80b', 'querystring/user_id must be valid Unicode text'],
    ['/traces?session_id=%ED%BF%BF%ED%A0%80', 'querystring/session_id must be valid Unicode text'],
    ['/traces?model=caf%E9', 'querystring/model must be valid Unicode text'],
    ['/traces/export?user_id=%ED%A0%80', 'querystring/user_id must be valid Unicode text'],
    ['/sessions?user_id=%ED%A0%80', 'querystring/user_id must be valid Unicode text'],
    ['/analytics?project_id=%ED%A0%80', 'querystring/project_id must be valid Unicode text'],
  ]
  for (const [url, message] of refused) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 400, url)
    t.equal(res.json().message, message)
  }
  const deletion = await app.inject({ method: 'DELETE', url: '/traces?user_id=%ED%A0%80' })
  t.equal(deletion.statusCode, 400, 'a deletion by a filter that is not text is refused')
  t.equal(await totalTraces(app), 1, 'and deleted nothing')

  for (const url of ['/traces/%ED%A0%80', '/sessions/%ED%A0%80', '/users/a%ED%B0%80b']) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 400, `${url}: 400`)
    t.equal(res.json().code, 'LOUPE_INVALID_INPUT')
  }
  t.equal((await app.inject({ method: 'DELETE', url: '/traces/%ED%A0%80' })).statusCode, 400)

  // Valid escapes still mean what they say: a pair, a literal percent sign.
  await postTrace(app, key, { prompt: 'Hi', user_id: '💥 100%' })
  const found = await app.inject('/traces?user_id=%F0%9F%92%A5+100%25')
  t.equal(found.json().total, 1)
})

t.test(
  '/ws: a subscribe whose project_id is not valid text is answered with an error; the stream goes on',
  async (t) => {
    const { port } = await startServer(t)
    const peer = await connect(t, port)
    peer.send({ type: 'subscribe', project_id: 'a\udc00b' })
    const error = await peer.next('error', (m) => m.type === 'error')
    t.equal(error.data.message, 'project_id must be valid Unicode text')
    peer.send({ type: 'ping', '\ud800': 1 })
    t.equal(
      (await peer.next('error', (m) => m.type === 'error')).data.message,
      'message has a key that is not valid Unicode text',
    )
    peer.send({ type: 'ping' })
    await peer.next('pong', (m) => m.type === 'pong')
    t.same(peer.problems, [])
  },
)

t.test('OTLP/JSON: lone surrogates become U+FFFD and the export is stored whole', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
  const { key } = await createProject(app)
  const res = await postOtlp(
    app,
    key,
    exportOf(
      jsonSpan('aaaaaaaaaaaaaaa1', {
        name: 'root a\udc00b',
        attributes: [
          { key: 'user.id', value: { stringValue: '\ud800' } },
          { key: 'session.id', value: { stringValue: '\udfff\ud800' } },
          { key: 'app.\ud800', value: { stringValue: 'v' } },
        ],
      }),
      jsonSpan('aaaaaaaaaaaaaaa2', { parent: 'aaaaaaaaaaaaaaa1', name: 'child \udc00', startMs: 1 }),
    ),
  )
  t.equal(res.statusCode, 200)
  t.same(res.json(), {}, 'every span accepted')
  const trace = await storedTrace(app)
  t.equal(trace.user_id, '\ufffd')
  t.equal(trace.session_id, '\ufffd\ufffd')
  t.equal(trace.name, 'root a\ufffdb')
  t.equal(trace.steps[0]?.name, 'child \ufffd')
  t.ok(JSON.stringify(trace).isWellFormed(), 'every string of the stored trace is valid text')
  t.match(trace.metadata, { 'app.\ufffd': 'v' })

  // Stored as valid text, it is found and deleted like any other trace.
  t.equal((await app.inject(`/traces?user_id=${encodeURIComponent('\ufffd')}`)).json().total, 1)
  t.equal((await app.inject({ method: 'DELETE', url: `/traces/${TRACE}` })).statusCode, 204)
  t.equal(await totalTraces(app), 0)
})

t.test('OTLP/protobuf: a string whose bytes are not UTF-8 is stored as valid text', async (t) => {
  const app = await buildTestApp(t, { config: { otlpRootGraceMs: 0 } })
  const { key } = await createProject(app)
  const id = Buffer.from(TRACE, 'hex')
  const body = protobufRequest([
    { traceId: id, spanId: Buffer.from('aaaaaaaaaaaaaaa1', 'hex'), name: 'NAME', startMs: 0 },
  ])
  // The span's name field, its bytes replaced by U+D800 as a careless encoder writes it (ED A0 80), length kept.
  const at = body.indexOf(Buffer.from('NAME'))
  const bytes = Buffer.concat([body.subarray(0, at), Buffer.from([0x41, 0xed, 0xa0, 0x80]), body.subarray(at + 4)])
  const res = await postOtlp(app, key, bytes)
  t.equal(res.statusCode, 200, res.body)
  const trace = await storedTrace(app)
  t.ok(trace.name?.startsWith('A\ufffd'), `stored as ${JSON.stringify(trace.name)}`)
  t.ok(trace.name?.isWellFormed())
  t.equal((await app.inject({ method: 'DELETE', url: `/traces/${TRACE}` })).statusCode, 204)
})
