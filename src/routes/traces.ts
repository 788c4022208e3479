// GET /traces, GET /traces/{trace_id}, GET /traces/export, the deletions DELETE /traces and DELETE /traces/{trace_id},
// and the ingest doors POST /traces and POST /traces/batch.

import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  BatchTracesBody,
  BatchTracesResponse,
  DeleteTracesQuery,
  DeleteTracesResponse,
  EXPORT_MEDIA_TYPES,
  ExportTracesQuery,
  ExportTracesResponse,
  errorResponses,
  type Filled,
  LIMITS,
  ListTracesOrSummariesResponse,
  ListTracesQuery,
  Ref,
  TraceInputSchema,
  TraceParams,
  TraceSchema,
} from '../../schemas/index.js'
import { InvalidInput } from '../errors.js'
import { LONG_RUNNING_MS } from '../lib/time.js'
import { totalOf } from '../services/deletion.js'
import { exportTraces } from '../services/export.js'
import { traceFilter } from '../services/traces.js'
import { ingestConfig } from './ingest-options.js'

/** The envelope of a batch; each trace in it is validated on its own by the ingest service. */
const BatchEnvelope = Type.Object({
  traces: Type.Array(Type.Unknown(), { minItems: 1, maxItems: LIMITS.batch }),
})
/** What POST /traces checks before the ingest service validates the trace (and names fields as a batch does). */
const JsonObject = Type.Object({})

