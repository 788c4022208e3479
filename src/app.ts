// buildApp(config, options): the only way to build Loupe. One Fastify instance hosts the REST plugins and /ws over
// one store. It never reads process.env (see config.ts) and never listens (see server.ts).
import cors from '@fastify/cors'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import websocket from '@fastify/websocket'
import type { ErrorObject } from 'ajv'
import Fastify, { type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify'
import { componentSchemas } from '../schemas/index.js'
import type { Config } from './config.js'
import { redactSecret, redactUrl } from './lib/credentials.js'
import { parseQueryString } from './lib/query-string.js'
import { createValidators, describeErrors, validatorCompiler } from './lib/validation.js'
import auth from './plugins/auth.js'
import configPlugin from './plugins/config.js'
import deadline from './plugins/deadline.js'
import docs from './plugins/docs.js'
import errors, { errorReply } from './plugins/errors.js'
import limits from './plugins/limits.js'
import metricsPlugin from './plugins/metrics.js'
import services from './plugins/services.js'
import storePlugin from './plugins/store.js'
import alerts from './routes/alerts.js'
import analytics from './routes/analytics.js'
import annotationQueues from './routes/annotation-queues.js'
import apiKeys from './routes/api-keys.js'
import evaluators from './routes/evaluators.js'
import health from './routes/health.js'
import mcp from './routes/mcp.js'
import metrics from './routes/metrics.js'
import models from './routes/models.js'
import otlp from './routes/otlp.js'
import projects from './routes/projects.js'
import scores from './routes/scores.js'
import sessions from './routes/sessions.js'
import traces from './routes/traces.js'
import ui from './routes/ui.js'
import ws from './routes/ws.js'
import { toJson } from './store/to-json.js'
import type { Store } from './store/types.js'

export interface BuildOptions {
  /** An already open store (tests); otherwise the one named by config.databaseUrl is opened. */
  store?: Store
  /** The clock (tests): epoch ms. */
  now?: () => number
  /** Fastify logger options; default: pino at config.logLevel with credentials redacted. */
  logger?: FastifyServerOptions['logger']
  /** The built viewer served at /ui/ (tests); default web/dist in the package. */
  uiRoot?: string
}

/** The headers that carry a credential: redacted from every logged request. */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["proxy-authorization"]',
  'req.headers.cookie',
]

/**
 * The logger Loupe runs with: pino at the configured level, credentials redacted from every line — the headers that
 * carry one, credential-like query parameters in logged URLs, and, as a last net over the whole written line, any
 * project key (`loupe_sk_…`) and the admin token wherever they appear (an error message, a URL, a header of any name).
 */
export const loggerOptions = (config: Config) => {
  const adminToken = config.adminToken
  // The admin token as it may appear in a JSON log line (escaped) or in a URL (percent-encoded).
  const secret = adminToken === null ? null : JSON.stringify(adminToken).slice(1, -1)
  return {
    level: config.logLevel,
    redact: { paths: REDACT, censor: '[redacted]' },
    serializers: {
      req: (req: FastifyRequest) => ({
        method: req.method,
        url: redactUrl(req.url, adminToken),
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
    },
    hooks: {
      streamWrite: (line: string) => {
        let out = line.replace(/loupe_sk_[A-Za-z0-9]+/g, 'loupe_sk_[redacted]')
        if (secret !== null) out = redactSecret(redactSecret(out, secret), adminToken as string)
        return out
      },
    },
  }
}

/**
 * Fastify's two log lines a request (incoming, completed) become one, at debug: off at the default level, where a
 * busy ingest would otherwise write two lines a batch. Errors are logged by the error handler either way.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) super.requestCompleted(error, request, reply)
    else request.log.debug({ req: request, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request')
  }
}

export async function buildApp(config: Config, options: BuildOptions = {}) {
  const validators = createValidators()
  const app = Fastify({
    logger: options.logger ?? loggerOptions(config),
    logController: new OneLinePerRequest(),
    // A trace_id may be 128 characters: a longer path parameter reaches the route's own check (400/404), not 414.
    // Query values whose escapes are not UTF-8 reach the validators as text they refuse (lib/query-string.ts).
    routerOptions: { maxParamLength: 1024, querystringParser: parseQueryString },
    // Errors Fastify's router raises before any route (a malformed URL) get the same body as every other error.
    frameworkErrors: (error, request, reply) => {
      reply.send(errorReply(error, request, reply) as never)
    },
    bodyLimit: config.bodyLimit,
    forceCloseConnections: 'idle',
    // A request that arrives while the server drains is answered by plugins/limits.ts, Retry-After included.
    return503OnClosing: false,
    trustProxy: config.trustProxy,
    // Slow clients: the whole request must arrive within the timeout (else Node answers 408 and closes; it checks
    // every `connectionsCheckingInterval`, and honours requestTimeout only when the server is constructed with it,
    // hence `http`). A request not answered a second after that gets 503 (plugins/deadline.ts): the 408 comes first
    // for a slow upload, the 503 only for a slow answer.
    requestTimeout: config.requestTimeoutMs,
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: Math.min(60_000, config.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(1000, Math.max(100, Math.floor(config.requestTimeoutMs / 2))),
    },
    schemaErrorFormatter: (errors, dataVar) => {
      const error = new Error(describeErrors(errors as ErrorObject[], dataVar))
      return error
    },
    schemaController: {
      compilersFactory: {
        // Fastify's own type for this factory is narrower than what it passes; ours takes exactly what it passes.
        buildValidator: (() => validatorCompiler(validators)) as never,
      },
    },
  }).withTypeProvider<TypeBoxTypeProvider>()

  // Responses are built from the contract's types and tested against its schemas; fast-json-stringify would check
  // every nullable (anyOf) field of every trace with ajv at run time, which costs more than it saves. Stored traces
  // are spliced in from their stored JSON text (src/store/to-json.ts).
  app.setSerializerCompiler(() => toJson)

  for (const schema of componentSchemas) app.addSchema(schema)

  await app.register(configPlugin, { config, now: options.now ?? Date.now, validators })
  await app.register(deadline)
  await app.register(metricsPlugin)
  await app.register(limits)
  await app.register(errors)
  await app.register(cors, { origin: '*' })
  await app.register(storePlugin, { store: options.store })
  await app.register(services)
  await app.register(auth)
  await app.register(docs)
  await app.register(websocket, { options: { maxPayload: 1024 * 1024 } })

  await app.register(health)
  await app.register(metrics)
  await app.register(traces)
  await app.register(otlp)
  await app.register(analytics)
  await app.register(models)
  await app.register(scores)
  await app.register(evaluators)
  await app.register(annotationQueues)
  await app.register(sessions)
  await app.register(projects)
  await app.register(apiKeys)
  await app.register(alerts)
  await app.register(mcp)
  await app.register(ws)
  await app.register(ui, { root: options.uiRoot })

  return app
}

export type LoupeApp = Awaited<ReturnType<typeof buildApp>>
