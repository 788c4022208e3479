// The live stream's connections: who is connected and to which project, what each client may send (ping, subscribe,
// at a bounded rate), the heartbeat that finds dead peers and revoked keys, and the fan-out of stored traces.
//
// Fan-out never runs on the request path. Publishing a trace only serializes and frames it once, into a log of
// ready WebSocket frames; a pump then hands the log to the sockets in slices of clients, yielding to the event loop
// after each slice (and after a few milliseconds at most), so an ingest request is answered once its traces are
// committed, not once they are delivered, and no other request waits on a broadcast. Each client has a cursor into
// the log; in each round it gets the frames it has not had yet (those of its project), up to a batch, as one write —
// and clients at the same cursor share one buffer, so a burst to ten thousand sockets copies nothing per socket.
//
// Flow control, per peer: a socket is handed more only while less than half of WS_MAX_BUFFER_BYTES waits in it, so a
// peer that reads slower than the stream simply falls behind in the log. It is dropped when it is the bottleneck —
// its socket full and more than 16 × WS_MAX_BUFFER_BYTES of the stream waiting for it — or when more than
// WS_MAX_BUFFER_BYTES wait in its socket; never because others are fast or a burst is large.
import { randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import ws, { type WebSocket } from 'ws'
import {
  type ClientMessage,
  ClientMessageSchema,
  type DeletedTrace,
  type Score,
  type ServerMessage,
  type Trace,
} from '../../schemas/index.js'
import { inScope } from '../lib/access-policy.js'
import { illFormedMessage, illFormedText } from '../lib/well-formed.js'
import type { ScoreEventType } from './hub.js'

export interface SocketHubOptions {
  /** A peer with more unsent bytes than this is dropped. */
  maxBufferBytes: number
  heartbeatMs: number
  /** Frames a client may send per second (more are ignored; far more close the socket). */
  maxFramesPerSecond: number
  /** Whether the project key with this hash is still live (revoked keys' streams end at the next heartbeat). */
  isKeyLive: (keyHash: string) => Promise<boolean>
  now?: () => number
}

export interface Connection {
  /** The one project the credential confines the client to; null: every project. */
  scope: string | null
  /** The hash of the project key it connected with; null for open mode or the admin token. */
  keyHash: string | null
}

export interface SocketHub {
  /** Takes a freshly upgraded socket: greets it and streams to it from now on. */
  accept(socket: WebSocket, connection: Connection): void
  /** Queues stored traces for every client that may see them; returns at once. */
  publish(traces: readonly Trace[]): void
  /** Sends `trace.deleted` for each to every client that may see its project. */
  publishDeleted(deleted: readonly DeletedTrace[]): void
  /** Sends `score.created` or `score.deleted` for each to every client that may see its project. */
  publishScores(type: ScoreEventType, scores: readonly Score[]): void
  readonly size: number
  /** Connections held, and peers dropped so far (dead, not reading, revoked, flooding). */
  stats(): { connections: number; dropped: number; queuedFrames: number; queuedBytes: number }
  /** Resolves once every queued frame has been handed to every socket (tests, benchmarks). */
  flushed(): Promise<void>
  close(): void
}

/** Close codes: 1008 policy violation (flooding, revoked key), 1001 going away (shutdown). */
const POLICY_VIOLATION = 1008
const GOING_AWAY = 1001
/** A client sending more than this many times its allowance within one second is disconnected. */
const FLOOD_FACTOR = 10
const MAX_CLIENT_FRAME_BYTES = 64 * 1024
/** Clients served per turn of the event loop, at most; and at most this long a turn, so no request waits longer. */
const SLICE = 256
const SLICE_MS = 5
/** At most this many bytes of frames to one client per round (and at most a quarter of its buffer limit). */
const MAX_BATCH_BYTES = 256 * 1024
/** How far (× WS_MAX_BUFFER_BYTES) a peer whose socket is full may fall behind the stream before it is dropped. */
const LAG_FACTOR = 16
/** When every peer still behind has a full socket, look again this much later rather than spin. */
const IDLE_RETRY_MS = 10
/**
 * The log of frames not yet handed to every client is bounded: past this, the clients furthest behind are dropped.
 * Only a burst far larger than any peer's lag allowance gets here.
 */
const LOG_LIMIT_BYTES = 256 * 1024 * 1024

const checkClientMessage = TypeCompiler.Compile(ClientMessageSchema)

interface FrameOptions {
  fin: boolean
  opcode: number
  mask: boolean
  readOnly: boolean
  rsv1: boolean
}
/** ws's own frame builder (part of its runtime API; its type package does not declare it). */
const { Sender } = ws as unknown as { Sender: { frame(data: Buffer, options: FrameOptions): Buffer[] } }

/** A server message as JSON text. */
const message = (type: ServerMessage['type'], data: unknown): string =>
  JSON.stringify({ type, data, timestamp: new Date().toISOString() })

/** A text message as one complete WebSocket frame (servers do not mask), built once for every socket. */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text)
  return Buffer.concat(Sender.frame(payload, { fin: true, opcode: 1, mask: false, readOnly: false, rsv1: false }))
}

