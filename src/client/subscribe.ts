// The live stream: a WebSocket to /ws that hands each stored trace to a callback and reconnects by itself, with
// backoff, until it is closed. Uses the global WebSocket where the runtime has one (Node 22+), else the `ws` package.
import type { ServerMessage, Trace } from '../../schemas/index.js'
import { backoffDelay } from './retry.js'

/** The part of the WebSocket API used here; both the global WebSocket and the `ws` package have it. */
interface SocketLike {
  send(data: string): void
  close(code?: number, reason?: string): void
  addEventListener(type: 'open' | 'close' | 'error', listener: (event: unknown) => void): void
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void
}
type SocketConstructor = new (url: string) => SocketLike

export type SubscriptionStatus =
  | { state: 'open'; url: string }
  | { state: 'reconnecting'; url: string; attempt: number; delayMs: number; reason: string }
  | { state: 'closed'; url: string }

export interface SubscribeOptions {
  /** Only traces of this project (the server filters). */
  projectId?: string
  /** Every server message, not only traces (`connection.established`, `subscribed`, `error`, …). */
  onMessage?: (message: ServerMessage) => void
  /** Connection changes: open, reconnecting (with the wait), closed. */
  onStatus?: (status: SubscriptionStatus) => void
  /** Reconnect backoff (default 250 ms doubling up to 5 s). */
  baseDelayMs?: number
  maxDelayMs?: number
}

export interface Subscription {
  /** Resolves when the first connection is open (and, with `projectId`, the server has confirmed the filter). */
  readonly opened: Promise<void>
  /** Stops the stream and any reconnect. */
  close(): void
}

async function socketConstructor(): Promise<SocketConstructor> {
  const global = (globalThis as { WebSocket?: SocketConstructor }).WebSocket
  if (global) return global
  try {
    const mod = (await import('ws')) as unknown as { WebSocket: SocketConstructor }
    return mod.WebSocket
  } catch {
    throw new Error('subscribe() needs a WebSocket: use Node.js 22+, or `npm install ws` on Node.js 20')
  }
}

async function messageText(data: unknown): Promise<string> {
  if (typeof data === 'string') return data
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return Buffer.from(data as ArrayBuffer).toString()
  if (data instanceof Blob) return data.text()
  return String(data)
}

export function openSubscription(
  url: string,
  onTrace: (trace: Trace) => void,
  options: SubscribeOptions,
  warn: (message: string) => void,
): Subscription {
  const { projectId, onMessage, onStatus, baseDelayMs = 250, maxDelayMs = 5000 } = options
  // What status reports show: never the credential.
  const shown = url.replace(/([?&]token=)[^&]*/, '$1***')
  let closed = false
  let socket: SocketLike | undefined
  let timer: NodeJS.Timeout | undefined
  let attempt = 0
  let markOpened: () => void = () => {}
  const opened = new Promise<void>((resolve) => {
    markOpened = resolve
  })

  const safely = (what: string, fn: () => void) => {
    try {
      fn()
    } catch (err) {
      warn(`the ${what} callback threw: ${(err as Error)?.message ?? String(err)}`)
    }
  }

  const reconnect = (reason: string) => {
    if (closed) return
    attempt++
    const delayMs = Math.round(backoffDelay(attempt, baseDelayMs, maxDelayMs))
    if (onStatus) safely('onStatus', () => onStatus({ state: 'reconnecting', url: shown, attempt, delayMs, reason }))
    timer = setTimeout(connect, delayMs)
  }

  async function connect() {
    timer = undefined
    if (closed) return
    let Socket: SocketConstructor
    try {
      Socket = await socketConstructor()
    } catch (err) {
      warn((err as Error).message)
      return
    }
    if (closed) return
    let reason = 'connection closed'
    const ws = new Socket(url)
    socket = ws
    ws.addEventListener('open', () => {
      attempt = 0
      if (projectId) ws.send(JSON.stringify({ type: 'subscribe', project_id: projectId }))
      if (onStatus) safely('onStatus', () => onStatus({ state: 'open', url: shown }))
      if (!projectId) markOpened()
    })
    ws.addEventListener('message', (event) => {
      void messageText(event.data).then((text) => {
        let message: ServerMessage
        try {
          message = JSON.parse(text) as ServerMessage
        } catch {
          return
        }
        // With a project filter, the stream is live once the server confirms it.
        if (message.type === 'subscribed') markOpened()
        if (onMessage) safely('onMessage', () => onMessage(message))
        if (message.type === 'trace.created') safely('subscribe', () => onTrace(message.data))
      })
    })
    // A socket is lost once: at its close, or at its error, since some runtimes (Node.js 22's WebSocket) end a
    // connection that could not be made with an error and no close.
    let lost = false
    const lose = () => {
      if (lost) return
      lost = true
      if (socket === ws) socket = undefined
      reconnect(reason)
    }
    ws.addEventListener('error', (event) => {
      const error = (event as { error?: { message?: string; code?: string }; message?: string }) ?? {}
      reason = error.error?.code ?? error.error?.message ?? error.message ?? 'connection error'
      lose()
      // Never two sockets: one that errs is given up, whatever state it is left in.
      try {
        ws.close()
      } catch {}
    })
    ws.addEventListener('close', lose)
  }

  void connect()
  return {
    opened,
    close() {
      if (closed) return
      closed = true
      clearTimeout(timer)
      socket?.close(1000, 'closed by the client')
      socket = undefined
      if (onStatus) safely('onStatus', () => onStatus({ state: 'closed', url: shown }))
    },
  }
}
