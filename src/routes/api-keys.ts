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
import { acceptJsonOrNothing, mergeQueryIntoBody } from './merge-input.js'

const apiKeys: FastifyPluginAsyncTypebox = async (app) => {
  acceptJsonOrNothing(app)
  // GET /api-keys
  app.get(
    '/api-keys',
    {
      schema: {
        tags: ['projects'],
        summary: 'API keys (never the secret), oldest first',
        querystring: ListApiKeysQuery,
        response: { 200: ListApiKeysResponse },
      },
    },
    async (request) => {
      const items = await app.projects.listApiKeys(request.query.project_id)
      return { total: items.length, items }
    },
  )

  // POST /api-keys
  app.post(
    '/api-keys',
    {
      preValidation: mergeQueryIntoBody,
      schema: {
        tags: ['projects'],
        summary: 'Create another API key for a project',
        description: 'Fields from the query string or a JSON body. The key is shown only in this response.',
        querystring: Type.Partial(CreateApiKeyInput),
        body: CreateApiKeyInput,
        response: { 201: Ref(ApiKeyCreatedSchema), ...errorResponses(400, 404, 415) },
      },
    },
    async (request, reply) => reply.code(201).send(await app.projects.createApiKey(request.body)),
  )

  // DELETE /api-keys/{key_id}
  app.delete(
    '/api-keys/:key_id',
    {
      schema: {
        tags: ['projects'],
        summary: 'Revoke an API key (it is refused at once)',
        params: ApiKeyParams,
        response: { 200: Ref(ApiKeySchema), ...errorResponses(404) },
      },
    },
    async (request) => app.projects.revokeApiKey(request.params.key_id),
  )
}

export default apiKeys