function parseClientMessage(raw: string): ClientMessage | string {
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    return 'frame is not valid JSON'
  }
  if (checkClientMessage.Check(value)) {
    const found = illFormedText(value)
    return found ? `${found.path.slice(1) || 'message'} ${illFormedMessage(found)}` : value
  }
  const type = (value as { type?: unknown } | null)?.type
  if (type === 'subscribe') return 'subscribe needs project_id: a non-empty string, or null for every project'
  // The client's value is not echoed: a frame may carry anything, a credential included.
  return 'unknown message type: expected {"type":"ping"} or {"type":"subscribe","project_id":…}'
}

interface Client {
  socket: WebSocket
  /** The raw TCP socket under the WebSocket: the fan-out writes whole frames to it. */
  raw: Socket
  /** The project whose events it receives; null: every project it may see. */
  project: string | null
  scope: string | null
  keyHash: string | null
  alive: boolean
  /** Sequence number of the next log entry it has not been handed. */
  next: number
  /** Replies to it (pong, subscribed, error) that wait for the log entries before them, in order. */
  outbox: Buffer[]
  frames: number
  windowStart: number
}

interface Entry {
  project: string
  frame: Buffer
  /** Bytes of the stream up to and including this frame (since the hub started): how far behind a cursor is. */
  end: number
}

