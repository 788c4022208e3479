// Credentials, in one place: project keys (`loupe_sk_` + 32 characters of [A-Za-z0-9] from a CSPRNG, of which the
// service keeps only the SHA-256 hash and a masked preview), the credential a request presents (a header, or `?token=`
// where a route allows it), and the redaction that keeps every credential out of the logs.
import { createHash, randomInt, timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import {
  type ApiKeyKind,
  type Environment,
  KEY_PREFIX,
  KEY_RANDOM_LENGTH,
  PUBLIC_KEY_PREFIX,
} from '../../schemas/index.js'

/** The project context a presented key resolves to (the store finds it by the key's hash). */
export interface KeyContext {
  key_id: string
  project_id: string
  project_name: string
  environment: Environment
  /** `public`: a key meant for a browser or an app, that may only send feedback scores. */
  kind: ApiKeyKind
  last_used_at: number | null
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** The prefix of each kind of key. */
export const KEY_PREFIXES: Record<ApiKeyKind, string> = { secret: KEY_PREFIX, public: PUBLIC_KEY_PREFIX }

/**
 * A new key: `loupe_sk_` (secret) or `loupe_pk_` (public) + 32 uniformly chosen characters of [A-Za-z0-9]
 * (crypto.randomInt, no modulo bias).
 */
export function generateApiKey(kind: ApiKeyKind = 'secret'): string {
  let body = ''
  for (let i = 0; i < KEY_RANDOM_LENGTH; i++) body += ALPHABET[randomInt(ALPHABET.length)]
  return KEY_PREFIXES[kind] + body
}

/** Whether a presented key is a public one (by its prefix: known before any lookup). */
export const isPublicKey = (key: string): boolean => key.startsWith(PUBLIC_KEY_PREFIX)

/** SHA-256 of the whole key (prefix included), lower-case hex: what the store looks keys up by. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex')
}

/** The prefix + first 4 + `…` + last 4 random characters, e.g. `loupe_sk_Ab3x…9QzK`. */
export function previewApiKey(key: string): string {
  const prefix = isPublicKey(key) ? PUBLIC_KEY_PREFIX : KEY_PREFIX
  const body = key.startsWith(prefix) ? key.slice(prefix.length) : key
  return `${prefix}${body.slice(0, 4)}…${body.slice(-4)}`
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest()

/**
 * Whether `presented` is the admin token, compared in constant time: both sides are SHA-256 digests of the same
 * length, whatever was presented.
 */
export function adminTokenMatcher(adminToken: string | null): (presented: string) => boolean {
  if (adminToken === null) return () => false
  const digest = sha256(adminToken)
  return (presented) => timingSafeEqual(sha256(presented), digest)
}

/**
 * The key in HTTP Basic credentials (`base64(user:password)`), as SDKs built for other services send it (Langfuse's:
 * public key as user, secret key as password): whichever half is a project key, else the password, else the user.
 */
function basicCredential(encoded: string): string | null {
  const decoded = Buffer.from(encoded, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  const user = colon < 0 ? decoded : decoded.slice(0, colon)
  const password = colon < 0 ? '' : decoded.slice(colon + 1)
  const candidates = [password, user].filter((part) => part !== '')
  return candidates.find((part) => part.startsWith(KEY_PREFIX)) ?? candidates[0] ?? null
}

/**
 * The secret a request presents, if any: a Bearer token or X-API-Key; on routes that allow them, `?token=` and HTTP
 * Basic credentials.
 */
export function presentedKey(request: FastifyRequest, fromQuery = false, fromBasic = false): string | null {
  const header = request.headers.authorization
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
    if (match) return match[1] ?? null
    const basic = fromBasic ? /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header) : null
    if (basic) return basicCredential(basic[1]!)
  }
  const apiKey = request.headers['x-api-key']
  if (typeof apiKey === 'string' && apiKey.trim() !== '') return apiKey.trim()
  if (fromQuery) {
    const token = (request.query as Record<string, unknown> | undefined)?.token
    if (typeof token === 'string' && token !== '') return token
  }
  return null
}

/** Query parameters whose value is a credential, whatever their name says: each is redacted from a logged URL. */
const CREDENTIAL_PARAMS = /^(?:token|access_token|api_key|apikey|key|auth|authorization|password|secret|admin_token)$/i

/**
 * A URL fit for a log line: every query value that is a credential — under a credential-like name, any project key
 * (`loupe_sk_…`), or the admin token itself wherever it stands — replaced by `[redacted]`.
 */
export function redactUrl(url: string | undefined, adminToken: string | null): string | undefined {
  if (url === undefined) return undefined
  let out = url.replace(/loupe_sk_[A-Za-z0-9]+/g, 'loupe_sk_[redacted]')
  if (adminToken !== null) out = redactSecret(out, adminToken)
  const q = out.indexOf('?')
  if (q < 0) return out
  const query = out
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=')
      const name = eq < 0 ? pair : pair.slice(0, eq)
      let decoded = name
      try {
        decoded = decodeURIComponent(name)
      } catch {}
      return eq >= 0 && CREDENTIAL_PARAMS.test(decoded) ? `${name}=[redacted]` : pair
    })
    .join('&')
  return `${out.slice(0, q)}?${query}`
}

/** A database URL fit for a message: its password replaced. */
export const redactPassword = (url: string) => url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')

/** `text` with every occurrence of `secret` (as sent, or percent-encoded in a URL) replaced by `[redacted]`. */
export function redactSecret(text: string, secret: string): string {
  if (secret === '') return text
  let out = text.split(secret).join('[redacted]')
  const encoded = encodeURIComponent(secret)
  if (encoded !== secret) out = out.split(encoded).join('[redacted]')
  return out
}
