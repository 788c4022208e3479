// Authentication and authorization (docs/api.md, Authentication) in one place: each route declares what it does in `config.access`;
// before the body is read, the presented credential is resolved and the policy (lib/access-policy.ts) decides; once
// the query and body are validated, it decides again on the project they name. Routes read `request.principal` and
// `request.scope`, never a header.
import { isIP } from 'node:net'
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Environment } from '../../schemas/index.js'
import { Forbidden, InvalidApiKey, InvalidCredential, MissingApiKey, MissingCredential } from '../errors.js'
import {
  type Access,
  authorize,
  type Credential,
  type Decision,
  type Mode,
  type Principal,
  PUBLIC_KEY_REFUSAL,
  type Target,
} from '../lib/access-policy.js'
import { adminTokenMatcher, isPublicKey, presentedKey } from '../lib/credentials.js'
import type { KeyContext } from '../store/types.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route does, for the access policy; a route that declares nothing needs any valid credential. */
    access?: Access
    /** The credential may also come as `?token=` (only /ws: a browser cannot set headers on a WebSocket). */
    credentialInQuery?: boolean
    /** The credential may also come as HTTP Basic (only the OTLP routes: SDKs made for other services send it so). */
    credentialInBasic?: boolean
  }
  interface FastifyRequest {
    /** Who the request acts as (set before the body is parsed). */
    principal: Principal
    /** The one project the request is confined to; null: every project. */
    scope: string | null
    /** The project key the request presented, when it acts as one. */
    apiKey: KeyContext | null
  }
  interface FastifyInstance {
    /** Asks the policy about a resource a route has found by id (its project and environment); throws when refused. */
    authorizeTarget: (request: FastifyRequest, target: Target) => void
    /**
     * The scope the request's credential would have on a route of `access` naming `target` (throws when refused): for
     * a request that asks several questions in one (POST /mcp), each as its REST route would be let in.
     */
    scopeAs: (request: FastifyRequest, access: Access, target: Target) => string | null
  }
}

const kCredential = Symbol('loupe.credential')
type WithCredential = FastifyRequest & { [kCredential]?: Credential }

/** Whether an address only this machine can reach. */
export function isLoopback(address: string): boolean {
  const host = address.replace(/^\[|\]$/g, '').replace(/^::ffff:/i, '')
  if (host === 'localhost' || host === '::1') return true
  return isIP(host) === 4 && host.startsWith('127.')
}

const accessOf = (request: FastifyRequest): Access => request.routeOptions.config?.access ?? 'authenticated'

function refuse(decision: Extract<Decision, { allow: false }>): Error {
  switch (decision.refusal) {
    case 'missing-key':
      return new MissingApiKey()
    case 'invalid-key':
      return new InvalidApiKey()
    case 'missing-credential':
      return new MissingCredential()
    case 'invalid-credential':
      return new InvalidCredential()
    case 'forbidden':
      return new Forbidden(decision.message ?? 'this credential may not do this')
  }
}

/** The project (and environment) a validated request names, for the routes whose access depends on it. */
function targetOf(request: FastifyRequest, access: Access): Target | null {
  const pick = (source: unknown): Target => {
    const { project_id, environment } = (source ?? {}) as Record<string, unknown>
    return {
      project_id: typeof project_id === 'string' ? project_id : undefined,
      environment: typeof environment === 'string' ? (environment as Environment) : undefined,
    }
  }
  if (access === 'read' || access === 'write') return { project_id: pick(request.query).project_id }
  if (access === 'keys') return pick(request.body)
  return null
}

export default fp(
  async (app) => {
    const mode: Mode = app.config.adminToken === null ? 'open' : 'protected'
    const isAdminToken = adminTokenMatcher(app.config.adminToken)
    const isMetricsToken = adminTokenMatcher(app.config.metricsToken)
    app.decorateRequest('principal', null as never)
    app.decorateRequest('scope', null)
    app.decorateRequest('apiKey', null)

    const presentsPublicKey = (request: FastifyRequest) => {
      const config = request.routeOptions.config
      const secret = presentedKey(request, config?.credentialInQuery === true, config?.credentialInBasic === true)
      return secret !== null && isPublicKey(secret)
    }

    async function resolve(request: FastifyRequest): Promise<Credential> {
      const config = request.routeOptions.config
      const secret = presentedKey(request, config?.credentialInQuery === true, config?.credentialInBasic === true)
      if (secret === null) return { kind: 'none' }
      if (isAdminToken(secret)) return { kind: 'admin' }
      if (isMetricsToken(secret)) return { kind: 'metrics' }
      const key = await app.projects.identify(secret)
      return key ? { kind: 'key', key } : { kind: 'invalid' }
    }

    function apply(request: FastifyRequest, decision: Decision) {
      if (!decision.allow) throw refuse(decision)
      request.principal = decision.principal
      request.scope = decision.scope
      request.apiKey = decision.principal.kind === 'key' ? decision.principal.key : null
    }

    // Before the body is read: a caller without a usable credential learns nothing about the body (401, not 400
    // or 413), and costs no parsing. The store is asked only when the answer depends on it. Both hooks take Fastify's
    // callback: a request that needs no lookup (every read in open mode) then passes without a promise or a tick.
    app.addHook('preParsing', (request, _reply, payload, done) => {
      const access = accessOf(request)
      const decide = (credential: Credential) => {
        try {
          ;(request as WithCredential)[kCredential] = credential
          apply(request, authorize(mode, credential, access))
        } catch (err) {
          done(err as Error)
          return
        }
        done(null, payload)
      }
      // A public key is told so wherever it is presented but at its one door, before any lookup, in either mode.
      if (access !== 'score' && presentsPublicKey(request)) {
        done(new Forbidden(PUBLIC_KEY_REFUSAL))
        return
      }
      // A score may be confined by the key that sends it even in open mode: its key is looked up when one is sent.
      const needed = access !== 'public' && (mode === 'protected' || access === 'ingest' || access === 'score')
      if (!needed) decide({ kind: 'none' })
      else resolve(request).then(decide, done)
    })

    // After validation: the project the query or body names.
    app.addHook('preHandler', (request, _reply, done) => {
      try {
        const access = accessOf(request)
        const target = targetOf(request, access)
        const credential = (request as WithCredential)[kCredential]
        if (target !== null && credential) apply(request, authorize(mode, credential, access, target))
      } catch (err) {
        done(err as Error)
        return
      }
      done()
    })

    app.decorate('authorizeTarget', (request: FastifyRequest, target: Target) => {
      const credential = (request as WithCredential)[kCredential] ?? { kind: 'none' }
      const decision = authorize(mode, credential, accessOf(request), target)
      if (!decision.allow) throw refuse(decision)
    })

    app.decorate('scopeAs', (request: FastifyRequest, access: Access, target: Target) => {
      const decision = authorize(mode, (request as WithCredential)[kCredential] ?? { kind: 'none' }, access, target)
      if (!decision.allow) throw refuse(decision)
      return decision.scope
    })

    app.addHook('onListen', async () => {
      if (mode === 'protected') return
      const addresses = app.addresses().map((a) => (typeof a === 'string' ? a : a.address))
      const exposed = addresses.filter((a) => !isLoopback(a))
      if (exposed.length > 0) {
        app.log.warn(
          { addresses: exposed },
          'Loupe is listening beyond this machine in open mode: anyone who can reach it can read every trace and ' +
            'manage projects and keys. Set LOUPE_ADMIN_TOKEN to require credentials (see docs/production.md).',
        )
      }
    })
  },
  { name: 'loupe-auth', dependencies: ['loupe-config', 'loupe-services'] },
)
