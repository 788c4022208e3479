// Waiting and retrying, shared by the delivery queue and the live-stream reconnect: backoff with jitter,
// Retry-After, and network errors in words a person can act on.

/** The longest Retry-After the SDK waits. */
const MAX_RETRY_AFTER_MS = 5 * 60_000

/** Milliseconds a Retry-After header asks for (delay-seconds or an HTTP date), capped; undefined when absent. */
export function parseRetryAfter(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined
  const text = header.trim()
  const ms = /^\d+(\.\d+)?$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now
  if (Number.isNaN(ms)) return undefined
  return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS)
}

/** The wait before retry number `attempt` (1-based): exponential, capped, with "equal jitter". */
export function backoffDelay(attempt: number, baseDelayMs: number, maxDelayMs: number, random = Math.random): number {
  const exp = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attempt - 1))
  return exp / 2 + (random() * exp) / 2
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  UND_ERR_SOCKET: 'connection closed by the server',
}

/** What a failed fetch says, in words a person can act on. */
export function describeNetworkError(err: unknown): string {
  if (err instanceof Error) {
    if (err.name === 'TimeoutError' || err.name === 'AbortError') return 'the request timed out'
    const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause
    const code = typeof cause?.code === 'string' ? cause.code : (err as { code?: unknown }).code
    if (typeof code === 'string') return NETWORK_CODES[code] ? `${NETWORK_CODES[code]}, ${code}` : code
    if (typeof cause?.message === 'string' && cause.message !== '') return cause.message
    return err.message
  }
  return String(err)
}
