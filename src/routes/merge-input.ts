// Management routes take their fields from the query string or a JSON body, the body winning.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { InvalidInput } from '../errors.js'

/**
 * Content types of a management plugin: JSON only (text/plain is a 415, not a 400 about the body), and an empty JSON
 * body means "the fields are in the query string", as many clients send `Content-Type: application/json` on every POST.
 */
export function acceptJsonOrNothing(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser(['application/json', 'text/plain'])
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body: string, done) => {
    if (body.length === 0) done(null, undefined)
    else parseJson(request, body, done)
  })
}

/** preValidation hook: merges the query fields into the body, so that one body schema validates both. */
export async function mergeQueryIntoBody(request: FastifyRequest, _reply: FastifyReply) {
  const body = request.body
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
    throw new InvalidInput('body must be a JSON object')
  }
  request.body = { ...(request.query as object), ...(body ?? {}) }
}
