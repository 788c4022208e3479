// A request not answered within REQUEST_TIMEOUT_MS and a second more is answered 503 (LOUPE_UNAVAILABLE). Fastify's
// own handler timeout does this with an AbortController, a timer and a 'close' listener per request, and aborts that
// controller once each request is done (an AbortError with its stack: about 10 µs a request). Here the requests
// being answered sit in one set, swept a few times a second: a request costs an insertion and a deletion.
//
// A route that sets its own `handlerTimeout` (the long-running ones, src/lib/time.ts) keeps Fastify's.
import { errorCodes, type FastifyReply } from 'fastify'
import fp from 'fastify-plugin'

/** How often the in-flight requests are looked at: a tenth of the limit, between 50 ms and a second. */
export const sweepEveryMs = (limitMs: number) => Math.min(1000, Math.max(50, Math.floor(limitMs / 10)))

export default fp(
  async (app) => {
    const limitMs = app.config.requestTimeoutMs + 1000
    /** Each request not yet answered, by its reply, with when it began (epoch ms). */
    const inFlight = new Map<FastifyReply, number>()

    app.addHook('onRequest', (request, reply, done) => {
      if (!request.routeOptions.handlerTimeout) inFlight.set(reply, Date.now())
      done()
    })
    app.addHook('onResponse', (_request, reply, done) => {
      inFlight.delete(reply)
      done()
    })

    const sweep = () => {
      const due = Date.now() - limitMs
      for (const [reply, began] of inFlight) {
        // Insertion order is arrival order: the rest began later.
        if (began > due) break
        inFlight.delete(reply)
        // Answered meanwhile, or the client is gone (its request never gets an onResponse).
        if (reply.sent || reply.raw.destroyed) continue
        const err = new errorCodes.FST_ERR_HANDLER_TIMEOUT(limitMs, reply.request.routeOptions.url)
        // A stream that has begun can only be cut short.
        if (reply.raw.headersSent) reply.raw.destroy(err)
        else reply.send(err)
      }
    }
    const timer = setInterval(sweep, sweepEveryMs(limitMs))
    timer.unref()
    app.addHook('onClose', async () => clearInterval(timer))
  },
  { name: 'loupe-deadline', dependencies: ['loupe-config'] },
)
