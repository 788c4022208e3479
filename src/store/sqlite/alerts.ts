// Alert rules and events on SQLite, and the window counts the rules are evaluated on.
import { and, desc, eq } from 'drizzle-orm'
import { p95Index, toUsd } from '../../analytics/math.js'
import { NANOS_PER_USD } from '../../costs/pricing.js'
import type { AlertStore } from '../types.js'
import type { SqliteContext } from './context.js'
import { alertEvents, alertRules } from './tables.js'
import { writeTransaction } from './write-transaction.js'

export function createSqliteAlertStore({ sqlite, db }: SqliteContext): AlertStore {
  return {
    async createRule(rule) {
      db.insert(alertRules).values(rule).run()
    },
    async listRules() {
      return db.select().from(alertRules).orderBy(alertRules.created_at, alertRules.rule_id).all()
    },
    async deleteRule(ruleId) {
      return db.delete(alertRules).where(eq(alertRules.rule_id, ruleId)).run().changes > 0
    },
    async recordEvaluation(ruleId, update, event) {
      writeTransaction(sqlite, () => {
        db.update(alertRules).set(update).where(eq(alertRules.rule_id, ruleId)).run()
        if (event) db.insert(alertEvents).values(event).run()
      })()
    },
    async listEvents({ rule_id, limit }) {
      return db
        .select()
        .from(alertEvents)
        .where(rule_id === undefined ? undefined : eq(alertEvents.rule_id, rule_id))
        .orderBy(desc(alertEvents.at), desc(alertEvents.event_id))
        .limit(limit)
        .all()
    },
    async pendingEvents() {
      return db
        .select()
        .from(alertEvents)
        .where(and(eq(alertEvents.delivery, 'pending')))
        .all()
    },
    async setDelivery(eventId, delivery) {
      db.update(alertEvents).set(delivery).where(eq(alertEvents.event_id, eventId)).run()
    },
    /** The figures of the traces created since a time (of one project or all), for alert rules. */
    async windowStats({ project_id, since, slowThresholdMs }) {
      const scope = project_id === undefined ? '' : 'and project_id = ?'
      const params = project_id === undefined ? [since] : [since, project_id]
      // Costs are stored to the nano-dollar: summed as whole nano-dollars, the sum is exact.
      const { nanos, ...counts } = sqlite
        .prepare(
          `select count(*) as traces, coalesce(sum(status = 'failed'), 0) as failed,
                  coalesce(sum(latency >= ?), 0) as slow,
                  coalesce(sum(cast(round(cost * ${NANOS_PER_USD}) as integer)), 0) as nanos
           from traces where created_at >= ? ${scope}`,
        )
        .safeIntegers(true)
        .get(slowThresholdMs, ...params) as { traces: bigint; failed: bigint; slow: bigint; nanos: bigint }
      const stats = {
        traces: Number(counts.traces),
        failed: Number(counts.failed),
        slow: Number(counts.slow),
        cost: toUsd(nanos),
      }
      if (stats.traces === 0) return { ...stats, p95_latency: 0 }
      const p95 = sqlite
        .prepare(`select latency from traces where created_at >= ? ${scope} order by latency limit 1 offset ?`)
        .get(...params, p95Index(stats.traces)) as { latency: number } | undefined
      return { ...stats, p95_latency: p95?.latency ?? 0 }
    },
  }
}
