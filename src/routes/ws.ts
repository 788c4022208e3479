// WS /ws: the live stream. Each stored trace goes to every connected client (or those subscribed to its project);
// a peer that has gone away, fails a send or lets its unsent buffer pass the limit is dropped during the broadcast,
// so one slow reader never holds up the rest. A project key's stream is confined to its project (request.scope, set
// by the auth plugin); connections are capped, and so are the frames a client may send per second.
import { randomUUID } from 'node:crypto'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import type { FastifyPluginAsync } from 'fastify'
import type { WebSocket } from 'ws'
import { type ClientMessage, ClientMessageSchema, type ServerMessage, type Trace } from '../../schemas/index.js'
import { TooManyConnections } from '../errors.js'
import { inScope } from '../lib/access-policy.js'
import { hashApiKey } from '../lib/api-keys.js'
import { presentedKey } from '../plugins/auth.js'

interface Client {
  socket: WebSocket
  /** The project whose events it receives; null: every project it may see. */
  project: string | null
  /** What its credential confines it to (null: every project). */
  scope: string | null
  /** The hash of the project key it connected with, re-checked at each heartbeat (revocation ends the stream). */
  keyHash: string | null
  alive: boolean
  /** Frames received in the current one-second window, and when that window began. */
  frames: number
  windowStart: number
}

/** Close codes: 1008 policy violation (flooding, revoked key), 1013 try again later (connection cap). */
const POLICY_VIOLATION = 1008
const TRY_AGAIN_LATER = 1013
/** A client sending more than this many times its allowance within one second is disconnected. */
const FLOOD_FACTOR = 10

const checkClientMessage = TypeCompiler.Compile(ClientMessageSchema)
const MAX_CLIENT_FRAME_BYTES = 64 * 1024

const frame = (type: ServerMessage['type'], data: unknown): string =>
  JSON.stringify({ type, data, timestamp: new Date().toISOString() })

function parseClientMessage(raw: string): ClientMessage | string {
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    return 'frame is not valid JSON'
  }
  if (checkClientMessage.Check(value)) return value
  const type = (value as { type?: unknown } | null)?.type
  if (type === 'subscribe') return 'subscribe needs project_id: a non-empty string, or null for every project'
  // The client's value is not echoed: a frame may carry anything, a credential included.
  return 'unknown message type: expected {"type":"ping"} or {"type":"subscribe","project_id":…}'
}

const ws: FastifyPluginAsync = async (app) => {
  const clients = new Set<Client>()
  const maxBuffer = app.config.wsMaxBufferBytes
  const { wsMaxConnections: maxConnections, wsMaxFramesPerSecond: maxFrames } = app.config

  const drop = (client: Client) => {
    if (clients.delete(client)) client.socket.terminate()
  }

  const deliver = (client: Client, text: string) => {
    if (client.socket.readyState !== client.socket.OPEN || client.socket.bufferedAmount > maxBuffer) {
      drop(client)
      return
    }
    client.socket.send(text, (err) => {
      if (err) drop(client)
    })
  }

  const unsubscribe = app.hub.subscribe((traces: readonly Trace[]) => {
    for (const trace of traces) {
      // Serialized once per trace, whatever the number of sockets.
      const text = frame('trace.created', trace)
      for (const client of clients) {
        if (client.project === null || client.project === trace.project_id) deliver(client, text)
      }
    }
  })

  /** Ends the streams of keys revoked since they connected: each distinct key is looked up once. */
  async function dropRevoked() {
    const hashes = new Set<string>()
    for (const client of clients) if (client.keyHash !== null) hashes.add(client.keyHash)
    for (const hash of hashes) {
      let live: boolean
      try {
        live = (await app.store.findApiKey(hash)) !== null
      } catch {
        continue // the store cannot answer now: the next heartbeat asks again
      }
      if (live) continue
      for (const client of clients) {
        if (client.keyHash === hash && clients.delete(client))
          client.socket.close(POLICY_VIOLATION, 'credential revoked')
      }
    }
  }

  const heartbeat = setInterval(() => {
    for (const client of clients) {
      if (!client.alive) {
        drop(client)
        continue
      }
      client.alive = false
      client.socket.ping()
    }
    void dropRevoked()
  }, app.config.wsHeartbeatMs)
  heartbeat.unref()

  app.addHook('onClose', async () => {
    clearInterval(heartbeat)
    unsubscribe()
    for (const client of clients) client.socket.close(1001, 'server shutting down')
    clients.clear()
  })

  // WS /ws
  app.get(
    '/ws',
    {
      websocket: true,
      config: { access: 'read', credentialInQuery: true },
      // Refused before the upgrade when full; the handler checks again, as upgrades in flight may have filled it.
      preHandler: async (_request, reply) => {
        if (clients.size >= maxConnections) {
          reply.header('retry-after', '5')
          throw new TooManyConnections(maxConnections)
        }
      },
      schema: {
        tags: ['traces'],
        summary: 'Live stream of stored traces (WebSocket)',
        description:
          'Server messages are `{ type, data, timestamp }`: `connection.established` on connect, `trace.created` per ' +
          'stored trace, `pong`, `subscribed`, `error`. Send `{"type":"ping"}` or `{"type":"subscribe","project_id":"p"}`. ' +
          'In protected mode the credential may come as `?token=`; a project key streams only its project.',
      },
    },
    (socket, request) => {
      if (clients.size >= maxConnections) {
        socket.close(TRY_AGAIN_LATER, 'too many connections')
        return
      }
      const secret = request.apiKey ? presentedKey(request, true) : null
      const client: Client = {
        socket,
        project: request.scope,
        scope: request.scope,
        keyHash: secret === null ? null : hashApiKey(secret),
        alive: true,
        frames: 0,
        windowStart: Date.now(),
      }
      clients.add(client)
      socket.on('pong', () => {
        client.alive = true
      })
      socket.on('close', () => clients.delete(client))
      socket.on('error', () => drop(client))
      socket.on('message', (data, isBinary) => {
        client.alive = true
        const now = Date.now()
        if (now - client.windowStart >= 1000) {
          client.windowStart = now
          client.frames = 0
        }
        client.frames++
        if (client.frames > maxFrames) {
          if (client.frames === maxFrames + 1) {
            deliver(client, frame('error', { message: `at most ${maxFrames} frames per second: frames are ignored` }))
          } else if (client.frames > maxFrames * FLOOD_FACTOR && clients.delete(client)) {
            socket.close(POLICY_VIOLATION, 'too many frames')
          }
          return
        }
        const raw = isBinary ? null : data.toString()
        if (raw === null || raw.length > MAX_CLIENT_FRAME_BYTES) {
          deliver(client, frame('error', { message: 'frames must be JSON text of at most 64 KiB' }))
          return
        }
        const message = parseClientMessage(raw)
        if (typeof message === 'string') {
          deliver(client, frame('error', { message }))
        } else if (message.type === 'ping') {
          deliver(client, frame('pong', {}))
        } else if (message.project_id !== null && !inScope(client.scope, message.project_id)) {
          deliver(
            client,
            frame('error', { message: `this credential may only subscribe to project '${client.scope}'` }),
          )
        } else {
          client.project = message.project_id ?? client.scope
          deliver(client, frame('subscribed', { project_id: client.project }))
        }
      })
      deliver(
        client,
        frame('connection.established', { connection_id: randomUUID(), server_time: new Date().toISOString() }),
      )
    },
  )
}

export default ws
