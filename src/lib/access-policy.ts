// Who may do what (docs/api.md, Authentication), as one pure function: the auth plugin asks it about every request, the few routes
// that find a resource by id ask it about that resource. Nothing else decides access.
import type { Environment } from '../../schemas/index.js'
import type { KeyContext } from './credentials.js'

/**
 * What a route does, declared in its `config.access`:
 * - `public`: GET / and /health — never needs a credential;
 * - `read`: reads traces, analytics, projects, keys, the /ws stream — a project key is confined to its project;
 * - `ingest`: records traces — needs a project key in both modes (project and environment come from it);
 * - `keys`: issues and revokes API keys — a project key only for its own project and environment;
 * - `admin`: creates projects — only the admin token (open mode: anyone);
 * - `authenticated`: any valid credential (the default of a route that declares nothing, e.g. /docs);
 * - `write`: changes a project's data — deletes traces or scores, makes and changes annotation queues, datasets, their
 *   items and experiments — like `read`, a project key is confined to its own project;
 * - `metrics`: GET /metrics — the admin token or the metrics token (METRICS_TOKEN), never a project key;
 * - `score`: records scores — open mode: anyone; protected: the admin token (any project), a project's secret key or
 *   its public key (its own project's traces; a public key only feedback).
 * A public key (`loupe_pk_…`) may do nothing but `score`: every other route answers it 403.
 */
export type Access = 'public' | 'read' | 'write' | 'ingest' | 'keys' | 'admin' | 'authenticated' | 'metrics' | 'score'

/** What a request presented, once resolved. */
export type Credential =
  | { kind: 'none' }
  | { kind: 'invalid' }
  | { kind: 'admin' }
  | { kind: 'metrics' }
  | { kind: 'key'; key: KeyContext }

/** Who the request acts as, after the decision: routes read this, never the headers. */
export type Principal = { kind: 'admin' } | { kind: 'metrics' } | { kind: 'key'; key: KeyContext } | { kind: 'open' }

/** The project (and, for keys, the environment) a request names, where it names one. */
export interface Target {
  project_id?: string
  environment?: Environment
}

/** Why a request is refused: 401 for the first four (nothing usable was presented), 403 for `forbidden`. */
export type Refusal = 'missing-key' | 'invalid-key' | 'missing-credential' | 'invalid-credential' | 'forbidden'

export type Decision =
  | {
      allow: true
      principal: Principal
      /** The one project the request is confined to; null: every project. */
      scope: string | null
    }
  | { allow: false; refusal: Refusal; message?: string }

export type Mode = 'open' | 'protected'

const deny = (refusal: Refusal, message?: string): Decision => ({ allow: false, refusal, message })
const allow = (principal: Principal, scope: string | null): Decision => ({ allow: true, principal, scope })

/** What a public key hears wherever it is not the door of feedback. */
export const PUBLIC_KEY_REFUSAL =
  'a public key may only send feedback scores (POST /scores, POST /scores/batch); use a secret key or the admin token'
const denyPublicKey = () => deny('forbidden', PUBLIC_KEY_REFUSAL)

/** A project key's own confinement: another project → 403; none named → its own. */
function confine(key: KeyContext, target: Target, what: string): Decision {
  if (target.project_id !== undefined && target.project_id !== key.project_id) {
    return deny(
      'forbidden',
      `this API key belongs to project '${key.project_id}' and may not ${what} project '${target.project_id}'`,
    )
  }
  return allow({ kind: 'key', key }, key.project_id)
}

/**
 * The decision for one request. `target` is what the request names (query `project_id` of a read, the project and
 * environment of a key being issued or revoked); absent before the request has been parsed.
 */
export function authorize(mode: Mode, credential: Credential, access: Access, target: Target = {}): Decision {
  const named = target.project_id ?? null

  // Before the public routes: a public key is told so even where no credential is needed (GET /, /health).
  if (credential.kind === 'key' && credential.key.kind === 'public' && access !== 'score') return denyPublicKey()
  if (access === 'public') return allow({ kind: 'open' }, null)
  if (access === 'score' && credential.kind === 'key')
    return allow({ kind: 'key', key: credential.key }, credential.key.project_id)

  if (access === 'ingest') {
    if (credential.kind === 'none') return deny('missing-key')
    if (credential.kind === 'invalid') return deny('invalid-key')
    if (credential.kind === 'admin' || credential.kind === 'metrics') {
      return deny(
        'forbidden',
        `the ${credential.kind} token cannot record traces: send a project API key (the trace belongs to its project)`,
      )
    }
    return allow({ kind: 'key', key: credential.key }, credential.key.project_id)
  }

  // Open mode: reads and management are open; a credential changes nothing.
  if (mode === 'open') return allow({ kind: 'open' }, named)

  if (credential.kind === 'none') return deny('missing-credential')
  if (credential.kind === 'invalid') return deny('invalid-credential')
  if (credential.kind === 'admin') return allow({ kind: 'admin' }, named)
  if (credential.kind === 'metrics') {
    return access === 'metrics'
      ? allow({ kind: 'metrics' }, null)
      : deny('forbidden', 'the metrics token may only read GET /metrics')
  }

  const key = credential.key
  switch (access) {
    case 'read':
      return confine(key, target, 'read')
    case 'write':
      return confine(key, target, 'change')
    case 'keys':
      if (target.environment !== undefined && target.environment !== key.environment) {
        return deny(
          'forbidden',
          `this API key is scoped to environment '${key.environment}' and may not manage keys of '${target.environment}'`,
        )
      }
      return confine(key, target, 'manage keys of')
    case 'admin':
      return deny('forbidden', 'only the admin token may do this; a project API key may not')
    case 'authenticated':
      return allow({ kind: 'key', key }, key.project_id)
    case 'metrics':
      return deny('forbidden', 'a project API key may not read /metrics: send the metrics token or the admin token')
    case 'score':
      return allow({ kind: 'key', key }, key.project_id)
  }
}

/** Whether a resource of `projectId` may be seen within `scope`; outside it, a resource is answered as unknown (404). */
export const inScope = (scope: string | null, projectId: string): boolean => scope === null || scope === projectId
