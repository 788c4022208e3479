// POST /v1/traces: OTLP/HTTP trace export from any OpenTelemetry exporter — protobuf or JSON, optionally gzip. This
// plugin is encapsulated on purpose: its body parsers, body limit and error encoding apply to this route only.
import { gunzipSync } from 'node:zlib'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { errorResponses, OtlpExportRequest, OtlpExportResponse } from '../../schemas/index.js'
import { BodyTooLarge, InvalidInput, UnsupportedContentEncoding } from '../errors.js'
import { countSpans } from '../otlp/decode.js'
import { decodeExportRequest, encodeExportResponse, encodeRpcStatus, rpcCodeOf } from '../otlp/proto.js'
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

const otlp: FastifyPluginAsyncTypebox = async (app) => {
  const limit = app.config.otlpBodyLimit

  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    PROTOBUF_TYPES,
    { parseAs: 'buffer', bodyLimit: limit },
    async (request: FastifyRequest, body: Buffer) => {
      const bytes = decompress(request, body, limit)
      try {
        return decodeExportRequest(bytes)
      } catch (err) {
        throw new InvalidInput(`body is not a protobuf ExportTraceServiceRequest: ${(err as Error).message}`)
      }
    },
  )
  app.addContentTypeParser(
    JSON_TYPE,
    { parseAs: 'buffer', bodyLimit: limit },
    async (request: FastifyRequest, body: Buffer) => {
      const text = decompress(request, body, limit).toString('utf8')
      try {
        return JSON.parse(text)
      } catch (err) {
        throw new InvalidInput(`body is not JSON: ${(err as Error).message}`)
      }
    },
  )

  // The same errors as every route; a protobuf client gets them as the google.rpc.Status OTLP/HTTP specifies.
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const body = errorReply(err, request, reply)
    if (!isProtobuf(request)) return reply.send(body)
    return sendProtobuf(reply, encodeRpcStatus(rpcCodeOf(body.statusCode), body.message))
  })

  // POST /v1/traces
  app.post(
    '/v1/traces',
    {
      // Like every ingest route, the key is checked before the body is read: an unauthenticated export costs no
      // decoding (plugins/auth.ts).
      config: ingestConfig(),
      bodyLimit: limit,
      // The documented body is the OTLP request; spans are checked one by one by the OTLP service, so that a bad
      // span rejects itself (in partialSuccess), not the whole export. Here only "an object" is required.
      validatorCompiler: () => app.validators.body.compile(Type.Object({})),
      schema: {
        tags: ['traces'],
        operationId: 'exportOtlpTraces',
        summary: 'Receive OpenTelemetry spans (OTLP/HTTP; needs a project API key)',
        description:
          'Point any OpenTelemetry exporter here (`OTEL_EXPORTER_OTLP_ENDPOINT=http://host:port`). One Loupe trace per ' +
          'OTLP trace id: the root span gives the trace, its descendants the steps. Spans are kept durably until the ' +
          'trace is stored: OTLP_ROOT_GRACE_MS after its root span arrives, or OTLP_ROOTLESS_WAIT_MS after its last ' +
          'span when the root never comes. Re-sent spans are accepted and ignored; spans arriving after their trace ' +
          'was stored are rejected in `partialSuccess`. The answer (and any error) is in the encoding of the request.',
        consumes: [PROTOBUF, JSON_TYPE],
        produces: [PROTOBUF, JSON_TYPE],
        body: OtlpExportRequest,
        response: { 200: OtlpExportResponse, ...errorResponses(400, 401, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      app.takeIngest(request, Math.max(1, countSpans(request.body as Record<string, unknown>)))
      const result = await app.otlp.receive(request.body as Record<string, unknown>, request.apiKey!)
      const partialSuccess =
        result.rejected > 0 ? { rejectedSpans: result.rejected, errorMessage: result.message } : undefined
      if (isProtobuf(request)) return sendProtobuf(reply, encodeExportResponse(partialSuccess))
      // OTLP/JSON writes 64-bit integers as decimal strings.
      return partialSuccess ? { partialSuccess: { ...partialSuccess, rejectedSpans: String(result.rejected) } } : {}
    },
  )
}

export default otlp
