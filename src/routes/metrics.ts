// GET /metrics: what the app's Prometheus registry holds (src/plugins/metrics.ts), for a Prometheus scraper.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { MetricsResponse, PROMETHEUS_CONTENT_TYPE } from '../../schemas/index.js'

const metrics: FastifyPluginAsyncTypebox = async (app) => {
  // GET /metrics
  app.get(
    '/metrics',
    {
      // A scraper polls from one address: the per-address request limit would cut its series.
      config: { access: 'metrics', rateLimit: false },
      schema: {
        tags: ['health'],
        operationId: 'getMetrics',
        summary: 'Prometheus metrics',
        description:
          'Requests by route and status with their latency, traces ingested and rejected by reason, OTLP spans ' +
          'pending, /ws connections and dropped peers, store size and trace count, retention deletions, and the ' +
          'process (CPU, memory, event loop, garbage collection).',
        response: { 200: MetricsResponse },
      },
    },
    async (_request, reply) => {
      const text = await app.metrics.registry.metrics()
      return reply.type(PROMETHEUS_CONTENT_TYPE).send(text)
    },
  )
}

export default metrics
