// Abuse limits that apply to every route: 503 with Retry-After when the process is saturated (under-pressure), a
// per-address request rate on every route but ingest, the live stream and the health checks (rate-limit), and a
// smooth per-key rate on ingest that counts traces (OTLP: spans), not requests (a token bucket, lib/token-bucket.ts),
// and for requests that present a public key (a browser's or an app's feedback) a per-address rate and a small body.
// While the server drains (SIGTERM), a request that still arrives on an open connection gets the same 503 as every
// other, Retry-After included, with Connection: close (Fastify's own closing answer has neither code nor Retry-After).
import { type Readable, Transform } from 'node:stream'
import rateLimit from '@fastify/rate-limit'
import underPressure from '@fastify/under-pressure'
import type { FastifyInstance, FastifyRequest, preParsingHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { FeedbackBodyTooLarge, Overloaded, RateLimited, RETRY_AFTER_S, ShuttingDown } from '../errors.js'
import { hashApiKey, isPublicKey, presentedKey } from '../lib/credentials.js'
import { createTokenBuckets, type TokenBuckets } from '../lib/token-bucket.js'

/** How often buckets that have refilled are forgotten. */
const SWEEP_MS = 60_000

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The ingest limit: takes `count` traces (OTLP: spans) from the bucket of the request's key; throws a 429 with
     * Retry-After when the key has sent more than INGEST_RATE_LIMIT a minute allows. No-op when the limit is off.
     */
    takeIngest(request: FastifyRequest, count: number): void
  }
}

/** Forgets a bucket set's refilled buckets every SWEEP_MS while the app runs. */
function sweepEvery(buckets: TokenBuckets, app: FastifyInstance) {
  const sweep = setInterval(() => buckets.sweep(Date.now()), SWEEP_MS)
  sweep.unref()
  app.addHook('onClose', async () => clearInterval(sweep))
}

/** A body stream that fails with a 413 once more than `limit` bytes have come through it. */
function bounded(payload: Readable, limit: number): Readable {
  let received = 0
  const out = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length
      callback(received > limit ? new FeedbackBodyTooLarge(limit) : null, chunk)
    },
  })
  payload.on('error', (err) => out.destroy(err))
  // The reader of the body takes the error; one that comes after it stopped listening is not a crash.
  out.on('error', () => {})
  return payload.pipe(out)
}

/**
 * The limits of a request that presents a public key (known by its prefix, before any lookup: an unknown one costs
 * the same): FEEDBACK_RATE_LIMIT requests a minute per address, smoothed, and a body of at most FEEDBACK_BODY_LIMIT
 * bytes. Only its one door (access `score`) reads a body; everywhere else it is refused (403) unread.
 */
function feedbackLimits(app: FastifyInstance) {
  const { feedbackRateLimit, feedbackBodyLimit } = app.config
  const buckets = feedbackRateLimit > 0 ? createTokenBuckets(feedbackRateLimit) : null
  const presentsPublicKey = (request: FastifyRequest) => {
    if (request.routeOptions.config?.access !== 'score') return false
    const key = presentedKey(request)
    return key !== null && isPublicKey(key)
  }
  app.addHook('onRequest', (request, _reply, done) => {
    if (!presentsPublicKey(request)) return done()
    if (buckets) {
      const taken = buckets.take(`ip:${request.ip}`, 1, Date.now())
      if (!taken.ok) {
        const message =
          `more than ${feedbackRateLimit} requests a minute with a public key from this address ` +
          `(FEEDBACK_RATE_LIMIT): retry in ${taken.retryAfterS} s`
        return done(Object.assign(new RateLimited(message), { retryAfterS: taken.retryAfterS }))
      }
    }
    if (Number(request.headers['content-length']) > feedbackBodyLimit) {
      return done(new FeedbackBodyTooLarge(feedbackBodyLimit))
    }
    done()
  })
  // On the route itself, so that it runs after the credential is decided: the body starts to flow into the bound only
  // when it is about to be read, never while the key is being looked up.
  const bound: preParsingHookHandler = (request, _reply, payload, done) => {
    if (!presentsPublicKey(request)) return done(null, payload)
    done(null, bounded(payload, feedbackBodyLimit))
  }
  app.addHook('onRoute', (route) => {
    if (route.config?.access !== 'score') return
    route.preParsing = [route.preParsing ?? []].flat().concat(bound)
  })
  if (buckets) sweepEvery(buckets, app)
}

export default fp(
  async (app) => {
    const { config } = app
    // preClose runs as soon as close() begins, before connections are drained.
    let draining = false
    app.addHook('preClose', async () => {
      draining = true
    })
    // A callback hook: on every request, no promise for the common case.
    app.addHook('onRequest', (request, reply, done) => {
      if (!draining) return done()
      if (request.raw.httpVersionMajor < 2) reply.header('connection', 'close')
      done(new ShuttingDown())
    })
    // A connection whose request was under way when the drain began is closed once it is idle again: close() closes
    // only the connections idle at its start, and one kept alive after its last answer held the server open for the
    // whole keep-alive timeout (72 s) — a SIGTERM during a request took that long to stop the process. A request
    // already behind it on the connection (pipelined) is answered first: 503, Connection: close (above).
    app.addHook('onResponse', (_request, _reply, done) => {
      if (draining) setImmediate(() => app.server.closeIdleConnections())
      done()
    })
    // better-sqlite3 answers on the event loop, so a saturated store shows as event-loop delay: both are caught here.
    await app.register(underPressure, {
      maxEventLoopDelay: config.maxEventLoopDelayMs,
      maxHeapUsedBytes: config.maxHeapUsedBytes,
      retryAfter: RETRY_AFTER_S,
      customError: Overloaded,
    })
    // Per address, on every route that does not opt out (ingest has its own limit; /ws its connection cap; / and
    // /health must answer a load balancer whatever one address does).
    await app.register(rateLimit, {
      global: config.rateLimit > 0,
      max: config.rateLimit,
      timeWindow: 60_000,
      keyGenerator: (request) => `ip:${request.ip}`,
      errorResponseBuilder: (_request, context) =>
        new RateLimited(
          `more than ${context.max} requests a minute from this address (RATE_LIMIT): retry in ${context.after}`,
        ),
    })

    const buckets = config.ingestRateLimit > 0 ? createTokenBuckets(config.ingestRateLimit) : null
    // Per key: the hash of the presented key (never the key itself, and no database read), else the address.
    const keyOf = (request: FastifyRequest) => {
      const key = presentedKey(request)
      return key ? `key:${hashApiKey(key)}` : `ip:${request.ip}`
    }
    const refuse = (retryAfterS: number) =>
      Object.assign(
        new RateLimited(
          `this key has sent more than ${config.ingestRateLimit} traces a minute (INGEST_RATE_LIMIT): retry in ` +
            `${retryAfterS} s`,
        ),
        { retryAfterS },
      )
    app.decorate('takeIngest', (request: FastifyRequest, count: number) => {
      if (!buckets) return
      const taken = buckets.take(keyOf(request), count, Date.now())
      if (!taken.ok) throw refuse(taken.retryAfterS)
    })
    if (buckets) {
      // A key with nothing left is refused before its body is read.
      app.addHook('onRequest', async (request) => {
        if (request.routeOptions.config?.access !== 'ingest') return
        if (!buckets.hasAny(keyOf(request), Date.now())) throw refuse(1)
      })
      sweepEvery(buckets, app)
    }

    feedbackLimits(app)
  },
  { name: 'loupe-limits', dependencies: ['loupe-config'] },
)
