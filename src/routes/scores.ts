// POST /scores, POST /scores/batch, GET /scores, GET and DELETE /scores/{score_id}, and the score configs
// (/score-configs): what a score name may hold.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import {
  BatchScoresBody,
  BatchScoresResponse,
  errorResponses,
  ListScoreConfigsResponse,
  ListScoresQuery,
  ListScoresResponse,
  PutScoreConfigBody,
  Ref,
  SCORE_LIMITS,
  ScoreConfigInput,
  ScoreConfigParams,
  ScoreConfigSchema,
  ScoreInputSchema,
  ScoreParams,
  ScoreSchema,
} from '../../schemas/index.js'
import { ScoreConfigExists } from '../errors.js'
import type { ScoreWriter } from '../services/scores.js'

/** The envelope of a batch; each score in it is checked on its own by the score service. */
const BatchEnvelope = Type.Object({
  scores: Type.Array(Type.Unknown(), { minItems: 1, maxItems: SCORE_LIMITS.batch }),
})
/** What POST /scores checks before the score service checks the score (and names fields as a batch does). */
const JsonObject = Type.Object({})

/** Who writes, as the score service needs it. */
const writerOf = (request: FastifyRequest): ScoreWriter => ({
  scope: request.scope,
  publicKey: request.apiKey?.kind === 'public',
})

const scores: FastifyPluginAsyncTypebox = async (app) => {
  // Scores are JSON only: without this, Fastify's built-in text/plain parser turns a 415 into a confusing 400.
  app.removeContentTypeParser('text/plain')
  // POST /scores
  app.post(
    '/scores',
    {
      config: { access: 'score' },
      schema: {
        tags: ['scores'],
        operationId: 'createScore',
        summary: 'Record a score of a trace, one of its steps, or a session',
        description:
          '201 with the stored score; a re-send of the same score (same `score_id`, same content) is 200 with the ' +
          'stored one, different content under the same id 409. A trace that is not stored, or not in the ' +
          'credential’s project, is 404; a `step_index` past its steps 400. Checked against the score config of ' +
          'its name, when there is one. With a public key (`loupe_pk_…`), only `source: feedback`.',
        body: Ref(ScoreInputSchema),
        response: {
          200: Ref(ScoreSchema),
          201: Ref(ScoreSchema),
          ...errorResponses(400, 401, 403, 404, 409, 413, 415),
        },
      },
      // The documented body is the score; the score service checks it (as it checks each score of a batch).
      validatorCompiler: () => app.validators.body.compile(JsonObject),
    },
    async (request, reply) => {
      const { created, score } = await app.scores.recordOne(request.body, writerOf(request))
      return reply.code(created ? 201 : 200).send(score)
    },
  )

  // POST /scores/batch
  app.post(
    '/scores/batch',
    {
      config: { access: 'score' },
      schema: {
        tags: ['scores'],
        operationId: 'createScoresBatch',
        summary: `Record up to ${SCORE_LIMITS.batch} scores`,
        description:
          'Each score is checked on its own, as `POST /scores` checks one: the valid ones are stored (in one ' +
          'transaction) even when others are rejected; each rejection names its index and field.',
        body: BatchScoresBody,
        response: { 200: BatchScoresResponse, ...errorResponses(400, 401, 403, 413, 415) },
      },
      // Only the envelope is checked here, so that one bad score rejects itself, not the whole batch.
      validatorCompiler: () => app.validators.body.compileEnvelope(BatchEnvelope),
    },
    async (request) => app.scores.recordBatch(request.body.scores, writerOf(request)),
  )

  // GET /scores
  app.get(
    '/scores',
    {
      config: { access: 'read' },
      schema: {
        tags: ['scores'],
        operationId: 'listScores',
        summary: 'Scores, newest first, with filters',
        querystring: ListScoresQuery,
        response: { 200: ListScoresResponse, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => app.scores.list(request.query, request.scope),
  )

  // GET /scores/{score_id}
  app.get(
    '/scores/:score_id',
    {
      config: { access: 'read' },
      schema: {
        tags: ['scores'],
        operationId: 'getScore',
        summary: 'One score',
        params: ScoreParams,
        response: { 200: Ref(ScoreSchema), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => app.scores.get(request.params.score_id, request.scope),
  )

  // DELETE /scores/{score_id}
  app.delete(
    '/scores/:score_id',
    {
      config: { access: 'write' },
      schema: {
        tags: ['scores'],
        operationId: 'deleteScore',
        summary: 'Delete a score (and take it out of every figure)',
        description: 'Announced on /ws as `score.deleted`. A project key deletes only its own project’s scores.',
        params: ScoreParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await app.scores.remove(request.params.score_id, request.scope)
      return reply.code(204).send(null)
    },
  )

  // GET /score-configs
  app.get(
    '/score-configs',
    {
      config: { access: 'read' },
      schema: {
        tags: ['scores'],
        operationId: 'listScoreConfigs',
        summary: 'Score configs, name ascending',
        response: { 200: ListScoreConfigsResponse, ...errorResponses(401, 403) },
      },
    },
    async () => {
      const items = await app.scores.listConfigs()
      return { total: items.length, items }
    },
  )

  // GET /score-configs/{name}
  app.get(
    '/score-configs/:name',
    {
      config: { access: 'read' },
      schema: {
        tags: ['scores'],
        operationId: 'getScoreConfig',
        summary: 'One score config',
        params: ScoreConfigParams,
        response: { 200: Ref(ScoreConfigSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => app.scores.getConfig(request.params.name),
  )

  const configDocs =
    'Scores of this name are checked against it from now on (400 naming the field): the data type, a numeric ' +
    'score’s `min`/`max`, a categorical score’s `categories`. Scores already stored are kept as they are.'

  // POST /score-configs
  app.post(
    '/score-configs',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['scores'],
        operationId: 'createScoreConfig',
        summary: 'Create the config of a score name',
        description: `${configDocs} 409 when the name has a config (replace it with PUT).`,
        body: ScoreConfigInput,
        response: { 201: Ref(ScoreConfigSchema), ...errorResponses(400, 401, 403, 409, 415) },
      },
    },
    async (request, reply) => {
      const { name, ...rest } = request.body
      if (await app.store.scores.getConfig(name)) throw new ScoreConfigExists(name)
      return reply.code(201).send((await app.scores.putConfig(name, rest)).config)
    },
  )

  // PUT /score-configs/{name}
  app.put(
    '/score-configs/:name',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['scores'],
        operationId: 'putScoreConfig',
        summary: 'Create or replace the config of a score name',
        description: `${configDocs} 201 when the name is new, 200 when its config is replaced.`,
        params: ScoreConfigParams,
        body: PutScoreConfigBody,
        response: {
          200: Ref(ScoreConfigSchema),
          201: Ref(ScoreConfigSchema),
          ...errorResponses(400, 401, 403, 415),
        },
      },
    },
    async (request, reply) => {
      const { created, config } = await app.scores.putConfig(request.params.name, request.body)
      return reply.code(created ? 201 : 200).send(config)
    },
  )

  // DELETE /score-configs/{name}
  app.delete(
    '/score-configs/:name',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['scores'],
        operationId: 'deleteScoreConfig',
        summary: 'Remove the config of a score name (its scores are kept; new ones are no longer checked)',
        params: ScoreConfigParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await app.scores.removeConfig(request.params.name)
      return reply.code(204).send(null)
    },
  )
}

export default scores
