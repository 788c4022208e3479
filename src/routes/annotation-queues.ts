// /annotation-queues: queues of a project's traces to be scored by people, and the walk through one — the next trace
// for an annotator (held for them a few minutes), a trace marked done, a hold given back.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  ANNOTATION_HOLD_MS,
  AnnotationItemParams,
  AnnotationItemSchema,
  AnnotationQueueInput,
  AnnotationQueueParams,
  AnnotationQueueSchema,
  AnnotatorBody,
  errorResponses,
  ListAnnotationQueuesQuery,
  ListAnnotationQueuesResponse,
  NextAnnotationItemBody,
  NextAnnotationItemResponse,
  PutAnnotationQueueBody,
  Ref,
} from '../../schemas/index.js'

const holdMinutes = ANNOTATION_HOLD_MS / 60_000

const annotationQueues: FastifyPluginAsyncTypebox = async (app) => {
  // POST /annotation-queues
  app.post(
    '/annotation-queues',
    {
      config: { access: 'write' },
      schema: {
        tags: ['annotation'],
        operationId: 'createAnnotationQueue',
        summary: 'Create an annotation queue',
        description:
          'A queue of a project’s traces (those matching `filter`, the parameters of GET /traces) to be scored ' +
          'with the score configs `score_names` (each must exist). A project key creates queues of its own project ' +
          'only; the admin token (or open mode) names the project.',
        body: AnnotationQueueInput,
        response: { 201: Ref(AnnotationQueueSchema), ...errorResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => {
      if (request.body.project_id !== undefined) app.authorizeTarget(request, { project_id: request.body.project_id })
      return reply.code(201).send(await app.annotation.create(request.body, request.scope))
    },
  )

  // GET /annotation-queues
  app.get(
    '/annotation-queues',
    {
      config: { access: 'read' },
      schema: {
        tags: ['annotation'],
        operationId: 'listAnnotationQueues',
        summary: 'Annotation queues, newest first, each with its progress',
        querystring: ListAnnotationQueuesQuery,
        response: { 200: ListAnnotationQueuesResponse, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => app.annotation.list(request.query.project_id, request.scope),
  )

  // GET /annotation-queues/{queue_id}
  app.get(
    '/annotation-queues/:queue_id',
    {
      config: { access: 'read' },
      schema: {
        tags: ['annotation'],
        operationId: 'getAnnotationQueue',
        summary: 'One annotation queue, with its progress (done / total)',
        params: AnnotationQueueParams,
        response: { 200: Ref(AnnotationQueueSchema), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => app.annotation.get(request.params.queue_id, request.scope),
  )

  // PUT /annotation-queues/{queue_id}
  app.put(
    '/annotation-queues/:queue_id',
    {
      config: { access: 'write' },
      schema: {
        tags: ['annotation'],
        operationId: 'putAnnotationQueue',
        summary: 'Change a queue’s name, description, filter or score configs',
        description: 'Traces already marked done stay done.',
        params: AnnotationQueueParams,
        body: PutAnnotationQueueBody,
        response: { 200: Ref(AnnotationQueueSchema), ...errorResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request) => app.annotation.update(request.params.queue_id, request.body, request.scope),
  )

  // DELETE /annotation-queues/{queue_id}
  app.delete(
    '/annotation-queues/:queue_id',
    {
      config: { access: 'write' },
      schema: {
        tags: ['annotation'],
        operationId: 'deleteAnnotationQueue',
        summary: 'Delete a queue and its items (the scores given stay)',
        params: AnnotationQueueParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await app.annotation.remove(request.params.queue_id, request.scope)
      return reply.code(204).send(null)
    },
  )

  // POST /annotation-queues/{queue_id}/next
  app.post(
    '/annotation-queues/:queue_id/next',
    {
      config: { access: 'read' },
      schema: {
        tags: ['annotation'],
        operationId: 'nextAnnotationItem',
        summary: 'The next trace for an annotator, held for them',
        description:
          `The oldest trace of the queue’s filter that is not done and not held by someone else, held for this ` +
          `annotator ${holdMinutes} minutes; asking again (before it is done or given back) returns the same trace ` +
          'and holds it anew. Two annotators asking at once never get the same trace. `exclude` passes over traces ' +
          '(those the person skipped). 200 with `null` when no trace is left.',
        params: AnnotationQueueParams,
        body: NextAnnotationItemBody,
        response: {
          200: NextAnnotationItemResponse,
          ...errorResponses(400, 401, 403, 404, 415),
        },
      },
    },
    async (request) => app.annotation.next(request.params.queue_id, request.body, request.scope),
  )

  // POST /annotation-queues/{queue_id}/items/{trace_id}/done
  app.post(
    '/annotation-queues/:queue_id/items/:trace_id/done',
    {
      config: { access: 'read' },
      schema: {
        tags: ['annotation'],
        operationId: 'markAnnotationItemDone',
        summary: 'Mark a trace of the queue done (and end the hold)',
        description:
          'Idempotent: a trace already done stays done by whoever marked it first. 409 while another annotator ' +
          'holds it; 404 for a trace not in the queue’s project.',
        params: AnnotationItemParams,
        body: AnnotatorBody,
        response: { 200: Ref(AnnotationItemSchema), ...errorResponses(400, 401, 403, 404, 409, 415) },
      },
    },
    async (request) =>
      app.annotation.done(request.params.queue_id, request.params.trace_id, request.body.annotator, request.scope),
  )

  // POST /annotation-queues/{queue_id}/items/{trace_id}/release
  app.post(
    '/annotation-queues/:queue_id/items/:trace_id/release',
    {
      config: { access: 'read' },
      schema: {
        tags: ['annotation'],
        operationId: 'releaseAnnotationItem',
        summary: 'Give back a held trace (skip it): others may take it',
        description: 'Nothing changes when the annotator did not hold it.',
        params: AnnotationItemParams,
        body: AnnotatorBody,
        response: { 200: Ref(AnnotationItemSchema), ...errorResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request) =>
      app.annotation.release(request.params.queue_id, request.params.trace_id, request.body.annotator, request.scope),
  )
}

export default annotationQueues
