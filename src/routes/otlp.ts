// POST /v1/traces and POST /v1/logs: OTLP/HTTP trace and log export from any OpenTelemetry exporter — protobuf or
// JSON, optionally gzip — and /api/public/otel/v1/traces, the same route where Langfuse's SDK sends its spans. This
// plugin is encapsulated on purpose: its body parsers, body limit and error encoding apply to these routes only.
// Text that is not valid Unicode becomes U+FFFD, as a UTF-8 decoder makes of bytes that are not UTF-8: a lone UTF-16
// surrogate in OTLP/JSON here, such bytes in protobuf by the decoder (otlp/proto.ts). Refusing the export would lose
// its good spans and records.
import { gunzipSync } from 'node:zlib'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import {
  errorResponses,
  OtlpExportRequest,
  OtlpExportResponse,
  OtlpLogsExportRequest,
  OtlpLogsExportResponse,
} from '../../schemas/index.js'
import { BodyTooLarge, InvalidInput, UnsupportedContentEncoding } from '../errors.js'
import { makeWellFormed } from '../lib/well-formed.js'
import { countItems } from '../otlp/decode.js'
import {
  decodeExportRequest,
  encodeExportResponse,
  encodeLogsExportResponse,
  encodeRpcStatus,
  locateDecodeError,
  type OtlpSignal,
  rpcCodeOf,
  SIGNAL_REQUEST_NAMES,
} from '../otlp/proto.js'
import { errorReply } from '../plugins/errors.js'
import { ingestConfig } from './ingest-options.js'

const PROTOBUF = 'application/x-protobuf'
const PROTOBUF_TYPES = [PROTOBUF, 'application/protobuf']
const JSON_TYPE = 'application/json'

/** OTLP answers in the encoding it was sent: protobuf for protobuf, JSON otherwise. */
const isProtobuf = (request: FastifyRequest) =>
  /^application\/(x-)?protobuf\b/i.test(String(request.headers['content-type'] ?? ''))

/** Sends protobuf bytes as they are (Fastify sends a Buffer without serializing it). */
const sendProtobuf = (reply: FastifyReply, bytes: Uint8Array) => reply.type(PROTOBUF).send(Buffer.from(bytes))

