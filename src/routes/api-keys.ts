// GET /api-keys, POST /api-keys (another key for a project), DELETE /api-keys/{key_id} (revoke).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  ApiKeyCreatedSchema,
  ApiKeyParams,
  ApiKeySchema,
  CreateApiKeyInput,
  errorResponses,
  ListApiKeysQuery,
  ListApiKeysResponse,
  Ref,
} from '../../schemas/index.js'
import { ApiKeyNotFound } from '../errors.js'
import { acceptJsonOrNothing, mergeQueryIntoBody } from './merge-input.js'

const apiKeys: FastifyPluginAsyncTypebox = async (app) => {
  acceptJsonOrNothing(app)
  // GET /api-keys
  app.get(
    '/api-keys',
    {
      config: { access: 'read' },
      schema: {
        tags: ['projects'],
        operationId: 'listApiKeys',
        summary: 'API keys (never the secret), oldest first',
        querystring: ListApiKeysQuery,
        response: { 200: ListApiKeysResponse },
      },
    },
    async (request) => {
      const items = await app.projects.listApiKeys(request.scope ?? undefined)
      return { total: items.length, items }
    },
  )

  // POST /api-keys
  app.post(
    '/api-keys',
    {
      preValidation: mergeQueryIntoBody,
      config: { access: 'keys' },
      schema: {
        tags: ['projects'],
        operationId: 'createApiKey',
        summary: 'Create another API key for a project',
        description: 'Fields from the query string or a JSON body. The key is shown only in this response.',
        querystring: Type.Partial(CreateApiKeyInput),
        body: CreateApiKeyInput,
        response: { 201: Ref(ApiKeyCreatedSchema), ...errorResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => reply.code(201).send(await app.projects.createApiKey(request.body)),
  )

  // DELETE /api-keys/{key_id}
  app.delete(
    '/api-keys/:key_id',
    {
      config: { access: 'keys' },
      schema: {
        tags: ['projects'],
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key (it is refused at once)',
        description:
          "With a project key: only its own project's keys of its environment; another project's key is a 404.",
        params: ApiKeyParams,
        response: { 200: Ref(ApiKeySchema), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const { key_id } = request.params
      if (request.scope !== null) {
        // A project key: the key must be one it can see, and the policy decides on its project and environment.
        const key = (await app.projects.listApiKeys(request.scope)).find((k) => k.key_id === key_id)
        if (!key) throw new ApiKeyNotFound(key_id)
        app.authorizeTarget(request, { project_id: key.project_id, environment: key.environment })
      }
      return app.projects.revokeApiKey(key_id)
    },
  )
}

export default apiKeys
