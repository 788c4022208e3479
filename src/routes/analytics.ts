// GET /analytics and GET /failures.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import {
  AnalyticsQuery,
  AnalyticsResponse,
  errorResponses,
  FailuresQuery,
  FailuresResponse,
  type Filled,
} from '../../schemas/index.js'

/** GET /analytics's answer within a scope (null: every project); the MCP tools ask it too. */
export async function analyticsOf(app: FastifyInstance, scope: string | null): Promise<AnalyticsResponse> {
  const params = { project_id: scope ?? undefined, now: app.now(), slowThresholdMs: app.config.slowThresholdMs }
  const [traces, scores] = await Promise.all([app.store.traces.analytics(params), app.scores.analytics(params)])
  return { ...traces, scores }
}

/** GET /failures's answer within a scope, `limit` of each list; the MCP tools ask it too. */
export function failuresOf(app: FastifyInstance, scope: string | null, limit: number): Promise<FailuresResponse> {
  return app.store.traces.failures({
    project_id: scope ?? undefined,
    limit,
    slowThresholdMs: app.config.slowThresholdMs,
  })
}

const analytics: FastifyPluginAsyncTypebox = async (app) => {
  // GET /analytics
  app.get(
    '/analytics',
    {
      config: { access: 'read' },
      schema: {
        tags: ['analytics'],
        operationId: 'getAnalytics',
        summary: 'Summary, 24-hour chart, breakdowns and recent failures',
        querystring: AnalyticsQuery,
        response: { 200: AnalyticsResponse, ...errorResponses(400) },
      },
    },
    async (request) => analyticsOf(app, request.scope),
  )

  // GET /failures
  app.get(
    '/failures',
    {
      config: { access: 'read' },
      schema: {
        tags: ['analytics'],
        operationId: 'getFailures',
        summary: 'Failed, retried and slow traces',
        querystring: FailuresQuery,
        response: { 200: FailuresResponse, ...errorResponses(400) },
      },
    },
    async (request) => failuresOf(app, request.scope, (request.query as Filled<FailuresQuery, 'limit'>).limit),
  )
}

export default analytics
