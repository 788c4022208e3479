// The SDK's delivery queue: serialized traces wait in memory (bounded, oldest dropped first) and go to
// POST /traces/batch in batches, one request at a time; a batch is retried whole, with exponential backoff and
// jitter, on a network error, 429 or 5xx (Retry-After honoured). Nothing here throws to its caller, and its timers
// are unref()ed: only a pending flush() keeps the process alive.

import { backoffDelay, describeNetworkError, parseRetryAfter } from './retry.js'

export interface SenderOptions {
  /** Absolute URL of POST /traces/batch. */
  endpoint: string
  headers: Record<string, string>
  /** A batch is sent as soon as this many traces wait. */
  batchSize: number
  /** A backlog (more than batchSize waiting: a burst, or an outage just over) goes in requests of up to this many. */
  maxBatchSize: number
  maxBatchBytes: number
  flushIntervalMs: number
  maxQueueSize: number
  maxQueueBytes: number
  requestTimeoutMs: number
  baseDelayMs: number
  maxDelayMs: number
  fetch: typeof fetch
  warn: (message: string) => void
}

interface Entry {
  seq: number
  /** When it was queued (epoch ms): a partial batch goes once its oldest trace has waited flushIntervalMs. */
  at: number
  id: string
  json: string
  bytes: number
}

/** Told once every trace queued up to `seq` is settled. */
interface Waiter {
  seq: number
  done: (settled: boolean) => void
}

type Outcome =
  | { kind: 'delivered'; rejected: { index: number; message: string }[] }
  | { kind: 'retry'; reason: string; retryAfterMs?: number; status?: number }
  | { kind: 'too-large' }
  | { kind: 'drop'; reason: string }

/** An answer of 500 (a server bug, not an outage) is retried this many times before its batch is given up. */
const MAX_SERVER_ERROR_ATTEMPTS = 5
/** Repeated warnings of one kind (drops, outages) are said at most this often. */
const WARN_EVERY_MS = 10_000
const ENVELOPE_BYTES = '{"traces":[]}'.length

export class Sender {
  readonly #o: SenderOptions
  #queue: Entry[] = []
  #queueBytes = 0
  #inflight: Entry[] = []
  #seq = 0
  #pumping = false
  #stopped = false
  #timer: NodeJS.Timeout | undefined
  #wake: (() => void) | undefined
  /** Consecutive failed attempts of the batch at the head of the queue. */
  #attempt = 0
  /** Lowered when the server answers 413, so that later batches fit its body limit. */
  #byteLimit: number
  #waiters = new Set<Waiter>()
  /** whenSettled()'s: told like the waiters, but they do not make a partial batch go early. */
  #watchers = new Set<Waiter>()
  #lastWarn = new Map<string, number>()
  #suppressed = new Map<string, number>()
  readonly stats = { queued: 0, delivered: 0, rejected: 0, dropped: 0, requests: 0, retries: 0 }

  constructor(options: SenderOptions) {
    this.#o = options
    this.#byteLimit = options.maxBatchBytes
  }

  /** Traces waiting in memory or in flight. */
  get pending(): number {
    return this.#queue.length + this.#inflight.length
  }

