// Management routes take their fields from the query string (as SPEC.md shows) or a JSON body, the body winning.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { InvalidInput } from '../errors.js'

/** preValidation hook: merges the query fields into the body, so that one body schema validates both. */
export async function mergeQueryIntoBody(request: FastifyRequest, _reply: FastifyReply) {
  const body = request.body
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
    throw new InvalidInput('body must be a JSON object')
  }
  request.body = { ...(request.query as object), ...(body ?? {}) }
}
