// GET /models, GET/PUT/DELETE /models/{pattern} (price overrides) and POST /costs/recompute (re-pricing).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  errorResponses,
  ListModelPricesResponse,
  ModelPriceParams,
  ModelPriceSchema,
  PutModelPriceBody,
  RecomputeCostsBody,
  RecomputeCostsResponse,
  Ref,
} from '../../schemas/index.js'
import { LONG_RUNNING_MS, parseTimestamp } from '../lib/time.js'
import { acceptJsonOrNothing, mergeQueryIntoBody } from './merge-input.js'

const models: FastifyPluginAsyncTypebox = async (app) => {
  acceptJsonOrNothing(app)

  // GET /models
  app.get(
    '/models',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['costs'],
        operationId: 'listModelPrices',
        summary: 'Price overrides, pattern ascending',
        description: 'Models without an override are priced from the price database that ships with Loupe.',
        response: { 200: ListModelPricesResponse, ...errorResponses(401, 403) },
      },
    },
    async () => {
      const items = await app.prices.list()
      return { total: items.length, items }
    },
  )

  // GET /models/{pattern}
  app.get(
    '/models/:pattern',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['costs'],
        operationId: 'getModelPrice',
        summary: 'One price override',
        params: ModelPriceParams,
        response: { 200: Ref(ModelPriceSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => app.prices.get(request.params.pattern),
  )

  // PUT /models/{pattern}
  app.put(
    '/models/:pattern',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['costs'],
        operationId: 'putModelPrice',
        summary: 'Set the price of the models matching a pattern',
        description:
          'Applies to traces stored from now on (within seconds on other replicas); `POST /costs/recompute` prices ' +
          'stored traces again. 201 when the pattern is new, 200 when its price is replaced.',
        params: ModelPriceParams,
        body: PutModelPriceBody,
        response: { 200: Ref(ModelPriceSchema), 201: Ref(ModelPriceSchema), ...errorResponses(400, 401, 403, 415) },
      },
    },
    async (request, reply) => {
      const { created, price } = await app.prices.put(request.params.pattern, request.body)
      return reply.code(created ? 201 : 200).send(price)
    },
  )

  // DELETE /models/{pattern}
  app.delete(
    '/models/:pattern',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['costs'],
        operationId: 'deleteModelPrice',
        summary: 'Remove a price override (matching models fall back to the price database)',
        params: ModelPriceParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await app.prices.remove(request.params.pattern)
      return reply.code(204).send(null)
    },
  )

  // POST /costs/recompute
  app.post(
    '/costs/recompute',
    {
      preValidation: mergeQueryIntoBody,
      handlerTimeout: LONG_RUNNING_MS,
      config: { access: 'admin' },
      schema: {
        tags: ['costs'],
        operationId: 'recomputeCosts',
        summary: 'Price stored traces again with the prices in force',
        description:
          'Costs a client reported are kept; every other cost is worked out again. Traces are re-priced oldest first ' +
          'in chunks, each chunk with its rollups in one transaction, so every figure stays exact meanwhile. ' +
          '`since` may come from the query string or a JSON body.',
        querystring: Type.Partial(RecomputeCostsBody),
        body: RecomputeCostsBody,
        response: { 200: RecomputeCostsResponse, ...errorResponses(400, 401, 403, 415) },
      },
    },
    async (request) => {
      const { since } = request.body
      return app.prices.recompute(since === undefined ? undefined : (parseTimestamp(since) ?? undefined))
    },
  )
}

export default models
