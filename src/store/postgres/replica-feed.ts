// The cross-replica feed: every replica LISTENs on one channel; a replica that stores traces NOTIFYs their seq numbers
// in the same transaction (so PostgreSQL sends it at commit, once). Each listener fetches the traces it did not store
// itself and hands them on, in the order the notifications arrive. When its listening connection drops, it reconnects
// with backoff and catches up by seq on what was committed meanwhile, skipping every seq it has already delivered or
// stored itself — so a /ws client sees each trace exactly once, whichever replica stored it.
import type pg from 'pg'
import type { Trace } from '../../../schemas/index.js'

export interface FeedLog {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
}

export interface ReplicaFeedOptions {
  /** A new dedicated connection (not from the pool: a LISTEN holds its connection for good). */
  connect(): Promise<pg.Client>
  channel: string
  /** This replica's id: its own notifications are skipped (ingest has announced those traces locally already). */
  origin: string
  bySeq(seqs: readonly number[]): Promise<(Trace & { seq: number })[]>
  after(seq: number, limit: number): Promise<(Trace & { seq: number })[]>
  maxSeq(): Promise<number>
  deliver(traces: readonly Trace[]): void
  log: FeedLog
  /** First reconnect delay; it doubles up to 5 s (default 250 ms). */
  reconnectMs?: number
}

/**
 * A transaction that took its seq numbers before a disconnect may commit after it: catching up starts from the seq
 * known this long before the connection was lost, and the seqs already seen are skipped.
 */
const LATE_COMMIT_MS = 30_000
/** How long seen seqs (and the checkpoints that bound them) are kept. */
const MEMORY_MS = 2 * LATE_COMMIT_MS
const CATCH_UP_PAGE = 1000
const BACKOFF_FIRST_MS = 250
const BACKOFF_MAX_MS = 5000

export interface ReplicaFeed {
  start(): Promise<void>
  /** Marks seqs this replica stored itself (before its commit), so a catch-up never announces them twice. */
  own(seqs: readonly number[]): void
  close(): Promise<void>
  /** The backend pid of the listening connection (tests break it on purpose). */
  readonly pid: number | null
}

