// OpenAPI 3 from the route schemas (named components: TraceSchema, StepSchema, …), Swagger UI at /docs.
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import fp from 'fastify-plugin'
import type { Access } from '../lib/access-policy.js'
import { documentOperation } from '../lib/openapi-operation.js'
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
          license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
          contact: { name: 'Loupe', url: 'https://www.npmjs.com/package/loupe' },
        },
        servers: [{ url: '/', description: 'The Loupe server that serves this document' }],
        tags: [
          { name: 'health', description: 'Liveness and readiness' },
          { name: 'traces', description: 'Recorded executions' },
          { name: 'analytics', description: 'Aggregates and failures' },
          { name: 'scores', description: 'Whether answers were good: scores, score configs, annotation' },
          { name: 'evaluators', description: 'Checks and LLM judges that score traces' },
          { name: 'costs', description: 'Model prices and re-pricing' },
          { name: 'sessions', description: 'Conversations and their users' },
          { name: 'projects', description: 'Projects and their API keys' },
          { name: 'alerts', description: 'Alert rules and what they fired' },
          { name: 'annotation', description: 'Queues of traces for people to score' },
          { name: 'datasets', description: 'Collections of cases, versioned, to run experiments over' },
          { name: 'experiments', description: 'Runs of a task over a dataset, and runs compared' },
        ],
        components: {
          securitySchemes: {
            bearerAuth: {
              type: 'http',
              scheme: 'bearer',
              description:
                'A project API key (loupe_sk_…; a public key loupe_pk_… only on POST /scores), or in protected mode the admin token.',
            },
            apiKeyHeader: {
              type: 'apiKey',
              in: 'header',
              name: 'X-API-Key',
              description: 'The same credential in a header of its own.',
            },
            tokenQuery: {
              type: 'apiKey',
              in: 'query',
              name: 'token',
              description: 'The credential as `?token=`, for /ws only (a browser cannot set headers on a WebSocket).',
            },
          },
        },
      },
      // Security and the error answers the plugins give are derived from each route's config, not written per route.
      transform: ({ schema, url, route }) => ({
        url,
        schema: documentOperation({
          schema: (schema ?? {}) as Record<string, unknown>,
          access: (route.config as { access?: Access } | undefined)?.access ?? 'authenticated',
          rateLimited: (route.config as { rateLimit?: unknown } | undefined)?.rateLimit !== false,
          credentialInQuery: (route.config as { credentialInQuery?: boolean } | undefined)?.credentialInQuery === true,
        }) as typeof schema,
      }),
      refResolver: {
        buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
      },
    })
    // The API docs hold no data: public in protected mode too, so that a browser can show them.
    app.addHook('onRoute', (route) => {
      if (route.url === '/docs' || route.url.startsWith('/docs/')) route.config = { ...route.config, access: 'public' }
    })
    await app.register(swaggerUi, { routePrefix: '/docs' })
  },
  { name: 'loupe-docs' },
)