const traces: FastifyPluginAsyncTypebox = async (app) => {
  // Traces are JSON only: without this, Fastify's built-in text/plain parser turns a 415 into a confusing 400.
  app.removeContentTypeParser('text/plain')
  const ingest = ingestConfig()

  // GET /traces
  app.get(
    '/traces',
    {
      config: { access: 'read' },
      schema: {
        tags: ['traces'],
        operationId: 'listTraces',
        summary: 'List traces, newest first, with filters',
        description: 'Whole traces, or with `fields=summary` each trace without its bodies (a light list).',
        querystring: ListTracesQuery,
        response: { 200: ListTracesOrSummariesResponse, ...errorResponses(400) },
      },
    },
    async (request) => app.traces.list(request.query, request.scope),
  )

  // GET /traces/export
  app.get(
    '/traces/export',
    {
      handlerTimeout: LONG_RUNNING_MS,
      config: { access: 'read' },
      schema: {
        tags: ['traces'],
        operationId: 'exportTraces',
        summary: 'Export every matching trace as NDJSON or CSV, streamed',
        description:
          'Takes every filter of `GET /traces` (no paging: every match, newest first) and streams the answer in ' +
          'constant memory, so a million traces export as well as ten. Traces stored after the export began are ' +
          'not included. `Content-Disposition` names a file (`loupe-traces.ndjson` or `.csv`).',
        querystring: ExportTracesQuery,
        response: { 200: ExportTracesResponse, ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const { format, ...query } = request.query as Filled<ExportTracesQuery, 'format'>
      const stream = Readable.from(exportTraces(app.store, traceFilter(query, request.scope), format), {
        highWaterMark: 2,
      })
      // Headers are gone once the first line is: a store failure midway can only cut the answer short (and log).
      stream.on('error', (err) => request.log.error({ err }, 'export failed midway'))
      return reply
        .type(EXPORT_MEDIA_TYPES[format])
        .header('content-disposition', `attachment; filename="loupe-traces.${format}"`)
        .send(stream as never) // the typed reply knows the text the stream produces, not the stream
    },
  )

  // DELETE /traces
  app.delete(
    '/traces',
    {
      handlerTimeout: LONG_RUNNING_MS,
      config: { access: 'write' },
      schema: {
        tags: ['traces'],
        operationId: 'deleteTraces',
        summary: 'Delete every trace matching the filters',
        description:
          'Takes the filters of `GET /traces`; with none, `all=true` is required. Deletes in short batches, each ' +
          'one transaction that also takes the traces out of every analytics figure, so reads and ingest go on ' +
          'meanwhile; each deleted trace is announced on /ws as `trace.deleted`. A project key deletes only traces ' +
          'of its own project.',
        querystring: DeleteTracesQuery,
        response: { 200: DeleteTracesResponse, ...errorResponses(400) },
      },
    },
    async (request) => {
      const { all, ...query } = request.query
      const filter = traceFilter(query, request.scope)
      const named = Object.entries(query).some(([, v]) => v !== undefined)
      if (!named && all !== true) {
        throw new InvalidInput(
          'querystring names no filter: pass at least one (as GET /traces takes them), or all=true to delete every trace',
        )
      }
      return { deleted: totalOf(await app.deletion.deleteMatching(filter)) }
    },
  )

  // DELETE /traces/{trace_id}
  app.delete(
    '/traces/:trace_id',
    {
      config: { access: 'write' },
      schema: {
        tags: ['traces'],
        operationId: 'deleteTrace',
        summary: 'Delete one trace',
        description:
          'Deletes the trace and takes it out of every analytics figure in the same transaction; announced on /ws ' +
          "as `trace.deleted`. 404 for an unknown trace, and for another project's trace with a project key.",
        params: TraceParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await app.deletion.deleteTrace(request.params.trace_id, request.scope)
      return reply.code(204).send(null)
    },
  )

  // GET /traces/{trace_id}
  app.get(
    '/traces/:trace_id',
    {
      config: { access: 'read' },
      schema: {
        tags: ['traces'],
        operationId: 'getTrace',
        summary: 'One trace with its steps',
        description: "404 for an unknown trace, and for another project's trace when read with a project key.",
        params: TraceParams,
        response: { 200: Ref(TraceSchema), ...errorResponses(404) },
      },
    },
    async (request) => app.traces.get(request.params.trace_id, request.scope),
  )

  // POST /traces
  app.post(
    '/traces',
    {
      config: ingest,
      // The documented body is the trace; the ingest service validates it, naming an alias by its normalized field.
      validatorCompiler: () => app.validators.body.compile(JsonObject),
      schema: {
        tags: ['traces'],
        operationId: 'createTrace',
        summary: 'Record one trace (needs a project API key)',
        description:
          'Normalizes the trace (see docs/api.md, Normalization) and stores it. 201 when stored; 200 with the stored trace when this ' +
          'trace_id is already stored for the project (nothing changes, no event); 409 when another project holds it. ' +
          'Scores sent inline (`scores`) are checked with the trace, so a bad one is a 400 and nothing is stored, then ' +
          'recorded once the trace is; one whose `score_id` is taken by a different score is a 409 naming it, its trace stored.',
        body: Ref(TraceInputSchema),
        response: { 200: Ref(TraceSchema), 201: Ref(TraceSchema), ...errorResponses(400, 401, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      app.takeIngest(request, 1)
      const { created, trace } = await app.ingest.ingestOne(request.body, request.apiKey!)
      return reply.code(created ? 201 : 200).send(trace)
    },
  )

  // POST /traces/batch
  app.post(
    '/traces/batch',
    {
      config: ingest,
      // The documented body lists full traces; only the envelope is checked here (its text too is each trace's to
      // answer for) so that one bad trace rejects itself, not the whole batch.
      validatorCompiler: () => app.validators.body.compileEnvelope(BatchEnvelope),
      schema: {
        tags: ['traces'],
        operationId: 'createTraceBatch',
        summary: 'Record up to 1000 traces (needs a project API key)',
        body: BatchTracesBody,
        response: { 200: BatchTracesResponse, ...errorResponses(400, 401, 413, 415, 429) },
      },
    },
    async (request) => {
      app.takeIngest(request, request.body.traces.length)
      return app.ingest.ingestBatch(request.body.traces, request.apiKey!)
    },
  )
}

export default traces
