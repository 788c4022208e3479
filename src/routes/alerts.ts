// /alerts/rules (list, create, delete) and GET /alerts/events: alert rules and each firing and resolution.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  AlertRuleInput,
  AlertRuleParams,
  AlertRuleSchema,
  errorResponses,
  type Filled,
  ListAlertEventsQuery,
  ListAlertEventsResponse,
  ListAlertRulesResponse,
} from '../../schemas/index.js'
import { AlertRuleNotFound } from '../errors.js'

const alerts: FastifyPluginAsyncTypebox = async (app) => {
  // GET /alerts/rules
  app.get(
    '/alerts/rules',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['alerts'],
        operationId: 'listAlertRules',
        summary: 'Every alert rule, oldest first, with its state and last value',
        response: { 200: ListAlertRulesResponse },
      },
    },
    async () => ({ items: await app.alerts.listRules() }),
  )

  // POST /alerts/rules
  app.post(
    '/alerts/rules',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['alerts'],
        operationId: 'createAlertRule',
        summary: 'Create an alert rule',
        description:
          'The rule is evaluated every ALERT_INTERVAL_MS over its window. It fires once when the value goes above ' +
          'the threshold and resolves once when it is back at or below; each is an event (GET /alerts/events) ' +
          'delivered to the destination, retried with exponential backoff. A webhook gets ' +
          '`{ "type": "alert.fired" | "alert.resolved", "data": <AlertEvent> }`, Slack `{ "text": … }`; with a ' +
          'secret, `X-Loupe-Signature: sha256=<hex HMAC-SHA256 of the body>`.',
        body: AlertRuleInput,
        response: { 201: AlertRuleSchema, ...errorResponses(404) },
      },
    },
    async (request, reply) => reply.code(201).send(await app.alerts.createRule(request.body)),
  )

  // DELETE /alerts/rules/{rule_id}
  app.delete(
    '/alerts/rules/:rule_id',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['alerts'],
        operationId: 'deleteAlertRule',
        summary: 'Delete an alert rule (its events stay)',
        params: AlertRuleParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      if (!(await app.alerts.deleteRule(request.params.rule_id))) throw new AlertRuleNotFound(request.params.rule_id)
      return reply.code(204).send(null)
    },
  )

  // GET /alerts/events
  app.get(
    '/alerts/events',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['alerts'],
        operationId: 'listAlertEvents',
        summary: 'Each firing and resolution, newest first, with how its delivery went',
        querystring: ListAlertEventsQuery,
        response: { 200: ListAlertEventsResponse },
      },
    },
    async (request) => {
      const { rule_id, limit } = request.query as Filled<ListAlertEventsQuery, 'limit'>
      return { items: await app.alerts.listEvents({ rule_id, limit }) }
    },
  )
}

export default alerts
