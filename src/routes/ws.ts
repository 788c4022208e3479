// WS /ws: the upgrade to the live stream. HTTP only: the connection cap and the answer to a plain GET live here; the
// stream itself (subscriptions, heartbeat, flood control, fan-out) is src/events/sockets.ts. A project key's stream
// is confined to its project (request.scope, set by the auth plugin).
import type { FastifyPluginAsync } from 'fastify'
import { errorResponses } from '../../schemas/index.js'
import { TooManyConnections, UpgradeRequired } from '../errors.js'
import { hashApiKey, presentedKey } from '../lib/credentials.js'

const ws: FastifyPluginAsync = async (app) => {
  const maxConnections = app.config.wsMaxConnections

  // WS /ws
  app.route({
    method: 'GET',
    url: '/ws',
    // The stream has its own connection cap; opening it does not count against the per-address request rate.
    config: { access: 'read', credentialInQuery: true, rateLimit: false },
    // Refused before the upgrade when full; the handler checks again, as upgrades in flight may have filled it.
    // Its 503 carries Retry-After like every other (the error handler adds it).
    preHandler: async () => {
      if (app.sockets.size >= maxConnections) throw new TooManyConnections(maxConnections)
    },
    schema: {
      tags: ['traces'],
      operationId: 'streamTraces',
      summary: 'Live stream of stored traces (WebSocket)',
      description:
        'Server messages are `{ type, data, timestamp }`: `connection.established` on connect, `trace.created` per ' +
        'stored trace, `pong`, `subscribed`, `error`. Send `{"type":"ping"}` or `{"type":"subscribe","project_id":"p"}`. ' +
        'In protected mode the credential may come as `?token=`; a project key streams only its project. ' +
        'A plain GET without the WebSocket upgrade is answered 426.',
      response: {
        101: { description: 'Switching Protocols: the connection is now the WebSocket stream.', type: 'null' },
        ...errorResponses(426),
        // No 2xx exists for an upgrade; every answer other than 101 is an error of the one error shape.
        default: { ...errorResponses(500)[500], description: 'Any other answer: an error of the same shape.' },
      },
    },
    // A plain GET: say how to connect instead of an empty 404.
    handler: async () => {
      throw new UpgradeRequired()
    },
    wsHandler: (socket, request) => {
      if (app.sockets.size >= maxConnections) {
        socket.close(1013, 'too many connections')
        return
      }
      const secret = request.apiKey ? presentedKey(request, true) : null
      app.sockets.accept(socket, { scope: request.scope, keyHash: secret === null ? null : hashApiKey(secret) })
    },
  })
}

export default ws
