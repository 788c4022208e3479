// The ingest rate limit's token bucket: smooth refill, bursts up to a minute's worth, exact Retry-After.
import t from 'tap'
import { createTokenBuckets } from '../../src/lib/token-bucket.js'

t.test('a full bucket allows a burst of a minute’s worth, then the sustained rate', async (t) => {
  const b = createTokenBuckets(600) // 10 a second
  t.ok(b.take('k', 600, 0).ok, 'a minute of tokens at once')
  t.same(b.take('k', 1, 0), { ok: false, retryAfterS: 1 })
  t.notOk(b.take('k', 1, 99).ok, 'one token takes 100 ms to come back')
  t.ok(b.take('k', 1, 100).ok)
  // A client sending at exactly the sustained rate is never refused: 10 a second for a minute.
  let refused = 0
  for (let at = 200; at < 60_200; at += 100) if (!b.take('k', 1, at).ok) refused++
  t.equal(refused, 0, 'the sustained rate always passes')
})

t.test('a client over the rate is refused only as much as it is over, never for a whole window', async (t) => {
  const b = createTokenBuckets(6000) // 100 a second
  let ok = 0
  let refused = 0
  // 200 requests a second for two minutes, after the burst is spent.
  b.take('k', 6000, 0)
  for (let at = 0; at < 120_000; at += 5) {
    if (b.take('k', 1, at).ok) ok++
    else refused++
  }
  t.ok(Math.abs(ok - 12_000) <= 2, `half of them pass, spread over the whole time (${ok})`)
  t.ok(Math.abs(refused - 12_000) <= 2)
})

t.test(
  'Retry-After is the whole seconds until the tokens asked for are there; nothing is taken when refused',
  async (t) => {
    const b = createTokenBuckets(60) // 1 a second
    t.ok(b.take('k', 60, 0).ok)
    t.same(b.take('k', 10, 0), { ok: false, retryAfterS: 10 })
    t.same(b.take('k', 10, 5_000), { ok: false, retryAfterS: 5 })
    t.ok(b.take('k', 10, 10_000).ok, 'exactly when it said')
    t.same(b.take('k', 1, 10_000), { ok: false, retryAfterS: 1 })
  },
)

t.test(
  'a request larger than the bucket costs a full bucket; keys are independent; full buckets are swept',
  async (t) => {
    const b = createTokenBuckets(100)
    t.ok(b.take('a', 1000, 0).ok, 'a batch larger than the bucket can pass when the bucket is full')
    t.notOk(b.hasAny('a', 0))
    t.ok(b.hasAny('b', 0), 'another key has its own bucket')
    t.equal(b.size, 1)
    b.sweep(30_000)
    t.equal(b.size, 1, 'half full: kept')
    b.sweep(60_000)
    t.equal(b.size, 0, 'full again: forgotten')
  },
)

t.test('the level says the whole tokens left and when the next one comes', async (t) => {
  const b = createTokenBuckets(60) // one a second
  t.same(b.level('k', 0).tokens, 60, 'a new key starts full')
  b.take('k', 59, 0)
  t.same(b.level('k', 0), { tokens: 1, nextInMs: 1000 })
  b.take('k', 1, 0)
  t.same(b.level('k', 250), { tokens: 0, nextInMs: 750 }, 'a quarter of a token back after 250 ms')
  t.same(b.level('k', 1000).tokens, 1)
})
