// GET /analytics and GET /failures.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  AnalyticsQuery,
  AnalyticsResponse,
  errorResponses,
  FailuresQuery,
  FailuresResponse,
  type Filled,
} from '../../schemas/index.js'

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
    async (request) => {
      const params = {
        project_id: request.scope ?? undefined,
        now: app.now(),
        slowThresholdMs: app.config.slowThresholdMs,
      }
      const [traces, scores] = await Promise.all([app.store.traces.analytics(params), app.scores.analytics(params)])
      return { ...traces, scores }
    },
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
    async (request) =>
      app.store.traces.failures({
        project_id: request.scope ?? undefined,
        limit: (request.query as Filled<FailuresQuery, 'limit'>).limit,
        slowThresholdMs: app.config.slowThresholdMs,
      }),
  )
}

export default analytics
