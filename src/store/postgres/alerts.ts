// Alert rules and events on PostgreSQL, and the window counts the rules are evaluated on.
import { desc, eq } from 'drizzle-orm'
import { p95Index, toUsd } from '../../analytics/math.js'
import { NANOS_PER_USD } from '../../costs/pricing.js'
import type { AlertEventRecord, AlertRuleRecord, AlertStore } from '../types.js'
import type { PostgresContext } from './context.js'
import { encodeText } from './nul.js'
import { alertEvents, alertRules } from './tables.js'

/** Free text goes through the U+0000 escape (nul.ts); reads come back decoded by the pool's parsers. */
const encodedRule = (rule: AlertRuleRecord): AlertRuleRecord => ({ ...rule, name: encodeText(rule.name) })
const encodedEvent = (event: AlertEventRecord): AlertEventRecord => ({
  ...event,
  rule_name: encodeText(event.rule_name),
  last_error: event.last_error === null ? null : encodeText(event.last_error),
})

export function createPostgresAlertStore({ pool, db }: PostgresContext): AlertStore {
  return {
    async createRule(rule) {
      await db.insert(alertRules).values(encodedRule(rule))
    },
    async listRules() {
      return db.select().from(alertRules).orderBy(alertRules.created_at, alertRules.rule_id)
    },
    async deleteRule(ruleId) {
      const deleted = await db
        .delete(alertRules)
        .where(eq(alertRules.rule_id, encodeText(ruleId)))
        .returning({ id: alertRules.rule_id })
      return deleted.length > 0
    },
    async recordEvaluation(ruleId, update, event) {
      await db.transaction(async (tx) => {
        await tx.update(alertRules).set(update).where(eq(alertRules.rule_id, ruleId))
        if (event) await tx.insert(alertEvents).values(encodedEvent(event))
      })
    },
    async listEvents({ rule_id, limit }) {
      return db
        .select()
        .from(alertEvents)
        .where(rule_id === undefined ? undefined : eq(alertEvents.rule_id, encodeText(rule_id)))
        .orderBy(desc(alertEvents.at), desc(alertEvents.event_id))
        .limit(limit)
    },
    async pendingEvents() {
      return db.select().from(alertEvents).where(eq(alertEvents.delivery, 'pending'))
    },
    async setDelivery(eventId, delivery) {
      await db
        .update(alertEvents)
        .set({ ...delivery, last_error: delivery.last_error === null ? null : encodeText(delivery.last_error) })
        .where(eq(alertEvents.event_id, eventId))
    },
    /** The figures of the traces created since a time (of one project or all), for alert rules. */
    async windowStats({ project_id, since, slowThresholdMs }) {
      const scope = project_id === undefined ? '' : 'and project_id = $2'
      const params: unknown[] = project_id === undefined ? [since] : [since, encodeText(project_id)]
      // Costs are stored to the nano-dollar: summed as whole nano-dollars (text, so no digit is lost), the sum is exact.
      const { rows } = await pool.query<{ traces: number; failed: number; slow: number; nanos: string }>(
        `select count(*) as traces, count(*) filter (where status = 'failed') as failed,
                count(*) filter (where latency >= $${params.length + 1}) as slow,
                coalesce(sum(round(cost * ${NANOS_PER_USD})::int8), 0)::text as nanos
         from traces where created_at >= $1 ${scope}`,
        [...params, slowThresholdMs],
      )
      const { nanos, ...counts } = rows[0] ?? { traces: 0, failed: 0, slow: 0, nanos: '0' }
      const stats = { ...counts, cost: toUsd(BigInt(nanos)) }
      if (stats.traces === 0) return { ...stats, p95_latency: 0 }
      const p95 = await pool.query<{ latency: number }>(
        `select latency from traces where created_at >= $1 ${scope} order by latency limit 1 offset $${params.length + 1}`,
        [...params, p95Index(stats.traces)],
      )
      return { ...stats, p95_latency: p95.rows[0]?.latency ?? 0 }
    },
  }
}
