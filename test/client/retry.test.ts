// Backoff, Retry-After and network-error wording, as pure functions.
import t from 'tap'
import { backoffDelay, describeNetworkError, parseRetryAfter } from '../../src/client/retry.js'

t.test('the backoff doubles from the base, is capped, and its jitter stays within [half, full]', async (t) => {
  const table: [attempt: number, low: number, high: number][] = [
    [1, 50, 100],
    [2, 100, 200],
    [3, 200, 400],
    [10, 500, 1000],
  ]
  for (const [attempt, low, high] of table) {
    t.equal(
      backoffDelay(attempt, 100, 1000, () => 0),
      low,
      `attempt ${attempt}, no jitter`,
    )
    t.equal(
      backoffDelay(attempt, 100, 1000, () => 1),
      high,
      `attempt ${attempt}, full jitter`,
    )
  }
})

t.test('Retry-After is read as seconds or an HTTP date, never negative, capped at 5 minutes', async (t) => {
  const now = Date.parse('2026-11-21T13:45:00Z')
  t.equal(parseRetryAfter('3', now), 3000)
  t.equal(parseRetryAfter('0.5', now), 500)
  t.equal(parseRetryAfter('Sat, 21 Nov 2026 13:45:10 GMT', now), 10_000)
  t.equal(parseRetryAfter('Sat, 21 Nov 2026 13:44:00 GMT', now), 0)
  t.equal(parseRetryAfter('86400', now), 300_000)
  t.equal(parseRetryAfter(null, now), undefined)
  t.equal(parseRetryAfter('soon', now), undefined)
})

t.test('network errors are described by their cause', async (t) => {
  const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) })
  t.equal(describeNetworkError(refused), 'connection refused, ECONNREFUSED')
  t.equal(describeNetworkError(new DOMException('late', 'TimeoutError')), 'the request timed out')
  t.equal(
    describeNetworkError(new TypeError('fetch failed', { cause: new Error('other side closed') })),
    'other side closed',
  )
})
