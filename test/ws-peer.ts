// A WebSocket test client for /ws over a real socket: every message it received, checked against the contract, read
// in order with time limits; plus starting a listening app and reaching the server's end of a connection.
import type { AddressInfo, Socket } from 'node:net'
import type { Test } from 'tap'
import WebSocket from 'ws'
import { ServerMessageSchema } from '../schemas/index.js'
import type { LoupeApp } from '../src/app.js'
import type { Config } from '../src/config.js'
import { buildTestApp, schemaErrors } from './helper.js'

export const UTC_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
export const WAIT_MS = 3000

export interface Message {
  type: string
  data: Record<string, unknown>
  timestamp: string
}

/** Rejects after `ms` so a missing message fails the test instead of hanging it. */
export function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls until `done()`, failing after `ms`. */
export async function waitUntil(what: string, done: () => boolean, ms = WAIT_MS): Promise<void> {
  const deadline = Date.now() + ms
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await sleep(10)
  }
}

/** A client: every message it received, in order, and a cursor for reading them as they come. */
export class Peer {
  readonly messages: Message[] = []
  /** Frames that were not JSON or not a ServerMessage. */
  readonly problems: string[] = []
  pings = 0
  private cursor = 0
  private wake: (() => void) | null = null
  readonly closed: Promise<number>

  constructor(readonly ws: WebSocket) {
    ws.on('error', () => {})
    ws.on('ping', () => {
      this.pings++
    })
    ws.on('message', (raw, isBinary) => {
      try {
        const message = JSON.parse(raw.toString()) as Message
        if (isBinary) this.problems.push('a binary frame')
        const errors = schemaErrors(ServerMessageSchema, message)
        if (errors.length > 0) this.problems.push(`${raw.toString().slice(0, 200)}: ${errors.join('; ')}`)
        if (!UTC_ISO.test(message.timestamp)) this.problems.push(`timestamp ${message.timestamp}`)
        this.messages.push(message)
      } catch {
        this.problems.push(`not JSON: ${raw.toString().slice(0, 200)}`)
      }
      this.wake?.()
    })
    this.closed = new Promise((resolve) => ws.on('close', (code) => resolve(code)))
  }

  send(value: unknown) {
    this.ws.send(typeof value === 'string' || Buffer.isBuffer(value) ? value : JSON.stringify(value))
  }

  /** The first unread message that satisfies `accept`; every message before it is read too. */
  next(what: string, accept: (m: Message) => boolean = () => true, ms = WAIT_MS): Promise<Message> {
    const scan = (): Message | undefined => {
      while (this.cursor < this.messages.length) {
        const m = this.messages[this.cursor++]!
        if (accept(m)) return m
      }
      return undefined
    }
    return within(
      ms,
      what,
      new Promise<Message>((resolve) => {
        const found = scan()
        if (found) return resolve(found)
        this.wake = () => {
          const m = scan()
          if (m) {
            this.wake = null
            resolve(m)
          }
        }
      }),
    )
  }

  /**
   * Sends a ping and returns every message that arrived before its pong. The server queues a stored trace for every
   * client before the ingest request is answered, and hands a client its replies after what was queued before them,
   * so everything caused before this call is in it.
   */
  async sync(): Promise<Message[]> {
    const from = this.cursor
    this.send({ type: 'ping' })
    await this.next('pong', (m) => m.type === 'pong')
    return this.messages.slice(from, this.cursor - 1)
  }

  /** Events since the last read, after a sync. */
  async events(): Promise<Record<string, unknown>[]> {
    const before = await this.sync()
    return before.filter((m) => m.type === 'trace.created').map((m) => m.data)
  }

  get socket(): Socket {
    return (this.ws as unknown as { _socket: Socket })._socket
  }
}

export async function startServer(t: Test, config: Partial<Config> = {}): Promise<{ app: LoupeApp; port: number }> {
  const app = await buildTestApp(t, { config })
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, port: (app.server.address() as AddressInfo).port }
}

export async function connect(t: Test, port: number, options: WebSocket.ClientOptions = {}, query = ''): Promise<Peer> {
  const peer = new Peer(new WebSocket(`ws://127.0.0.1:${port}/ws${query}`, options))
  t.teardown(() => peer.ws.terminate())
  const first = await peer.next('connection.established')
  t.equal(first.type, 'connection.established', 'the first message is connection.established')
  return peer
}

/** The server's end of a peer's connection (white-box: to break it in ways a real network does). */
export function serverSide(app: LoupeApp, peer: Peer): WebSocket {
  for (const socket of app.websocketServer.clients) {
    const raw = (socket as unknown as { _socket: Socket })._socket
    if (raw.remotePort === peer.socket.localPort) return socket
  }
  throw new Error('no server socket for this peer')
}

/** The TCP socket under a server WebSocket, which the fan-out writes whole frames to. */
export const rawOf = (socket: WebSocket): Socket => (socket as unknown as { _socket: Socket })._socket

/** Counts what the server does to one of its sockets: frames sent (through ws or written whole), and terminations. */
export function spyOn(socket: WebSocket) {
  const calls = { send: 0, terminate: 0 }
  const send = socket.send.bind(socket)
  const terminate = socket.terminate.bind(socket)
  const raw = rawOf(socket)
  const write = raw.write.bind(raw) as (...args: unknown[]) => boolean
  raw.write = ((...args: unknown[]) => {
    calls.send++
    return write(...args)
  }) as Socket['write']
  socket.send = ((...args: Parameters<WebSocket['send']>) => {
    calls.send++
    return send(...args)
  }) as WebSocket['send']
  socket.terminate = () => {
    calls.terminate++
    terminate()
  }
  return calls
}
