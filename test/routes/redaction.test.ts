// Redaction at ingest, end to end: what POST /traces, /traces/batch and OTLP store, announce and keep pending never
// holds the redacted text, on the store under test; and with redaction off (the default) nothing changes.
import t from 'tap'
import type { Trace } from '../../schemas/index.js'
import { allRows, buildTestApp, createProject, postBatch, postTrace } from '../helper.js'
import { exportOf, jsonSpan, postOtlp, TRACE } from '../otlp/http.js'

const SECRET_EMAIL = 'carol.secret@example.com'
const CARD = '4111 1111 1111 1111'
const redaction = {
  redactDetectors: ['email', 'card', 'api_key', 'phone'] as ('email' | 'card' | 'api_key' | 'phone')[],
  redactPatterns: ['ACME-\\d{6}'],
}

t.test('POST /traces and /traces/batch: stored and announced redacted; nothing in any table', async (t) => {
  const app = await buildTestApp(t, { config: redaction })
  const { key } = await createProject(app)
  const announced: Trace[] = []
  app.hub.subscribe((traces) => announced.push(...traces))
  const res = await postTrace(app, key, {
    trace_id: 'r-1',
    prompt: `email ${SECRET_EMAIL} about order ACME-123456`,
    response: `charged ${CARD}`,
    metadata: { customer: { email: SECRET_EMAIL } },
    steps: [{ type: 'tool', tool: 'crm', input: { q: SECRET_EMAIL }, output: 'ok', error: `no ${SECRET_EMAIL}` }],
  })
  t.equal(res.statusCode, 201)
  const stored = res.json() as Trace
  t.equal(stored.prompt, 'email [REDACTED:email] about order [REDACTED]')
  t.equal(stored.response, 'charged [REDACTED:card]')
  t.same(stored.metadata, { customer: { email: '[REDACTED:email]' } })
  t.same(stored.steps[0]?.input, { q: '[REDACTED:email]' })
  t.equal(stored.steps[0]?.error, 'no [REDACTED:email]')
  t.equal(stored.failure_reason, 'no [REDACTED:email]')
  t.same((await app.inject('/traces/r-1')).json(), { ...stored, scores: [] }, 'read back as answered')
  const batch = await postBatch(app, key, [{ trace_id: 'r-2', prompt: `call +1 415 555 0123 or ${SECRET_EMAIL}` }])
  t.equal(batch.json().accepted, 1)
  t.equal(announced.length, 2)
  t.notOk(JSON.stringify(announced).includes(SECRET_EMAIL), 'nothing announced holds the e-mail')
  const tables = JSON.stringify(await allRows(app.store))
  t.notOk(tables.includes(SECRET_EMAIL), 'no table holds the e-mail')
  t.notOk(tables.includes('4111'), 'no table holds the card number')
  t.notOk(tables.includes('555 0123'), 'no table holds the phone number')
})

t.test('OTLP: pending spans and the stored trace are redacted', async (t) => {
  let clock = Date.parse('2026-11-23T10:00:00Z')
  const app = await buildTestApp(t, {
    now: () => clock,
    config: { redactDetectors: ['email'], otlpRootGraceMs: 60_000 },
  })
  const { key } = await createProject(app)
  const attributes = [{ key: 'gen_ai.prompt', value: { stringValue: `hello from ${SECRET_EMAIL}` } }]
  const res = await postOtlp(app, key, exportOf(jsonSpan('aaaaaaaaaaaaaaa1', { attributes })))
  t.equal(res.statusCode, 200)
  t.equal((await app.inject(`/traces/${TRACE}`)).statusCode, 404, 'not stored yet: its span is pending')
  t.notOk(JSON.stringify(await allRows(app.store)).includes(SECRET_EMAIL), 'the pending span is kept redacted')
  clock += 61_000
  t.equal(await app.otlp.materializeDue(), 1)
  const stored = (await app.inject(`/traces/${TRACE}`)).json() as Trace
  t.match(JSON.stringify(stored), '[REDACTED:email]')
  t.notOk(JSON.stringify(await allRows(app.store)).includes(SECRET_EMAIL), 'no table holds the e-mail')
})

t.test('off by default: the text is stored as sent', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app)
  const res = await postTrace(app, key, { prompt: `email ${SECRET_EMAIL}` })
  t.equal(res.json().prompt, `email ${SECRET_EMAIL}`)
})