export function createReplicaFeed(opts: ReplicaFeedOptions): ReplicaFeed {
  let client: pg.Client | null = null
  let pid: number | null = null
  let closed = false
  let reconnectTimer: NodeJS.Timeout | null = null
  const firstBackoff = opts.reconnectMs ?? BACKOFF_FIRST_MS
  let backoff = firstBackoff
  let lostAt: number | null = null
  /** Every seq delivered here or stored here, while it may still come back in a catch-up. */
  const seen = new Set<number>()
  /** (time, highest seq seen by then), oldest first: what a catch-up starts from. */
  const checkpoints: { at: number; seq: number }[] = []
  let highest = 0
  /** Work runs one job at a time, in arrival order: notifications and catch-ups never interleave. */
  let queue: Promise<void> = Promise.resolve()

  const note = (seq: number) => {
    seen.add(seq)
    if (seq <= highest) return
    highest = seq
    const now = Date.now()
    const last = checkpoints.at(-1)
    if (!last || now - last.at >= 1000) checkpoints.push({ at: now, seq })
    else last.seq = seq
    // Keep one checkpoint older than the memory window; forget the seen seqs below it.
    let forgot = false
    while (checkpoints.length > 1 && checkpoints[1]!.at < now - MEMORY_MS) {
      checkpoints.shift()
      forgot = true
    }
    if (forgot) {
      const floor = checkpoints[0]!.seq
      for (const s of seen) if (s < floor) seen.delete(s)
    }
  }

  /** The highest seq seen at least LATE_COMMIT_MS before `at`. */
  const floorBefore = (at: number) => {
    let floor = checkpoints[0]?.seq ?? 0
    for (const c of checkpoints) if (c.at <= at - LATE_COMMIT_MS) floor = c.seq
    return floor
  }

  const enqueue = (job: () => Promise<void>) => {
    queue = queue.then(job).catch((err: unknown) => {
      if (closed) return
      // A fetch that failed: drop the connection, so the reconnect's catch-up fetches again.
      opts.log.warn({ err }, 'replica feed: fetch failed, reconnecting')
      void client?.end().catch(() => {})
      lost()
    })
  }

  const publish = (traces: (Trace & { seq: number })[]) => {
    const fresh: Trace[] = []
    for (const { seq, ...trace } of traces) {
      if (seen.has(seq)) continue
      note(seq)
      fresh.push(trace)
    }
    if (fresh.length > 0) opts.deliver(fresh)
  }

  const onNotification = (message: pg.Notification) => {
    if (message.channel !== opts.channel || message.payload === undefined) return
    const parsed = parseNotifyPayload(message.payload)
    if (!parsed || parsed.origin === opts.origin) return
    enqueue(async () => {
      const wanted = parsed.seqs.filter((s) => !seen.has(s))
      if (wanted.length > 0) publish(await opts.bySeq(wanted))
    })
  }

  const catchUp = (from: number) =>
    enqueue(async () => {
      let after = from
      let announced = 0
      for (;;) {
        const page = await opts.after(after, CATCH_UP_PAGE)
        const before = seen.size
        publish(page)
        announced += Math.max(0, seen.size - before)
        const last = page.at(-1)
        if (!last || page.length < CATCH_UP_PAGE) break
        after = last.seq
      }
      opts.log.info({ from, announced }, 'replica feed: caught up after reconnecting')
    })

  function lost() {
    if (closed || reconnectTimer) return
    lostAt ??= Date.now()
    client = null
    pid = null
    const delay = backoff
    backoff = Math.max(delay, Math.min(BACKOFF_MAX_MS, backoff * 2))
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null
      listen().then(
        () => {
          const from = floorBefore(lostAt ?? Date.now())
          lostAt = null
          backoff = firstBackoff
          catchUp(from)
        },
        (err: unknown) => {
          opts.log.warn({ err, retryInMs: backoff }, 'replica feed: cannot listen yet')
          lost()
        },
      )
    }, delay)
    reconnectTimer.unref()
  }

  /** Connects and LISTENs; after this, every commit's notification reaches us. */
  async function listen(): Promise<void> {
    const c = await opts.connect()
    c.on('error', () => {}) // followed by 'end'
    c.on('end', () => {
      if (client !== c) return
      opts.log.warn({}, 'replica feed: listening connection lost')
      lost()
    })
    c.on('notification', onNotification)
    try {
      await c.query(`listen "${opts.channel}"`)
      const r = await c.query<{ pid: number }>('select pg_backend_pid() as pid')
      if (closed) throw new Error('closed')
      client = c
      pid = r.rows[0]?.pid ?? null
    } catch (err) {
      await c.end().catch(() => {})
      throw err
    }
  }

  return {
    async start() {
      await listen()
      // Announce from now on: what was stored before this replica started is history, not news.
      const start = await opts.maxSeq()
      highest = start
      checkpoints.push({ at: Date.now(), seq: start })
    },
    own(seqs) {
      for (const seq of seqs) note(seq)
    },
    async close() {
      closed = true
      if (reconnectTimer) clearTimeout(reconnectTimer)
      const c = client
      client = null
      await c?.end().catch(() => {})
      await queue
    },
    get pid() {
      return pid
    },
  }
}

/** NOTIFY payloads must stay under 8000 bytes: room for the origin and the separators. */
const NOTIFY_BUDGET = 7000

/**
 * The payload(s) announcing stored traces: `origin` then runs of seq numbers (`12-40,45`), split to fit NOTIFY.
 * Compact and constant-size for a batch, whatever the length of the trace ids.
 */
export function notifyPayloads(origin: string, seqs: readonly number[]): string[] {
  const runs: string[] = []
  let start = seqs[0]
  let prev = start
  const flush = () => {
    if (start !== undefined && prev !== undefined) runs.push(start === prev ? `${start}` : `${start}-${prev}`)
  }
  for (const seq of seqs.slice(1)) {
    if (prev !== undefined && seq === prev + 1) {
      prev = seq
      continue
    }
    flush()
    start = seq
    prev = seq
  }
  flush()
  const payloads: string[] = []
  let current: string[] = []
  let size = 0
  for (const run of runs) {
    if (size + run.length + 1 > NOTIFY_BUDGET && current.length > 0) {
      payloads.push(`${origin}:${current.join(',')}`)
      current = []
      size = 0
    }
    current.push(run)
    size += run.length + 1
  }
  if (current.length > 0) payloads.push(`${origin}:${current.join(',')}`)
  return payloads
}

/** Reads a payload of `notifyPayloads`; null when it is not one. */
export function parseNotifyPayload(payload: string): { origin: string; seqs: number[] } | null {
  const colon = payload.lastIndexOf(':')
  if (colon <= 0) return null
  const seqs: number[] = []
  for (const run of payload.slice(colon + 1).split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(run)
    if (!m) return null
    const from = Number(m[1])
    const to = m[2] === undefined ? from : Number(m[2])
    for (let s = from; s <= to; s++) seqs.push(s)
  }
  return { origin: payload.slice(0, colon), seqs }
}