  /** Queues one serialized trace; sending happens later, off the caller's path. Its place in the queue (0: stopped). */
  enqueue(id: string, json: string): number {
    if (this.#stopped) return 0
    const entry: Entry = { seq: ++this.#seq, at: Date.now(), id, json, bytes: Buffer.byteLength(json) }
    this.#queue.push(entry)
    this.#queueBytes += entry.bytes
    this.stats.queued++
    this.#enforceCap()
    if (this.#queue.length >= this.#o.batchSize) this.#kick()
    else this.#arm()
    return entry.seq
  }

  /**
   * Resolves true once every trace queued up to `seq` is settled (delivered or given up) at its own pace — unlike
   * flush(), it hurries nothing; false if the sender stops first.
   */
  whenSettled(seq: number): Promise<boolean> {
    if (this.#settled(seq)) return Promise.resolve(true)
    if (this.#stopped) return Promise.resolve(false)
    return new Promise((resolve) => this.#watchers.add({ seq, done: resolve }))
  }

  /** Whether one of these traces is still queued or in flight. */
  holds(ids: ReadonlySet<string>): boolean {
    return this.#inflight.some((e) => ids.has(e.id)) || this.#queue.some((e) => ids.has(e.id))
  }

  /**
   * Resolves true once every trace queued before the call is delivered (or given up), false if `timeoutMs` passes
   * first. Cuts a backoff wait short. Its own timer is the one that keeps the process alive while it waits.
   */
  flush(timeoutMs: number): Promise<boolean> {
    const target = this.#seq
    if (this.#settled(target)) return Promise.resolve(true)
    return new Promise((resolve) => {
      const waiter = {
        seq: target,
        done: () => {
          clearTimeout(timer)
          resolve(true)
        },
      }
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter)
        resolve(false)
      }, timeoutMs)
      this.#waiters.add(waiter)
      this.#wake?.()
      this.#kick()
    })
  }

  /** Stops sending: timers cleared, nothing more accepted. What is still queued stays counted in `pending`. */
  stop(): void {
    this.#stopped = true
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#wake?.()
    for (const watcher of this.#watchers) watcher.done(this.#settled(watcher.seq))
    this.#watchers.clear()
  }

  #settled(seq: number): boolean {
    const oldest = Math.min(this.#inflight[0]?.seq ?? Infinity, this.#queue[0]?.seq ?? Infinity)
    return oldest > seq
  }

  #notify(): void {
    for (const set of [this.#waiters, this.#watchers]) {
      for (const waiter of set) {
        if (this.#settled(waiter.seq)) {
          set.delete(waiter)
          waiter.done(true)
        }
      }
    }
  }

  /** Past the cap (count or bytes), the oldest traces not in flight are dropped. */
  #enforceCap(): void {
    let dropped = 0
    while (
      this.#queue.length > 0 &&
      (this.pending > this.#o.maxQueueSize || this.#queueBytes > this.#o.maxQueueBytes)
    ) {
      const entry = this.#queue.shift()!
      this.#queueBytes -= entry.bytes
      dropped++
    }
    if (dropped === 0) return
    this.stats.dropped += dropped
    this.#warn(
      'overflow',
      `the queue is full (${this.#o.maxQueueSize} traces or ${this.#o.maxQueueBytes} bytes): dropped the oldest ${dropped}`,
      dropped,
    )
    this.#notify()
  }

  /** Sends the full batches (and, when a flush waits, everything) soon, off the current call stack. */
  #kick(): void {
    if (this.#pumping || this.#stopped) return
    setImmediate(() => void this.#pump(false))
  }

  /** Sends everything once the oldest queued trace has waited flushIntervalMs, unless something sends earlier. */
  #arm(): void {
    if (this.#pumping || this.#timer !== undefined || this.#stopped || this.#queue.length === 0) return
    const wait = Math.max(0, this.#queue[0]!.at + this.#o.flushIntervalMs - Date.now())
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      void this.#pump(true)
    }, wait)
    this.#timer.unref()
  }

  /** Sends batch after batch: full ones only, unless `drain` (interval due) or a flush is waiting. */
  async #pump(drain: boolean): Promise<void> {
    if (this.#pumping || this.#stopped) return
    this.#pumping = true
    clearTimeout(this.#timer)
    this.#timer = undefined
    try {
      while (this.#queue.length > 0 && !this.#stopped) {
        if (!drain && this.#waiters.size === 0 && this.#queue.length < this.#o.batchSize) break
        const batch = this.#take()
        const outcome = await this.#send(batch)
        this.#inflight = []
        // A batch that must go again goes again whatever its size.
        if (outcome.kind === 'retry' || outcome.kind === 'too-large') drain = true
        await this.#settle(batch, outcome)
        this.#notify()
      }
    } catch (err) {
      // A bug here must not become an unhandled rejection in the app: say it, keep the traces for the next try.
      this.#o.warn(`internal error while sending traces: ${(err as Error)?.stack ?? String(err)}`)
      this.#putBack(this.#inflight)
      this.#inflight = []
    } finally {
      this.#pumping = false
      if (this.#queue.length > 0) this.#arm()
    }
  }

  /** Moves the next batch (by count and bytes) from the queue to the in-flight set. */
  #take(): Entry[] {
    // One request at a time keeps delivery simple and ordered; a backlog is caught up in bigger requests instead.
    const limit = this.#queue.length > this.#o.batchSize ? this.#o.maxBatchSize : this.#o.batchSize
    let bytes = ENVELOPE_BYTES
    let n = 0
    while (n < this.#queue.length && n < limit) {
      const entry = this.#queue[n]!
      if (n > 0 && bytes + entry.bytes + 1 > this.#byteLimit) break
      bytes += entry.bytes + 1
      n++
    }
    const batch = this.#queue.splice(0, n)
    for (const entry of batch) this.#queueBytes -= entry.bytes
    this.#inflight = batch
    return batch
  }

  #putBack(batch: Entry[]): void {
    this.#queue.unshift(...batch)
    for (const entry of batch) this.#queueBytes += entry.bytes
  }

  async #settle(batch: Entry[], outcome: Outcome): Promise<void> {
    switch (outcome.kind) {
      case 'delivered': {
        if (this.#attempt > 0) this.#o.warn(`delivered again after ${this.#attempt} failed attempt(s)`)
        this.#attempt = 0
        this.stats.delivered += batch.length - outcome.rejected.length
        this.stats.rejected += outcome.rejected.length
        for (const { index, message } of outcome.rejected) {
          this.#o.warn(`the server rejected trace ${batch[index]?.id ?? `#${index}`}: ${message}`)
        }
        return
      }
      case 'drop':
        this.#attempt = 0
        this.stats.dropped += batch.length
        this.#o.warn(`dropped ${batch.length} trace(s): ${outcome.reason} (retrying would not help)`)
        return
      case 'too-large': {
        if (batch.length === 1) {
          this.stats.dropped++
          this.#o.warn(`dropped trace ${batch[0]!.id}: it is larger than the server accepts (413)`)
          return
        }
        // Smaller batches from now on; the same traces go again at once.
        const bytes = batch.reduce((sum, e) => sum + e.bytes + 1, ENVELOPE_BYTES)
        this.#byteLimit = Math.max(1024, Math.floor(bytes / 2))
        this.#putBack(batch)
        return
      }
      case 'retry': {
        this.#attempt++
        if (outcome.status === 500 && this.#attempt >= MAX_SERVER_ERROR_ATTEMPTS) {
          this.#attempt = 0
          this.stats.dropped += batch.length
          this.#o.warn(`dropped ${batch.length} trace(s): the server failed ${MAX_SERVER_ERROR_ATTEMPTS} times (500)`)
          return
        }
        this.stats.retries++
        this.#putBack(batch)
        this.#enforceCap()
        const backoff = backoffDelay(this.#attempt, this.#o.baseDelayMs, this.#o.maxDelayMs)
        const delay =
          outcome.retryAfterMs === undefined ? backoff : outcome.retryAfterMs + Math.random() * this.#o.baseDelayMs
        if (this.#attempt === 1) {
          this.#warn(
            'outage',
            `could not deliver ${batch.length} trace(s) to ${this.#o.endpoint}: ${outcome.reason}; retrying with backoff`,
          )
        }
        await this.#sleep(delay)
        return
      }
    }
  }

  /** An unref()ed wait that flush() and stop() can cut short. */
  #sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms)
      timer.unref()
      this.#wake = done
      function done() {
        clearTimeout(timer)
        resolve()
      }
    }).finally(() => {
      this.#wake = undefined
    })
  }

  async #send(batch: Entry[]): Promise<Outcome> {
    const body = `{"traces":[${batch.map((e) => e.json).join(',')}]}`
    this.stats.requests++
    let res: Response
    try {
      res = await this.#o.fetch(this.#o.endpoint, {
        method: 'POST',
        headers: this.#o.headers,
        body,
        signal: AbortSignal.timeout(this.#o.requestTimeoutMs),
      })
    } catch (err) {
      return { kind: 'retry', reason: describeNetworkError(err) }
    }
    let text = ''
    try {
      text = await res.text()
    } catch (err) {
      // The server may have stored the batch before the connection broke: a re-send is idempotent on trace_id.
      return { kind: 'retry', reason: describeNetworkError(err), status: res.status }
    }
    if (res.ok) return { kind: 'delivered', rejected: parseRejected(text) }
    const reason = `${res.status} ${serverMessage(text) ?? res.statusText}`
    if (res.status === 429 || res.status >= 500) {
      return {
        kind: 'retry',
        reason,
        status: res.status,
        retryAfterMs: parseRetryAfter(res.headers.get('retry-after')),
      }
    }
    if (res.status === 413) return { kind: 'too-large' }
    return { kind: 'drop', reason }
  }

  /** A warning of a kind that may repeat: said at most every WARN_EVERY_MS, with the count of what was folded in. */
  #warn(kind: string, message: string, count = 1): void {
    const now = Date.now()
    const last = this.#lastWarn.get(kind)
    if (last !== undefined && now - last < WARN_EVERY_MS) {
      this.#suppressed.set(kind, (this.#suppressed.get(kind) ?? 0) + count)
      return
    }
    const folded = this.#suppressed.get(kind) ?? 0
    this.#suppressed.delete(kind)
    this.#lastWarn.set(kind, now)
    this.#o.warn(folded > 0 ? `${message} (and ${folded} more since the last warning)` : message)
  }
}

function parseRejected(text: string): { index: number; message: string }[] {
  try {
    const body = JSON.parse(text) as { rejected?: unknown }
    return Array.isArray(body.rejected) ? (body.rejected as { index: number; message: string }[]) : []
  } catch {
    return []
  }
}

function serverMessage(text: string): string | undefined {
  try {
    const message = (JSON.parse(text) as { message?: unknown }).message
    return typeof message === 'string' ? message : undefined
  } catch {
    return undefined
  }
}