/** The body as the exporter encoded it, gunzipped when it says so; never more than `limit` bytes once inflated. */
function decompress(request: FastifyRequest, body: Buffer, limit: number): Buffer {
  const encoding = String(request.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase()
  if (encoding === '' || encoding === 'identity') return body
  if (encoding !== 'gzip' && encoding !== 'x-gzip') throw new UnsupportedContentEncoding(encoding)
  try {
    return gunzipSync(body, { maxOutputLength: limit })
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw new BodyTooLarge(limit)
    throw new InvalidInput(`body is not valid gzip data: ${(err as Error).message}`)
  }
}

/** Text fit for an HTTP status line: printable ASCII only, and short. */
const reasonPhrase = (text: string) => text.replace(/[^\x20-\x7e]/g, '?').slice(0, 300)

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Which signal a request exports, by the route it came to. */
const signalOf = (request: FastifyRequest): OtlpSignal =>
  (request.routeOptions.url ?? request.url).endsWith('/logs') ? 'logs' : 'traces'

/** The nesting of each signal's export in OTLP/JSON (and proto) names: resources, scopes, items. */
const SHAPES = {
  traces: { resource: ['resourceSpans', 'resource_spans'], scope: ['scopeSpans', 'scope_spans'], item: 'spans' },
  logs: { resource: ['resourceLogs', 'resource_logs'], scope: ['scopeLogs', 'scope_logs'], item: 'logRecords' },
} as const

/**
 * What is structurally wrong with an OTLP/JSON export, naming the field (`body/resourceSpans/0/scopeSpans must be an
 * array`), or null. Only the structure down to each span (or log record) is checked here; a span's own content is the
 * OTLP service's to judge, span by span (a bad span is rejected in partialSuccess, not the whole export).
 */
export function wrongShape(body: unknown, signal: OtlpSignal = 'traces'): string | null {
  const shape = SHAPES[signal]
  if (!isObject(body)) return `body must be an ${SIGNAL_REQUEST_NAMES[signal]} object`
  const arrayAt = (
    value: unknown,
    path: string,
    each: string,
    check?: (item: unknown, at: string) => string | null,
  ) => {
    if (value === undefined || value === null) return null
    if (!Array.isArray(value)) return `${path} must be an array of ${each}`
    for (const [i, item] of value.entries()) {
      if (!isObject(item))
        return `${path}/${i} must be ${each === 'spans' ? 'a span' : each === 'logRecords' ? 'a log record' : `a ${each.replace(/s$/, '')}`} object`
      const deeper = check?.(item, `${path}/${i}`)
      if (deeper) return deeper
    }
    return null
  }
  const field = (o: Record<string, unknown>, camel: string, snake: string) => (camel in o ? camel : snake)
  const scopeItems = (scope: unknown, at: string) => {
    const o = scope as Record<string, unknown>
    const name = signal === 'logs' ? field(o, 'logRecords', 'log_records') : 'spans'
    return arrayAt(o[name], `${at}/${name}`, shape.item)
  }
  const resourceItems = (resource: unknown, at: string) => {
    const o = resource as Record<string, unknown>
    const name = field(o, shape.scope[0], shape.scope[1])
    return arrayAt(o[name], `${at}/${name}`, shape.scope[0], scopeItems)
  }
  const name = field(body, shape.resource[0], shape.resource[1])
  return arrayAt(body[name], `body/${name}`, shape.resource[0], resourceItems)
}

const otlp: FastifyPluginAsyncTypebox = async (app) => {
  const limit = app.config.otlpBodyLimit

  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    PROTOBUF_TYPES,
    { parseAs: 'buffer', bodyLimit: limit },
    async (request: FastifyRequest, body: Buffer) => {
      const bytes = decompress(request, body, limit)
      const signal = signalOf(request)
      try {
        return decodeExportRequest(bytes, signal)
      } catch (err) {
        const where = locateDecodeError(bytes, signal) ?? (err as Error).message
        throw new InvalidInput(`body is not a protobuf ${SIGNAL_REQUEST_NAMES[signal]}: ${where}`)
      }
    },
  )
  app.addContentTypeParser(
    JSON_TYPE,
    { parseAs: 'buffer', bodyLimit: limit },
    async (request: FastifyRequest, body: Buffer) => {
      const text = decompress(request, body, limit).toString('utf8')
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch (err) {
        throw new InvalidInput(`body is not JSON: ${(err as Error).message}`)
      }
      const wrong = wrongShape(parsed, signalOf(request))
      if (wrong) throw new InvalidInput(wrong)
      return makeWellFormed(parsed)
    },
  )

  // The same errors as every route; a protobuf client gets them as the google.rpc.Status OTLP/HTTP specifies.
  // The reason also goes into the HTTP status line: the OpenTelemetry exporters report it as their error message.
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const body = errorReply(err, request, reply)
    reply.raw.statusMessage = reasonPhrase(`${body.error}: ${body.message}`)
    if (!isProtobuf(request)) return reply.send(body)
    return sendProtobuf(reply, encodeRpcStatus(rpcCodeOf(body.statusCode), body.message))
  })

  // Like every ingest route, the key is checked before the body is read: an unauthenticated export costs no decoding
  // (plugins/auth.ts). HTTP Basic is accepted here, as SDKs made for other services send their keys so.
  const config = { ...ingestConfig(), accepts: [PROTOBUF, JSON_TYPE], credentialInBasic: true }
  // The documented body is the OTLP request; spans are checked one by one by the OTLP service, so that a bad span
  // rejects itself (in partialSuccess), not the whole export. Here only "an object" is required.
  const anyObject = () => app.validators.body.compileEnvelope(Type.Object({}))

  const exportTraces = async (request: FastifyRequest, reply: FastifyReply) => {
    app.takeIngest(request, Math.max(1, countItems(request.body as Record<string, unknown>, 'traces')))
    const result = await app.otlp.receive(request.body as Record<string, unknown>, request.apiKey!)
    const partialSuccess =
      result.rejected > 0 ? { rejectedSpans: result.rejected, errorMessage: result.message } : undefined
    if (isProtobuf(request)) return sendProtobuf(reply, encodeExportResponse(partialSuccess))
    // OTLP/JSON writes 64-bit integers as decimal strings.
    return partialSuccess ? { partialSuccess: { ...partialSuccess, rejectedSpans: String(result.rejected) } } : {}
  }
  const tracesSchema = {
    tags: ['traces'],
    consumes: [PROTOBUF, JSON_TYPE],
    produces: [PROTOBUF, JSON_TYPE],
    body: OtlpExportRequest,
    response: { 200: OtlpExportResponse, ...errorResponses(400, 401, 413, 415, 429) },
  }

  // POST /v1/traces
  app.post(
    '/v1/traces',
    {
      config,
      bodyLimit: limit,
      validatorCompiler: anyObject,
      schema: {
        ...tracesSchema,
        operationId: 'exportOtlpTraces',
        summary: 'Receive OpenTelemetry spans (OTLP/HTTP; needs a project API key)',
        description:
          'Point any OpenTelemetry exporter here (`OTEL_EXPORTER_OTLP_ENDPOINT=http://host:port`). One Loupe trace per ' +
          'OTLP trace id: the root span gives the trace, its descendants the steps. Spans are kept durably until the ' +
          'trace is stored: OTLP_ROOT_GRACE_MS after its root span arrives, or OTLP_ROOTLESS_WAIT_MS after its last ' +
          'span when the root never comes. Re-sent spans are accepted and ignored; spans arriving after their trace ' +
          'was stored are rejected in `partialSuccess`. The answer (and any error) is in the encoding of the request. ' +
          'The key may also come as HTTP Basic credentials (as password or user).',
      },
    },
    exportTraces,
  )

  // POST /api/public/otel/v1/traces
  app.post(
    '/api/public/otel/v1/traces',
    {
      config,
      bodyLimit: limit,
      validatorCompiler: anyObject,
      schema: {
        ...tracesSchema,
        operationId: 'exportOtlpTracesLangfusePath',
        summary: 'Receive OpenTelemetry spans where Langfuse SDKs send them (the same as POST /v1/traces)',
        description:
          "The path Langfuse's SDKs export to (`<base>/api/public/otel/v1/traces`), so that one of them needs only a " +
          'new base URL: the same route as `POST /v1/traces`, with the same answers. Their `Authorization: Basic ' +
          'base64(publicKey:secretKey)` is accepted when either half is a Loupe project key. `langfuse.*` attributes ' +
          'are read like the OpenTelemetry GenAI conventions.',
      },
    },
    exportTraces,
  )

  // POST /v1/logs
  app.post(
    '/v1/logs',
    {
      config,
      bodyLimit: limit,
      validatorCompiler: anyObject,
      schema: {
        tags: ['traces'],
        operationId: 'exportOtlpLogs',
        summary: 'Receive OpenTelemetry GenAI log records (OTLP/HTTP; needs a project API key)',
        description:
          'Where instrumentations that send prompts and answers as log records (the OpenTelemetry OpenAI ' +
          'instrumentation with `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`) export them. A GenAI ' +
          'event record (`gen_ai.*`, named by `eventName` or the `event.name` attribute) that carries a trace and ' +
          'span id is kept durably beside the spans of its trace, before or after they arrive, and folded into the ' +
          'messages of the span it names when the trace is stored. One that names no span that arrives within the ' +
          'pending window is counted (`/health` `otlp.unmatched_log_records`, `/metrics`) and logged; one that ' +
          'arrives after its trace was stored is rejected in `partialSuccess`. Every other log record is accepted ' +
          'and ignored. The same encodings, authentication, limits and answers as `POST /v1/traces`.',
        consumes: [PROTOBUF, JSON_TYPE],
        produces: [PROTOBUF, JSON_TYPE],
        body: OtlpLogsExportRequest,
        response: { 200: OtlpLogsExportResponse, ...errorResponses(400, 401, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      app.takeIngest(request, Math.max(1, countItems(request.body as Record<string, unknown>, 'logs')))
      const result = await app.otlp.receiveLogs(request.body as Record<string, unknown>, request.apiKey!)
      const partialSuccess =
        result.rejected > 0 ? { rejectedLogRecords: result.rejected, errorMessage: result.message } : undefined
      if (isProtobuf(request)) return sendProtobuf(reply, encodeLogsExportResponse(partialSuccess))
      return partialSuccess
        ? { partialSuccess: { ...partialSuccess, rejectedLogRecords: String(result.rejected) } }
        : {}
    },
  )
}

export default otlp
