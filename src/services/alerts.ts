// Alerts: rules evaluated every ALERT_INTERVAL_MS over their window; a rule fires once when its value goes above
// the threshold and resolves once when it comes back, each time recording an event and delivering it to the rule's
// destination — a signed JSON webhook or a Slack-compatible message — retried with exponential backoff. Evaluation
// and delivery run on timers, off every request: ingest never waits for an alert.
import { createHmac } from 'node:crypto'
import { uuidv7 } from 'uuidv7'
import type { AlertEvent, AlertRule, AlertRuleInput } from '../../schemas/index.js'
import { InvalidInput, ProjectNotFound } from '../errors.js'
import { repeatEvery } from '../lib/repeat.js'
import { toUtcIso } from '../lib/time.js'
import type { AlertEventRecord, AlertRuleRecord, Store, WindowStats } from '../store/types.js'

export interface AlertService {
  createRule(input: AlertRuleInput): Promise<AlertRule>
  listRules(): Promise<AlertRule[]>
  /** False when there is no such rule. */
  deleteRule(ruleId: string): Promise<boolean>
  listEvents(query: { rule_id?: string; limit: number }): Promise<AlertEvent[]>
  /** Evaluates every rule once; resolves with the events it recorded. */
  evaluate(): Promise<AlertEvent[]>
  /** Resolves once every delivery under way has finished (delivered, or failed for good). */
  settled(): Promise<void>
  start(): Promise<void>
  stop(): Promise<void>
}

export interface AlertDeps {
  store: Store
  now: () => number
  intervalMs: number
  slowThresholdMs: number
  /** Delivery attempts per event, and the delay before the second (doubling after). */
  attempts: number
  retryBaseMs: number
  timeoutMs: number
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void }
  fetch?: typeof fetch
}

/** The value of a rule's metric over its window (a `score_mean` rule's is read from the scores, not the traces). */
export function metricValue(metric: Exclude<AlertRuleRecord['metric'], 'score_mean'>, stats: WindowStats): number {
  switch (metric) {
    case 'failure_rate':
      return stats.traces === 0 ? 0 : Math.round((10_000 * stats.failed) / stats.traces) / 100
    case 'p95_latency':
      return stats.p95_latency
    case 'cost':
      return stats.cost
    case 'trace_count':
      return stats.traces
    case 'slow_requests':
      return stats.slow
  }
}

const toRule = (r: AlertRuleRecord): AlertRule => ({
  rule_id: r.rule_id,
  name: r.name,
  project_id: r.project_id,
  metric: r.metric,
  score_name: r.score_name,
  direction: r.direction,
  window_minutes: r.window_minutes,
  threshold: r.threshold,
  destination: { type: r.destination_type, url: r.url, signed: r.secret !== null },
  state: r.state,
  last_value: r.last_value,
  last_evaluated_at: r.last_evaluated_at === null ? null : toUtcIso(r.last_evaluated_at),
  created_at: toUtcIso(r.created_at),
})

const toEvent = (e: AlertEventRecord): AlertEvent => ({ ...e, at: toUtcIso(e.at) })

/** The body a destination receives. */
export function deliveryBody(rule: AlertRuleRecord, event: AlertEvent): string {
  if (rule.destination_type === 'webhook') return JSON.stringify({ type: `alert.${event.kind}`, data: event })
  const scope = event.project_id === null ? 'every project' : `project ${event.project_id}`
  const verb = event.kind === 'fired' ? ':rotating_light: firing' : ':white_check_mark: resolved'
  const what = rule.metric === 'score_mean' ? `mean ${rule.score_name}` : event.metric
  const text = `${verb}: ${event.rule_name} — ${what} over the last ${rule.window_minutes} min on ${scope} is ${event.value} (threshold ${event.threshold}${rule.direction === 'below' ? ', firing below it' : ''})`
  return JSON.stringify({ text })
}

