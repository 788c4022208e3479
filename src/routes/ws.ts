// WS /ws: the live stream. Each stored trace goes to every connected client (or those subscribed to its project);
// a peer that has gone away, fails a send or lets its unsent buffer pass the limit is dropped during the broadcast,
// so one slow reader never holds up the rest.
import { randomUUID } from 'node:crypto'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import type { FastifyPluginAsync } from 'fastify'
import type { WebSocket } from 'ws'
import { type ClientMessage, ClientMessageSchema, type ServerMessage, type Trace } from '../../schemas/index.js'

interface Client {
  socket: WebSocket
  project: string | null
  alive: boolean
}

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
  return `unknown message type ${JSON.stringify(type ?? null)}: expected "ping" or "subscribe"`
}

const ws: FastifyPluginAsync = async (app) => {
  const clients = new Set<Client>()
  const maxBuffer = app.config.wsMaxBufferBytes

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

  const heartbeat = setInterval(() => {
    for (const client of clients) {
      if (!client.alive) {
        drop(client)
        continue
      }
      client.alive = false
      client.socket.ping()
    }
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
      schema: {
        tags: ['traces'],
        summary: 'Live stream of stored traces (WebSocket)',
        description:
          'Server messages are `{ type, data, timestamp }`: `connection.established` on connect, `trace.created` per ' +
          'stored trace, `pong`, `subscribed`, `error`. Send `{"type":"ping"}` or `{"type":"subscribe","project_id":"p"}`.',
      },
    },
    (socket, _request) => {
      const client: Client = { socket, project: null, alive: true }
      clients.add(client)
      socket.on('pong', () => {
        client.alive = true
      })
      socket.on('close', () => clients.delete(client))
      socket.on('error', () => drop(client))
      socket.on('message', (data, isBinary) => {
        client.alive = true
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
        } else {
          client.project = message.project_id
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
