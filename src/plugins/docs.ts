// OpenAPI 3 from the route schemas (named components: TraceSchema, StepSchema, …), Swagger UI at /docs.
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import fp from 'fastify-plugin'
import { version } from '../lib/version.js'

export default fp(
  async (app) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'Loupe',
          description:
            'Self-hosted observability for language-model applications: traces, failures, analytics and a live stream on /ws.',
          version,
        },
        tags: [
          { name: 'health', description: 'Liveness and readiness' },
          { name: 'traces', description: 'Recorded executions' },
          { name: 'analytics', description: 'Aggregates and failures' },
          { name: 'projects', description: 'Projects and their API keys' },
        ],
        components: {
          securitySchemes: {
            bearerAuth: {
              type: 'http',
              scheme: 'bearer',
              description: 'A project API key (loupe_sk_…), or in protected mode the admin token.',
            },
            apiKeyHeader: {
              type: 'apiKey',
              in: 'header',
              name: 'X-API-Key',
              description: 'The same credential in a header of its own.',
            },
          },
        },
      },
      refResolver: {
        buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
      },
    })
    await app.register(swaggerUi, { routePrefix: '/docs' })
  },
  { name: 'loupe-docs' },
)
