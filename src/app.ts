// buildApp(config, options): the only way to build Loupe. One Fastify instance hosts the REST plugins and /ws over
// one store. It never reads process.env (see config.ts) and never listens (see server.ts).
import cors from '@fastify/cors'
import rateLimit from '@fastify/rate-limit'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import websocket from '@fastify/websocket'
import type { ErrorObject } from 'ajv'
import Fastify, { type FastifyServerOptions } from 'fastify'
import fp from 'fastify-plugin'
import { componentSchemas } from '../schemas/index.js'
import type { Config } from './config.js'
import { hashApiKey } from './lib/api-keys.js'
import { toJson } from './lib/json.js'
import { createValidators, describeErrors, validatorCompiler } from './lib/validation.js'
import auth, { presentedKey } from './plugins/auth.js'
import docs from './plugins/docs.js'
import errors from './plugins/errors.js'
import services from './plugins/services.js'
import storePlugin from './plugins/store.js'
import analytics from './routes/analytics.js'
import apiKeys from './routes/api-keys.js'
import health from './routes/health.js'
import projects from './routes/projects.js'
import traces from './routes/traces.js'
import ws from './routes/ws.js'
import type { Store } from './store/types.js'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
  }
}

export interface BuildOptions {
  /** An already open store (tests); otherwise the one named by config.databaseUrl is opened. */
  store?: Store
  /** The clock (tests): epoch ms. */
  now?: () => number
  /** Fastify logger options; default: pino at config.logLevel with credentials redacted. */
  logger?: FastifyServerOptions['logger']
}

/** Never let a credential reach a log line. */
const REDACT = ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.query.token']

export async function buildApp(config: Config, options: BuildOptions = {}) {
  const validators = createValidators()
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel, redact: { paths: REDACT, censor: '[redacted]' } },
    bodyLimit: config.bodyLimit,
    forceCloseConnections: 'idle',
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
  // are spliced in from their stored JSON text (src/lib/json.ts).
  app.setSerializerCompiler(() => toJson)

  app.decorate('config', config)
  app.decorate('validators', validators)
  app.decorate('now', options.now ?? Date.now)
  for (const schema of componentSchemas) app.addSchema(schema)

  await app.register(fp(async () => {}, { name: 'loupe-config' }))
  await app.register(errors)
  await app.register(cors, { origin: '*' })
  await app.register(rateLimit, {
    global: false,
    // Per key on ingest: the hash of the presented key (never the key itself), else the client address.
    keyGenerator: (request) => {
      const key = presentedKey(request)
      return key ? `key:${hashApiKey(key)}` : `ip:${request.ip}`
    },
  })
  await app.register(storePlugin, { store: options.store })
  await app.register(services)
  await app.register(auth)
  await app.register(docs)
  await app.register(websocket, { options: { maxPayload: 1024 * 1024 } })

  await app.register(health)
  await app.register(traces)
  await app.register(analytics)
  await app.register(projects)
  await app.register(apiKeys)
  await app.register(ws)

  return app
}

export type LoupeApp = Awaited<ReturnType<typeof buildApp>>
