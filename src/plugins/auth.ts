// Project API keys: read from `Authorization: Bearer <key>` or `X-API-Key: <key>`, resolved to the project context.
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { MissingApiKey } from '../errors.js'
import type { KeyContext } from '../store/types.js'

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: KeyContext | null
  }
  interface FastifyInstance {
    /** preHandler for routes that need a project key (ingest): 401 without a live one. */
    requireProjectKey: (request: FastifyRequest) => Promise<void>
  }
}

/** The secret a request presents, if any. */
export function presentedKey(request: FastifyRequest): string | null {
  const header = request.headers.authorization
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
    if (match) return match[1] ?? null
  }
  const apiKey = request.headers['x-api-key']
  if (typeof apiKey === 'string' && apiKey.trim() !== '') return apiKey.trim()
  return null
}

export default fp(
  async (app) => {
    app.decorateRequest('apiKey', null)
    app.decorate('requireProjectKey', async (request: FastifyRequest) => {
      const secret = presentedKey(request)
      if (secret === null) throw new MissingApiKey()
      request.apiKey = await app.projects.authenticate(secret)
    })
  },
  { name: 'loupe-auth', dependencies: ['loupe-services'] },
)
