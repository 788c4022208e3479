// Alerts against a real local HTTP receiver: a rule fires once and resolves once, each event is delivered signed
// (HMAC-SHA256 checked here independently) or as a Slack message, failed deliveries are retried with backoff until
// they succeed or are marked failed, and GET /alerts/events lists it all. Bad rules are a 400 naming the field.
import { createHmac } from 'node:crypto'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { buildTestApp, createProject, postBatch, unusedPort } from '../helper.js'

interface Received {
  headers: IncomingHttpHeaders
  body: string
  at: number
}

/** A local receiver that records every request; the first `failFirst` are answered 500. */
async function receiver(t: Test, failFirst = 0) {
  const received: Received[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => {
      body += c
    })
    req.on('end', () => {
      received.push({ headers: req.headers, body, at: Date.now() })
      res.statusCode = received.length <= failFirst ? 500 : 204
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received }
}

const SECRET = 'alert-signing-secret-0123'
const config = { alertRetryBaseMs: 30, alertDeliveryAttempts: 3, alertIntervalMs: 3_600_000 }

/** POST /alerts/rules with `payload`, as the admin of an open server. */
const createRule = (app: Awaited<ReturnType<typeof buildTestApp>>, payload: object) =>
  app.inject({ method: 'POST', url: '/alerts/rules', payload })

/**
 * A receiver (its first `failFirst` requests answered 500), an app, a project named `name` to watch, and
 * `hourlyRule(fields)`: POST a rule on that project over the last hour, delivered to the receiver as a webhook.
 */
async function watched(t: Test, name: string, failFirst = 0) {
  const hook = await receiver(t, failFirst)
  const app = await buildTestApp(t, { config })
  const project = await createProject(app, name)
  const hourlyRule = (fields: object) =>
    createRule(app, {
      project_id: project.project_id,
      window_minutes: 60,
      destination: { type: 'webhook', url: hook.url },
      ...fields,
    })
  return { hook, app, hourlyRule, ...project }
}

t.test('a webhook rule fires once, resolves once, each delivery signed', async (t) => {
  const { hook, app, key, hourlyRule } = await watched(t, 'Watched')
  const signed = { type: 'webhook', url: hook.url, secret: SECRET }
  const created = await hourlyRule({
    name: 'Watched failing',
    metric: 'failure_rate',
    threshold: 50,
    destination: signed,
  })
  t.equal(created.statusCode, 201)
  const rule = created.json()
  t.match(rule, { state: 'ok', destination: { type: 'webhook', url: hook.url, signed: true } })
  t.notOk(created.body.includes(SECRET), 'the secret is never returned')

  await postBatch(app, key, [{ prompt: 'a', status: 'failed' }, { prompt: 'b', status: 'failed' }, { prompt: 'c' }])
  const fired = await app.alerts.evaluate()
  t.match(fired, [{ kind: 'fired', value: 66.67, threshold: 50, rule_id: rule.rule_id }])
  t.same(await app.alerts.evaluate(), [], 'still above: no second firing')
  await app.alerts.settled()
  t.equal(hook.received.length, 1)
  const first = hook.received[0]!
  const expected = `sha256=${createHmac('sha256', SECRET).update(first.body).digest('hex')}`
  t.equal(first.headers['x-loupe-signature'], expected, 'signed with HMAC-SHA256 of the exact body')
  t.match(JSON.parse(first.body), { type: 'alert.fired', data: { kind: 'fired', rule_name: 'Watched failing' } })

  await postBatch(
    app,
    key,
    Array.from({ length: 10 }, (_, i) => ({ prompt: `ok ${i}` })),
  )
  t.match(await app.alerts.evaluate(), [{ kind: 'resolved' }])
  t.same(await app.alerts.evaluate(), [], 'resolved once')
  await app.alerts.settled()
  t.equal(hook.received.length, 2)
  t.match(JSON.parse(hook.received[1]!.body), { type: 'alert.resolved' })

  const events = (await app.inject('/alerts/events')).json().items
  t.match(events, [
    { kind: 'resolved', delivery: 'delivered', attempts: 1 },
    { kind: 'fired', delivery: 'delivered', attempts: 1 },
  ])
  const rules = (await app.inject('/alerts/rules')).json().items
  t.match(rules, [{ rule_id: rule.rule_id, state: 'ok', last_value: 15.38 }])
})

t.test('cost: what the traces of the window cost, summed exactly; unpriced traces add nothing', async (t) => {
  const { hook, app, key, hourlyRule } = await watched(t, 'Spending')
  const created = await hourlyRule({ name: 'Spending', metric: 'cost', threshold: 0.29 })
  t.equal(created.statusCode, 201)
  await postBatch(app, key, [{ prompt: 'a', cost: 0.1 }, { prompt: 'b' }])
  t.same(await app.alerts.evaluate(), [], '0.1 is under the threshold')
  await postBatch(app, key, [{ prompt: 'c', cost: 0.2 }])
  // Added as floating point, 0.1 + 0.2 would be 0.30000000000000004.
  t.match(await app.alerts.evaluate(), [{ kind: 'fired', metric: 'cost', value: 0.3, threshold: 0.29 }])
  await app.alerts.settled()
  t.match(JSON.parse(hook.received[0]!.body), { data: { metric: 'cost', value: 0.3 } })
})

t.test(
  'score_mean: the mean of a score over the window, firing below its threshold, silent without scores',
  async (t) => {
    const { hook, app, key, hourlyRule } = await watched(t, 'Helpful')
    const missing = await hourlyRule({ name: 'x', metric: 'score_mean', threshold: 0.6 })
    t.equal(missing.statusCode, 400)
    t.match(missing.json().message, /score_name/)
    const stray = await hourlyRule({ name: 'x', metric: 'cost', threshold: 1, score_name: 'helpfulness' })
    t.equal(stray.statusCode, 400)
    t.match(stray.json().message, 'body/score_name applies only to metric score_mean')
    const created = await hourlyRule({
      name: 'Unhelpful answers',
      metric: 'score_mean',
      score_name: 'helpfulness',
      direction: 'below',
      threshold: 0.6,
    })
    t.equal(created.statusCode, 201, created.body)
    t.match(created.json(), { metric: 'score_mean', score_name: 'helpfulness', direction: 'below', state: 'ok' })
    t.same(await app.alerts.evaluate(), [], 'no score yet: nothing to say')
    t.match((await app.inject('/alerts/rules')).json().items, [{ last_value: null, state: 'ok' }])

    const res = await postBatch(app, key, [
      { trace_id: 'h-1', prompt: 'a' },
      { trace_id: 'h-2', prompt: 'b' },
    ])
    t.equal(res.statusCode, 200)
    const score = (trace_id: string, name: string, value: number) =>
      app.inject({ method: 'POST', url: '/scores', payload: { trace_id, name, value } })
    await score('h-1', 'helpfulness', 0.9)
    await score('h-2', 'other', 0)
    t.same(await app.alerts.evaluate(), [], 'a mean of 0.9 is not below 0.6; another name does not count')
    await score('h-2', 'helpfulness', 0.2)
    t.match(await app.alerts.evaluate(), [{ kind: 'fired', metric: 'score_mean', value: 0.55, threshold: 0.6 }])
    await app.alerts.settled()
    t.match(JSON.parse(hook.received[0]!.body), { data: { metric: 'score_mean', value: 0.55 } })
    await score('h-2', 'helpfulness', 1)
    t.match(await app.alerts.evaluate(), [{ kind: 'resolved', value: 0.7 }])
  },
)

t.test('Slack: retried with backoff until the receiver accepts; an unreachable one is marked failed', async (t) => {
  const { hook: slack, app, key } = await watched(t, 'Busy', 2)
  const everyTrace = { metric: 'trace_count', window_minutes: 5, threshold: 0 }
  const rule = (
    await createRule(app, { name: 'Any traffic', ...everyTrace, destination: { type: 'slack', url: slack.url } })
  ).json()
  const unreachable = `http://127.0.0.1:${await unusedPort()}/x`
  const dead = (
    await createRule(app, { name: 'Nobody listens', ...everyTrace, destination: { type: 'webhook', url: unreachable } })
  ).json()
  await postBatch(app, key, [{ prompt: 'x' }])
  t.equal((await app.alerts.evaluate()).length, 2)
  await app.alerts.settled()
  t.equal(slack.received.length, 3, 'two 500s, then accepted')
  // Timers never fire early: the waits are at least the base, then twice the base.
  t.ok(slack.received[1]!.at - slack.received[0]!.at >= config.alertRetryBaseMs, 'waited the base delay')
  t.ok(slack.received[2]!.at - slack.received[1]!.at >= 2 * config.alertRetryBaseMs, 'then twice as long')
  const message = JSON.parse(slack.received[2]!.body)
  t.match(message.text, /firing: Any traffic — trace_count over the last 5 min on every project is 1 \(threshold 0\)/)
  t.notOk(slack.received[0]!.headers['x-loupe-signature'], 'no secret: unsigned')
  const events = (await app.inject(`/alerts/events?rule_id=${rule.rule_id}`)).json().items
  t.match(events, [{ delivery: 'delivered', attempts: 3, last_error: null }])
  const failed = (await app.inject(`/alerts/events?rule_id=${dead.rule_id}`)).json().items
  t.match(failed, [{ delivery: 'failed', attempts: 3, last_error: /could not be reached/ }])
})

t.test('bad rules are a 400 naming the field; unknown ones a 404; admin only in protected mode', async (t) => {
  const adminToken = 'alerts-admin-token-0123456789'
  const app = await buildTestApp(t, { config: { ...config, adminToken } })
  const { key } = await createProject(app, 'P', 'production', adminToken)
  const admin = { authorization: `Bearer ${adminToken}` }
  const base = { name: 'r', metric: 'p95_latency', window_minutes: 10, threshold: 100 }
  const post = (payload: object, headers: Record<string, string> = admin) =>
    app.inject({ method: 'POST', url: '/alerts/rules', payload, headers })
  const badUrl = await post({ ...base, destination: { type: 'webhook', url: 'ftp://x' } })
  t.equal(badUrl.statusCode, 400)
  t.match(badUrl.json().message, /destination/)
  const badMetric = await post({ ...base, metric: 'mood', destination: { type: 'slack', url: 'http://x.test' } })
  t.equal(badMetric.statusCode, 400)
  t.match(badMetric.json().message, /metric/)
  const badWindow = await post({ ...base, window_minutes: 0, destination: { type: 'slack', url: 'http://x.test' } })
  t.match(badWindow.json().message, /window_minutes/)
  const unknown = await post({ ...base, project_id: 'none', destination: { type: 'slack', url: 'http://x.test' } })
  t.equal(unknown.statusCode, 404)
  t.equal((await post({ ...base, destination: { type: 'slack', url: 'http://x.test' } }, {})).statusCode, 401)
  const asKey = { authorization: `Bearer ${key}` }
  t.equal((await post({ ...base, destination: { type: 'slack', url: 'http://x.test' } }, asKey)).statusCode, 403)
  const ok = await post({ ...base, destination: { type: 'slack', url: 'http://x.test' } })
  t.equal(ok.statusCode, 201)
  const del = (id: string) => app.inject({ method: 'DELETE', url: `/alerts/rules/${id}`, headers: admin })
  t.equal((await del(ok.json().rule_id)).statusCode, 204)
  t.equal((await del(ok.json().rule_id)).statusCode, 404)
  t.equal((await app.inject({ url: '/alerts/events', headers: asKey })).statusCode, 403)
})
