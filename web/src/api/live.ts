// The live stream: one WebSocket to /ws for the whole app (with the session's credential as ?token=), reconnecting
// with backoff. Views subscribe to stored and deleted traces; after a reconnect they are told, since what happened
// while the socket was down is not replayed.
import { createContext, useContext, useEffect, useRef, useState, useSyncExternalStore } from 'react'
import type { ServerMessage, Trace } from '../../../schemas/index.js'
import { credential } from './client.js'
import { throttle } from './throttle.js'

export type LiveState = 'connecting' | 'open' | 'closed'

type TraceListener = (trace: Trace) => void
/** A deleted trace, as `trace.deleted` names it. */
export type DeletedTrace = Extract<ServerMessage, { type: 'trace.deleted' }>['data']
type DeletedListener = (deleted: DeletedTrace) => void
/** A score stored or deleted (`score.created`, `score.deleted`). */
export type ScoreEvent = Extract<ServerMessage, { type: 'score.created' | 'score.deleted' }>
type ScoreListener = (event: ScoreEvent) => void
type Listener = () => void

const MAX_BACKOFF_MS = 10_000

/** Adds `listener` to `listeners`; what it returns takes it out again. */
function listen<L>(listeners: Set<L>, listener: L): () => void {
  listeners.add(listener)
  return () => {
    listeners.delete(listener)
  }
}

export class LiveStream {
  #socket: WebSocket | null = null
  #traces = new Set<TraceListener>()
  #deleted = new Set<DeletedListener>()
  #scores = new Set<ScoreListener>()
  #reconnects = new Set<Listener>()
  #states = new Set<Listener>()
  #state: LiveState = 'closed'
  #attempt = 0
  #timer: ReturnType<typeof setTimeout> | null = null
  #opened = false
  #stopped = true

  start() {
    this.#stopped = false
    this.#connect()
  }

  /** Starts the stream unless it runs: called once the server has accepted a request, so the credential is good. */
  ensureStarted() {
    if (this.#stopped) this.start()
  }

  stop() {
    this.#stopped = true
    if (this.#timer) clearTimeout(this.#timer)
    this.#socket?.close()
    this.#socket = null
    this.#setState('closed')
  }

  get state() {
    return this.#state
  }

  onTrace(listener: TraceListener) {
    return listen(this.#traces, listener)
  }

  onDeleted(listener: DeletedListener) {
    return listen(this.#deleted, listener)
  }

  onScore(listener: ScoreListener) {
    return listen(this.#scores, listener)
  }

  onReconnect(listener: Listener) {
    return listen(this.#reconnects, listener)
  }

  onState(listener: Listener) {
    return listen(this.#states, listener)
  }

  #setState(state: LiveState) {
    if (state === this.#state) return
    this.#state = state
    for (const listener of this.#states) listener()
  }

  #connect() {
    const url = new URL('/ws', window.location.href)
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
    const token = credential.get()
    if (token) url.searchParams.set('token', token)
    this.#setState('connecting')
    const socket = new WebSocket(url)
    this.#socket = socket
    socket.onopen = () => {
      this.#attempt = 0
      this.#setState('open')
      if (this.#opened) for (const listener of this.#reconnects) listener()
      this.#opened = true
    }
    socket.onmessage = (event) => {
      let message: ServerMessage
      try {
        message = JSON.parse(String(event.data)) as ServerMessage
      } catch {
        return
      }
      if (message.type === 'trace.created') for (const listener of this.#traces) listener(message.data)
      else if (message.type === 'trace.deleted') for (const listener of this.#deleted) listener(message.data)
      else if (message.type === 'score.created' || message.type === 'score.deleted') {
        for (const listener of this.#scores) listener(message)
      }
    }
    socket.onclose = () => {
      if (this.#socket !== socket) return
      this.#socket = null
      this.#setState('closed')
      if (this.#stopped) return
      const delay = Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.#attempt++) * (0.5 + Math.random() / 2)
      this.#timer = setTimeout(() => this.#connect(), delay)
    }
  }
}

export const LiveContext = createContext<LiveStream | null>(null)

function useStream(): LiveStream {
  const stream = useContext(LiveContext)
  if (!stream) throw new Error('useLive… outside <LiveContext.Provider>')
  return stream
}

/** Calls `handler` with every stored trace, and `onDeleted` with every deleted one, while the component is mounted. */
export function useLiveTraces(handler: TraceListener, onReconnect?: Listener, onDeleted?: DeletedListener) {
  const stream = useStream()
  const latest = useRef({ handler, onReconnect, onDeleted })
  latest.current = { handler, onReconnect, onDeleted }
  useEffect(() => {
    const offTrace = stream.onTrace((trace) => latest.current.handler(trace))
    const offReconnect = stream.onReconnect(() => latest.current.onReconnect?.())
    const offDeleted = stream.onDeleted((deleted) => latest.current.onDeleted?.(deleted))
    return () => {
      offTrace()
      offReconnect()
      offDeleted()
    }
  }, [stream])
}

/** Calls `handler` with every score stored or deleted while the component is mounted. */
export function useLiveScores(handler: ScoreListener) {
  const stream = useStream()
  const latest = useRef(handler)
  latest.current = handler
  useEffect(() => stream.onScore((event) => latest.current(event)), [stream])
}

export function useLiveState(): LiveState {
  const stream = useStream()
  return useSyncExternalStore(
    (listener) => stream.onState(listener),
    () => stream.state,
  )
}

/**
 * Runs `refresh` as traces that `accept` lets through arrive, traces of a project `acceptDeleted` lets through are
 * deleted or scores `acceptScore` lets through are given or deleted, at most once per `intervalMs` (api/throttle.ts), and after a reconnect: a view of aggregates stays
 * current under any ingest or deletion rate with a bounded number of requests.
 */
export function useThrottledOnTrace(
  refresh: () => void,
  intervalMs: number,
  accept: (trace: Trace) => boolean = () => true,
  acceptDeleted: (deleted: DeletedTrace) => boolean = () => true,
  acceptScore: (event: ScoreEvent) => boolean = () => false,
) {
  const latest = useRef({ refresh, accept, acceptDeleted, acceptScore })
  latest.current = { refresh, accept, acceptDeleted, acceptScore }
  const [throttled] = useState(() => throttle(() => latest.current.refresh(), intervalMs))
  useEffect(() => () => throttled.cancel(), [throttled])
  useLiveTraces(
    (trace) => {
      if (latest.current.accept(trace)) throttled.call()
    },
    () => throttled.call(),
    (deleted) => {
      if (latest.current.acceptDeleted(deleted)) throttled.call()
    },
  )
  useLiveScores((event) => {
    if (latest.current.acceptScore(event)) throttled.call()
  })
}
