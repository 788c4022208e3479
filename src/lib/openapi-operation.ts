// What the OpenAPI document says of each operation that the route's own declarations already decide: who may call
// it (from `config.access`) and which error answers it can give (from what it validates, its access and its limits).
// Routes declare only what is theirs alone (operationId, 404/409); the docs plugin applies this to every route, so
// the document cannot forget a 401 or a 503 that the plugins answer.
import type { Access } from './access-policy.js'

/** OpenAPI security requirements: each entry is one way to authenticate; `{}` means no credential. */
export type SecurityRequirement = Record<string, string[]>

/** What the docs need of a route: its schema as declared and its route config. */
export interface RouteDocInput {
  schema: Record<string, unknown>
  access: Access
  /** false when the per-address request limit does not apply to the route. */
  rateLimited: boolean
  /** The credential may also come as `?token=`. */
  credentialInQuery: boolean
}

const HEADER_CREDENTIALS: SecurityRequirement[] = [{ bearerAuth: [] }, { apiKeyHeader: [] }]

/** The security of a route by its access: what it needs in protected mode, and `{}` where open mode needs nothing. */
export function securityOf(access: Access, credentialInQuery: boolean): SecurityRequirement[] {
  if (access === 'public') return []
  const credentials = credentialInQuery
    ? [...HEADER_CREDENTIALS, { tokenQuery: [] }]
    : access === 'metrics'
      ? [{ bearerAuth: [] }]
      : HEADER_CREDENTIALS
  // Ingest needs a project key in both modes; every other route is open unless the server is protected.
  return access === 'ingest' ? credentials : [...credentials, {}]
}

/** Who may call a route, in words, appended to its description. */
export const ACCESS_TEXT: Record<Access, string> = {
  public: 'No credential needed, in either mode.',
  read:
    'Open mode: no credential needed. Protected mode: the admin token (every project) or a project API key ' +
    '(confined to its own project).',
  write:
    'Open mode: no credential needed. Protected mode: the admin token (every project) or a project API key ' +
    '(only within its own project).',
  ingest: 'Needs a project API key in both modes; the trace belongs to its project and environment.',
  keys:
    'Open mode: no credential needed. Protected mode: the admin token, or a project API key for its own project ' +
    'and environment.',
  admin: 'Open mode: no credential needed. Protected mode: only the admin token.',
  score:
    'Open mode: no credential needed (a key, when sent, confines the score to its project). Protected mode: the ' +
    "admin token (every project), a project's secret key or its public key (only its own project's traces; a " +
    'public key only feedback scores).',
  authenticated: 'Open mode: no credential needed. Protected mode: any valid credential.',
  metrics:
    'Open mode: no credential needed. Protected mode: the metrics token (METRICS_TOKEN) or the admin token; a ' +
    'project API key is refused.',
}

/** What each error status means wherever the document lists it. */
export const ERROR_TEXT: Record<number | string, string> = {
  400: 'Invalid input; the message names the field.',
  401: 'No usable credential was presented (protected mode, or any mode for ingest).',
  403: 'The credential may not do this, or may not reach the project it names.',
  404: 'Not found (or not visible to this credential).',
  409: 'Conflicts with what is stored.',
  413: 'The body is larger than the limit.',
  415: 'The content type is not accepted; the message lists the accepted ones.',
  426: 'A plain GET: this route answers only a WebSocket upgrade.',
  '4XX':
    'A request malformed at the HTTP level (bad syntax, headers too large, a timeout), refused before any route; ' +
    'the same error shape.',
  429: 'Too many requests; `Retry-After` says when to retry.',
  503: 'The store is unavailable or the server is saturated; `Retry-After` says when to retry.',
}

/** The error statuses the plugins can answer on a route, whatever the route itself does. */
export function derivedErrorCodes(input: RouteDocInput): (number | string)[] {
  const codes = new Set<number | string>()
  const { schema } = input
  if (schema.querystring || schema.params || schema.body) codes.add(400)
  if (schema.body) {
    codes.add(413)
    codes.add(415)
  }
  if (input.access !== 'public') {
    codes.add(401)
    if (input.access !== 'authenticated') codes.add(403)
  }
  if (input.rateLimited || input.access === 'ingest') codes.add(429)
  // Every route answers 503 when the process is saturated (and those that read the store when it is down).
  codes.add(503)
  codes.add('4XX')
  return [...codes]
}

/**
 * The schema the document shows for a route: its own, plus security, the access text and every derived error
 * answer (an error a route already documents keeps its own schema). The route's schema object is not changed: it is
 * what validates requests.
 */
export function documentOperation(input: RouteDocInput): Record<string, unknown> {
  const { schema } = input
  const response = { ...((schema.response as Record<string, unknown> | undefined) ?? {}) }
  for (const code of derivedErrorCodes(input)) response[code] ??= { $ref: 'ErrorSchema' }
  for (const [code, entry] of Object.entries(response)) {
    // A success is described by what the operation does; an error by what its status means.
    const text = code.startsWith('2') ? (schema.summary as string | undefined) : ERROR_TEXT[code]
    if (text && entry && typeof entry === 'object' && !('description' in entry)) {
      response[code] = { ...entry, description: text }
    }
  }
  const description = [schema.description, ACCESS_TEXT[input.access]].filter(Boolean).join('\n\n')
  return {
    ...schema,
    description,
    security: securityOf(input.access, input.credentialInQuery),
    response,
  }
}
