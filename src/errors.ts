// Every error the services throw, defined once; the app's error handler turns them into { statusCode, error, message, code }.
import createError from '@fastify/error'

/** A setting Loupe cannot run with (at start, never in a request). Its message is one sentence naming the setting, the
 * value and what is allowed. */
export class SettingError extends Error {
  override readonly name = 'SettingError'
}

/** Seconds a client is told to wait (Retry-After) after a 503 that does not say otherwise. */
export const RETRY_AFTER_S = 5

export const TraceNotFound = createError<[string]>('LOUPE_TRACE_NOT_FOUND', "trace '%s' not found", 404)
export const ProjectNotFound = createError<[string]>('LOUPE_PROJECT_NOT_FOUND', "project '%s' not found", 404)
export const AlertRuleNotFound = createError<[string]>('LOUPE_ALERT_RULE_NOT_FOUND', "alert rule '%s' not found", 404)
export const ApiKeyNotFound = createError<[string]>('LOUPE_API_KEY_NOT_FOUND', "api key '%s' not found", 404)
export const ProjectExists = createError<[string]>(
  'LOUPE_PROJECT_EXISTS',
  "a project with project_id '%s' already exists (project_id is the slug of the name)",
  409,
)
export const TraceIdTaken = createError<[string]>(
  'LOUPE_TRACE_ID_TAKEN',
  "trace_id '%s' is already used by another project",
  409,
)
export const ModelPriceNotFound = createError<[string]>(
  'LOUPE_MODEL_PRICE_NOT_FOUND',
  "no price override for the model pattern '%s'",
  404,
)
export const SessionNotFound = createError<[string]>('LOUPE_SESSION_NOT_FOUND', "session '%s' not found", 404)
export const ScoreNotFound = createError<[string]>('LOUPE_SCORE_NOT_FOUND', "score '%s' not found", 404)
export const ScoreConfigNotFound = createError<[string]>(
  'LOUPE_SCORE_CONFIG_NOT_FOUND',
  "no score config named '%s'",
  404,
)
export const AnnotationQueueNotFound = createError<[string]>(
  'LOUPE_ANNOTATION_QUEUE_NOT_FOUND',
  "annotation queue '%s' not found",
  404,
)
export const AnnotationItemHeld = createError<[string, string]>(
  'LOUPE_ANNOTATION_ITEM_HELD',
  "trace '%s' of this queue is held by '%s' for now: ask for the next one",
  409,
)
export const ScoreConfigExists = createError<[string]>(
  'LOUPE_SCORE_CONFIG_EXISTS',
  "a score config named '%s' exists: replace it with PUT /score-configs/{name}",
  409,
)
export const EvaluatorNotFound = createError<[string]>('LOUPE_EVALUATOR_NOT_FOUND', "evaluator '%s' not found", 404)
export const EvaluatorRunNotFound = createError<[string]>(
  'LOUPE_EVALUATOR_RUN_NOT_FOUND',
  "evaluator run '%s' not found",
  404,
)
export const ScoreIdTaken = createError<[string]>(
  'LOUPE_SCORE_ID_TAKEN',
  "score_id '%s' is already used by a different score",
  409,
)
export const UserNotFound = createError<[string]>('LOUPE_USER_NOT_FOUND', "user '%s' not found", 404)
export const InvalidInput = createError<[string]>('LOUPE_INVALID_INPUT', '%s', 400)
export const MissingApiKey = createError(
  'LOUPE_MISSING_API_KEY',
  'an API key is required: send it as "Authorization: Bearer <key>" or "X-API-Key: <key>"',
  401,
)
export const InvalidApiKey = createError('LOUPE_INVALID_API_KEY', 'the API key is unknown or revoked', 401)
/** The database cannot answer; the message says what is wrong with it (store/index.ts, describeStoreUnavailable). */
export const StoreUnavailable = createError<[string]>('LOUPE_STORE_UNAVAILABLE', '%s', 503)
export const MissingCredential = createError(
  'LOUPE_MISSING_CREDENTIAL',
  'a credential is required: send the admin token or a project API key as "Authorization: Bearer <token>" or ' +
    '"X-API-Key: <token>" (on /ws also ?token=<token>)',
  401,
)
export const InvalidCredential = createError('LOUPE_INVALID_CREDENTIAL', 'the credential is unknown or revoked', 401)
export const Forbidden = createError<[string]>('LOUPE_FORBIDDEN', '%s', 403)
export const TooManyConnections = createError<[number]>(
  'LOUPE_TOO_MANY_CONNECTIONS',
  'the server already holds its maximum of %d /ws connections; try again later',
  503,
)
export const Overloaded = createError(
  'LOUPE_OVERLOADED',
  'the server is overloaded; retry after the delay in the Retry-After header',
  503,
)
export const ShuttingDown = createError(
  'LOUPE_UNAVAILABLE',
  'the server is shutting down; retry after the delay in the Retry-After header (another instance may answer sooner)',
  503,
)
export const BodyTooLarge = createError<[number]>(
  'LOUPE_BODY_TOO_LARGE',
  'the request body is larger than %d bytes once decompressed',
  413,
)
export const FeedbackBodyTooLarge = createError<[number]>(
  'LOUPE_BODY_TOO_LARGE',
  'a request with a public key may carry at most %d bytes (FEEDBACK_BODY_LIMIT)',
  413,
)
export const UnsupportedContentEncoding = createError<[string]>(
  'LOUPE_UNSUPPORTED_CONTENT_ENCODING',
  "Content-Encoding '%s' is not supported: send gzip or no encoding",
  415,
)
export const RateLimited = createError<[string]>('LOUPE_RATE_LIMITED', '%s', 429)
export const UpgradeRequired = createError(
  'LOUPE_UPGRADE_REQUIRED',
  '/ws is a WebSocket endpoint: connect with a WebSocket client (ws://<host>/ws, wss:// behind TLS; in protected mode ' +
    'add ?token=<admin token or project key>), then send {"type":"subscribe","project_id":"…"} to follow one project',
  426,
)

/**
 * The code of an error Loupe did not raise itself (Fastify's, a plugin's), by status: every error body carries a
 * LOUPE_* code from one list (docs/api.md, Errors).
 */
export const CODE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'LOUPE_INVALID_INPUT',
  404: 'LOUPE_NOT_FOUND',
  408: 'LOUPE_REQUEST_TIMEOUT',
  413: 'LOUPE_BODY_TOO_LARGE',
  414: 'LOUPE_URI_TOO_LONG',
  415: 'LOUPE_UNSUPPORTED_MEDIA_TYPE',
  429: 'LOUPE_RATE_LIMITED',
  500: 'LOUPE_INTERNAL_ERROR',
  503: 'LOUPE_UNAVAILABLE',
}
/** The code of any other status. */
export const FALLBACK_CODE = 'LOUPE_ERROR'
