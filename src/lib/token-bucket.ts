// A token bucket per key: the ingest rate limit. `perMinute` tokens refill smoothly (one every 60000/perMinute ms) into
// a bucket that holds at most a minute's worth, so a client may burst up to a minute's allowance and then goes on at
// the sustained rate — never a minute of success followed by a minute of refusals, as a fixed window gives. Pure:
// the caller passes the clock.

export interface Take {
  ok: boolean
  /** When refused: whole seconds until the tokens asked for will be there (at least 1). */
  retryAfterS: number
}

export interface TokenBuckets {
  /** Takes `count` tokens from `key`'s bucket at time `at` (ms); refused (and nothing taken) when too few are left. */
  take(key: string, count: number, at: number): Take
  /** Whether `key` has at least one token at `at` (a cheap check before a request's body is read). */
  hasAny(key: string, at: number): boolean
  /** The whole tokens `key` has at `at`, and the ms until it has one more. */
  level(key: string, at: number): { tokens: number; nextInMs: number }
  /** Forgets full buckets (they are what a new key starts with): bounds memory by the keys that sent lately. */
  sweep(at: number): void
  readonly size: number
}

export function createTokenBuckets(perMinute: number): TokenBuckets {
  const capacity = perMinute
  const perMs = perMinute / 60_000
  const buckets = new Map<string, { tokens: number; at: number }>()

  const level = (key: string, at: number) => {
    const bucket = buckets.get(key)
    if (!bucket) return capacity
    return Math.min(capacity, bucket.tokens + Math.max(0, at - bucket.at) * perMs)
  }

  return {
    take(key, count, at) {
      // A request larger than the whole bucket could never pass: it costs a full bucket instead.
      const cost = Math.min(count, capacity)
      const tokens = level(key, at)
      if (tokens >= cost) {
        buckets.set(key, { tokens: tokens - cost, at })
        return { ok: true, retryAfterS: 0 }
      }
      buckets.set(key, { tokens, at })
      return { ok: false, retryAfterS: Math.max(1, Math.ceil((cost - tokens) / perMs / 1000)) }
    },
    hasAny(key, at) {
      return level(key, at) >= 1
    },
    level(key, at) {
      const tokens = level(key, at)
      return { tokens: Math.floor(tokens), nextInMs: Math.ceil((Math.floor(tokens) + 1 - tokens) / perMs) }
    },
    sweep(at) {
      for (const key of buckets.keys()) if (level(key, at) >= capacity) buckets.delete(key)
    },
    get size() {
      return buckets.size
    },
  }
}