/** `sha256=<hex>`: the HMAC-SHA256 of the exact body with the rule's secret. */
export const signature = (secret: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`

export function createAlertService(deps: AlertDeps): AlertService {
  const { store, now } = deps
  const send = deps.fetch ?? fetch
  let stopped = false
  let evaluating: Promise<AlertEvent[]> | null = null
  const deliveries = new Set<Promise<void>>()
  const retryTimers = new Set<NodeJS.Timeout>()

  async function attempt(rule: AlertRuleRecord, record: AlertEventRecord, tries: number): Promise<void> {
    const body = deliveryBody(rule, toEvent(record))
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'loupe-alerts' }
    if (rule.secret) headers['x-loupe-signature'] = signature(rule.secret, body)
    headers['x-loupe-event-id'] = record.event_id
    let error: string | null = null
    try {
      const res = await send(rule.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(deps.timeoutMs) })
      await res.arrayBuffer().catch(() => undefined)
      if (!res.ok) error = `the destination answered ${res.status}`
    } catch (err) {
      error = `the destination could not be reached: ${(err as Error).message}`
    }
    const attempts = tries
    if (error === null) {
      await store.alerts.setDelivery(record.event_id, { delivery: 'delivered', attempts, last_error: null })
      return
    }
    const last = attempts >= deps.attempts || stopped
    await store.alerts.setDelivery(record.event_id, {
      delivery: last ? 'failed' : 'pending',
      attempts,
      last_error: error,
    })
    if (last) {
      deps.log.warn({ event_id: record.event_id, rule_id: rule.rule_id, attempts, error }, 'alert: delivery failed')
      return
    }
    // Exponential backoff: base, 2 × base, 4 × base …
    await new Promise<void>((resolve) => {
      const t = setTimeout(
        () => {
          retryTimers.delete(t)
          resolve()
        },
        deps.retryBaseMs * 2 ** (attempts - 1),
      )
      t.unref()
      retryTimers.add(t)
    })
    if (!stopped) await attempt(rule, record, attempts + 1)
  }

  function deliver(rule: AlertRuleRecord, record: AlertEventRecord, tries = 1) {
    const job = attempt(rule, record, tries)
      .catch((err) => deps.log.warn({ err, event_id: record.event_id }, 'alert: delivery could not be recorded'))
      .finally(() => deliveries.delete(job))
    deliveries.add(job)
  }

  async function evaluateOnce(): Promise<AlertEvent[]> {
    const events: AlertEvent[] = []
    const at = now()
    for (const rule of await store.alerts.listRules()) {
      const since = at - rule.window_minutes * 60_000
      const project_id = rule.project_id ?? undefined
      const value =
        rule.metric === 'score_mean'
          ? (await store.scores.windowMean(rule.score_name ?? '', project_id, since)).mean
          : metricValue(
              rule.metric,
              await store.alerts.windowStats({ project_id, since, slowThresholdMs: deps.slowThresholdMs }),
            )
      // A window without a score of its name tells nothing: the rule keeps its state.
      if (value === null) {
        await store.alerts.recordEvaluation(
          rule.rule_id,
          { state: rule.state, last_value: null, last_evaluated_at: at },
          null,
        )
        continue
      }
      const above = rule.direction === 'below' ? value < rule.threshold : value > rule.threshold
      const state = above ? 'firing' : 'ok'
      let record: AlertEventRecord | null = null
      if (state !== rule.state) {
        record = {
          event_id: uuidv7(),
          rule_id: rule.rule_id,
          rule_name: rule.name,
          project_id: rule.project_id,
          metric: rule.metric,
          kind: above ? 'fired' : 'resolved',
          value,
          threshold: rule.threshold,
          at,
          delivery: 'pending',
          attempts: 0,
          last_error: null,
        }
      }
      await store.alerts.recordEvaluation(rule.rule_id, { state, last_value: value, last_evaluated_at: at }, record)
      if (record) {
        events.push(toEvent(record))
        deps.log.info({ rule_id: rule.rule_id, kind: record.kind, value, threshold: rule.threshold }, 'alert')
        deliver(rule, record)
      }
    }
    return events
  }

  const service: AlertService = {
    async createRule(input) {
      if (input.project_id && !(await store.projects.get(input.project_id))) throw new ProjectNotFound(input.project_id)
      if (input.metric === 'score_mean' && (input.score_name ?? null) === null) {
        throw new InvalidInput(
          "body must have property 'score_name' with metric score_mean (the score whose mean is watched)",
        )
      }
      if (input.metric !== 'score_mean' && (input.score_name ?? null) !== null) {
        throw new InvalidInput(`body/score_name applies only to metric score_mean, not ${input.metric}`)
      }
      const rule: AlertRuleRecord = {
        rule_id: uuidv7(),
        name: input.name,
        project_id: input.project_id ?? null,
        metric: input.metric,
        score_name: input.score_name ?? null,
        direction: input.direction ?? 'above',
        window_minutes: input.window_minutes,
        threshold: input.threshold,
        destination_type: input.destination.type,
        url: input.destination.url,
        secret: input.destination.secret ?? null,
        state: 'ok',
        last_value: null,
        last_evaluated_at: null,
        created_at: now(),
      }
      await store.alerts.createRule(rule)
      return toRule(rule)
    },

    async listRules() {
      return (await store.alerts.listRules()).map(toRule)
    },

    deleteRule: (ruleId) => store.alerts.deleteRule(ruleId),

    async listEvents(query) {
      return (await store.alerts.listEvents(query)).map(toEvent)
    },

    evaluate() {
      evaluating ??= evaluateOnce().finally(() => {
        evaluating = null
      })
      return evaluating
    },

    async settled() {
      while (deliveries.size > 0) await Promise.allSettled([...deliveries])
    },

    async start() {
      stopped = false
      // Deliveries a previous run left pending are resumed (their rule may have been deleted since: then dropped).
      const rules = new Map((await store.alerts.listRules()).map((r) => [r.rule_id, r]))
      for (const record of await store.alerts.pendingEvents()) {
        const rule = rules.get(record.rule_id)
        if (rule) deliver(rule, record, record.attempts + 1)
      }
      job.start()
    },

    async stop() {
      stopped = true
      job.stop()
      for (const t of retryTimers) clearTimeout(t)
      retryTimers.clear()
      await evaluating?.catch(() => [])
    },
  }
  const job = repeatEvery(
    deps.intervalMs,
    () => service.evaluate(),
    (err) => deps.log.warn({ err }, 'alert: evaluation failed; the next one tries again'),
  )
  return service
}