export function createSocketHub(options: SocketHubOptions): SocketHub {
  const now = options.now ?? Date.now
  const highWater = options.maxBufferBytes / 2
  const batchBytes = Math.max(1, Math.min(MAX_BATCH_BYTES, Math.floor(options.maxBufferBytes / 4)))
  const lagLimit = LAG_FACTOR * options.maxBufferBytes
  const clients = new Set<Client>()
  /** Clients with log entries not yet handed to them, in the order they will be served. */
  const behind = new Set<Client>()
  /** The log: entries[i] has sequence number base + i. */
  let entries: Entry[] = []
  let base = 0
  let logBytes = 0
  /** Bytes of the stream published so far. */
  let streamBytes = 0
  let pumping = false
  let dropped = 0
  /**
   * Batches already built, by (cursor, project): every client at the same point of the log gets the same buffer, in
   * whichever turn it is served. Forgotten as the log is trimmed past them.
   */
  const batches = new Map<string, { cursor: number; buffer: Buffer | null; next: number }>()
  let waiters: (() => void)[] = []
  const head = () => base + entries.length

  const drop = (client: Client) => {
    behind.delete(client)
    if (clients.delete(client)) {
      dropped++
      client.socket.terminate()
    }
  }

  /**
   * Hands frames to a client's socket in one write; a failed write drops it. A write the kernel takes means the peer
   * is reading: that counts as alive for the heartbeat, whose ping may wait behind a long burst in a busy peer.
   */
  const write = (client: Client, buffer: Buffer) => {
    client.raw.write(buffer, (err) => {
      if (err) drop(client)
      else client.alive = true
    })
  }

  /**
   * Sends one reply (greeting, pong, subscribed, error) to one client, after every event published before it: a
   * client that pings once its ingest request is answered gets the pong after that request's traces.
   */
  const sendTo = (client: Client, text: string) => {
    if (client.socket.readyState !== client.socket.OPEN || client.socket.bufferedAmount > options.maxBufferBytes) {
      drop(client)
      return
    }
    const frame = textFrame(text)
    if (client.next < head()) {
      client.outbox.push(frame)
      behind.add(client)
      schedule()
    } else write(client, frame)
  }

  /** The frames from `from` on that a client of `project` sees, at most a batch (at least one), and where to go on. */
  function batchFrom(from: number, project: string | null): { frames: Buffer[]; bytes: number; next: number } {
    const frames: Buffer[] = []
    let bytes = 0
    let seq = from
    for (; seq < head() && bytes < batchBytes; seq++) {
      const entry = entries[seq - base]!
      if (project !== null && entry.project !== project) continue
      frames.push(entry.frame)
      bytes += entry.frame.length
    }
    return { frames, bytes, next: seq }
  }

  /** Forgets the entries every client has been handed. */
  function trim() {
    let lowest = head()
    for (const client of behind) lowest = Math.min(lowest, client.next)
    const gone = lowest - base
    if (gone <= 0) return
    for (let i = 0; i < gone; i++) logBytes -= entries[i]!.frame.length
    entries = entries.slice(gone)
    base = lowest
    for (const [key, batch] of batches) if (batch.cursor < base) batches.delete(key)
  }

  /** Bytes of the stream after a client's cursor (of every project: an upper bound for a client of one). */
  function lagOf(client: Client): number {
    if (client.next >= head()) return 0
    const first = entries[client.next - base]!
    return streamBytes - (first.end - first.frame.length)
  }

  /** One slice of clients: each gets its next batch as one write; then the event loop runs before the next slice. */
  function pump() {
    let served = 0
    let progress = false
    const started = performance.now()
    const slice = Math.min(SLICE, behind.size)
    for (const client of behind) {
      if (served++ >= slice || performance.now() - started > SLICE_MS) break
      behind.delete(client)
      const buffered = client.socket.bufferedAmount
      if (client.socket.readyState !== client.socket.OPEN || buffered > options.maxBufferBytes) {
        drop(client)
        progress = true
        continue
      }
      if (buffered >= highWater) {
        // Its socket is full: it reads slower than the stream. It waits, unless it is hopelessly behind.
        if (lagOf(client) > lagLimit) {
          drop(client)
          progress = true
        } else behind.add(client)
        continue
      }
      progress = true
      const key = `${client.next}\u0000${client.project ?? ''}`
      let batch = batches.get(key)
      if (!batch) {
        const { frames, bytes, next } = batchFrom(client.next, client.project)
        const buffer = frames.length === 0 ? null : frames.length === 1 ? frames[0]! : Buffer.concat(frames, bytes)
        batch = { cursor: client.next, buffer, next }
        batches.set(key, batch)
      }
      if (batch.buffer !== null) write(client, batch.buffer)
      client.next = batch.next
      // Still behind: to the end of the line, served again next round. Caught up: its replies follow.
      if (client.next < head()) behind.add(client)
      else if (client.outbox.length > 0) {
        write(client, client.outbox.length === 1 ? client.outbox[0]! : Buffer.concat(client.outbox))
        client.outbox = []
      }
    }
    trim()
    if (logBytes > LOG_LIMIT_BYTES) {
      // Only a client that stopped reading without filling its socket can be this far behind.
      const furthest = [...behind].sort((a, b) => a.next - b.next)
      while (logBytes > LOG_LIMIT_BYTES && furthest.length > 0) {
        drop(furthest.shift()!)
        trim()
      }
    }
    if (behind.size > 0) {
      if (progress) setImmediate(pump)
      else setTimeout(pump, IDLE_RETRY_MS)
      return
    }
    pumping = false
    const done = waiters
    waiters = []
    for (const resolve of done) resolve()
  }

  function schedule() {
    if (pumping || behind.size === 0) return
    pumping = true
    setImmediate(pump)
  }

  function onMessage(client: Client, data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) {
    client.alive = true
    const at = now()
    if (at - client.windowStart >= 1000) {
      client.windowStart = at
      client.frames = 0
    }
    client.frames++
    const max = options.maxFramesPerSecond
    if (client.frames > max) {
      if (client.frames === max + 1) {
        sendTo(client, message('error', { message: `at most ${max} frames per second: frames are ignored` }))
      } else if (client.frames > max * FLOOD_FACTOR && clients.delete(client)) {
        behind.delete(client)
        dropped++
        client.socket.close(POLICY_VIOLATION, 'too many frames')
      }
      return
    }
    const raw = isBinary ? null : data.toString()
    if (raw === null || raw.length > MAX_CLIENT_FRAME_BYTES) {
      sendTo(client, message('error', { message: 'frames must be JSON text of at most 64 KiB' }))
      return
    }
    const parsed = parseClientMessage(raw)
    if (typeof parsed === 'string') sendTo(client, message('error', { message: parsed }))
    else if (parsed.type === 'ping') sendTo(client, message('pong', {}))
    else if (parsed.project_id !== null && !inScope(client.scope, parsed.project_id)) {
      sendTo(client, message('error', { message: `this credential may only subscribe to project '${client.scope}'` }))
    } else {
      client.project = parsed.project_id ?? client.scope
      sendTo(client, message('subscribed', { project_id: client.project }))
    }
  }

  /** Ends the streams of keys revoked since they connected: each distinct key is looked up once. */
  async function dropRevoked() {
    const hashes = new Set<string>()
    for (const client of clients) if (client.keyHash !== null) hashes.add(client.keyHash)
    for (const hash of hashes) {
      let live: boolean
      try {
        live = await options.isKeyLive(hash)
      } catch {
        continue // the store cannot answer now: the next heartbeat asks again
      }
      if (live) continue
      for (const client of clients) {
        if (client.keyHash === hash && clients.delete(client)) {
          behind.delete(client)
          dropped++
          client.socket.close(POLICY_VIOLATION, 'credential revoked')
        }
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
  }, options.heartbeatMs)
  heartbeat.unref()

  /** Appends messages of the stream, each for the clients that may see its project, and starts handing them out. */
  function enqueue(items: readonly { project: string; text: string }[]) {
    if (clients.size === 0 || items.length === 0) return
    for (const item of items) {
      const frame = textFrame(item.text)
      streamBytes += frame.length
      entries.push({ project: item.project, frame, end: streamBytes })
      logBytes += frame.length
    }
    for (const client of clients) behind.add(client)
    schedule()
  }

  return {
    accept(socket, connection) {
      // The fan-out writes frames to the TCP socket under the WebSocket (ws keeps it as `_socket`): with
      // permessage-deflate off, as here, ws writes every frame of its own synchronously too, so frames never interleave.
      const raw = (socket as unknown as { _socket?: Socket })._socket
      if (!raw) {
        socket.terminate()
        return
      }
      const client: Client = {
        socket,
        raw,
        project: connection.scope,
        scope: connection.scope,
        keyHash: connection.keyHash,
        alive: true,
        next: head(),
        outbox: [],
        frames: 0,
        windowStart: now(),
      }
      clients.add(client)
      socket.on('pong', () => {
        client.alive = true
      })
      socket.on('close', () => {
        clients.delete(client)
        behind.delete(client)
      })
      socket.on('error', () => drop(client))
      socket.on('message', (data, isBinary) => onMessage(client, data, isBinary))
      sendTo(
        client,
        message('connection.established', { connection_id: randomUUID(), server_time: new Date().toISOString() }),
      )
    },

    publish(traces) {
      enqueue(traces.map((trace) => ({ project: trace.project_id, text: message('trace.created', trace) })))
    },

    publishDeleted(deleted) {
      enqueue(deleted.map((d) => ({ project: d.project_id, text: message('trace.deleted', d) })))
    },

    publishScores(type, scores) {
      enqueue(scores.map((score) => ({ project: score.project_id, text: message(type, score) })))
    },

    get size() {
      return clients.size
    },

    stats() {
      return { connections: clients.size, dropped, queuedFrames: entries.length, queuedBytes: logBytes }
    },

    flushed() {
      if (!pumping) return Promise.resolve()
      return new Promise((resolve) => waiters.push(resolve))
    },

    close() {
      clearInterval(heartbeat)
      for (const client of clients) client.socket.close(GOING_AWAY, 'server shutting down')
      clients.clear()
      behind.clear()
      batches.clear()
      entries = []
      logBytes = 0
      const done = waiters
      waiters = []
      for (const resolve of done) resolve()
    },
  }
}
