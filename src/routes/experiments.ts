// /experiments: runs of a task over a dataset as of a time (their traces carry `experiment_id`), each run's results
// item by item with its aggregates, and runs compared side by side.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  CompareExperimentsQuery,
  CompareExperimentsResponse,
  ExperimentDetailResponse,
  ExperimentInput,
  ExperimentParams,
  ExperimentSchema,
  errorResponses,
  ListExperimentsQuery,
  ListExperimentsResponse,
  Ref,
} from '../../schemas/index.js'

const experiments: FastifyPluginAsyncTypebox = async (app) => {
  // POST /experiments
  app.post(
    '/experiments',
    {
      config: { access: 'write' },
      schema: {
        tags: ['experiments'],
        operationId: 'createExperiment',
        summary: 'Start an experiment over a dataset',
        description:
          'Fixes the dataset’s version (`as_of`, default now; not in the future) and answers the `experiment_id` ' +
          'each run’s trace then carries, with the `dataset_item_id` it ran (`POST /traces`). A project key: its own ' +
          'project’s datasets only.',
        body: ExperimentInput,
        response: { 201: Ref(ExperimentSchema), ...errorResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => reply.code(201).send(await app.experiments.create(request.body, request.scope)),
  )

  // GET /experiments
  app.get(
    '/experiments',
    {
      config: { access: 'read' },
      schema: {
        tags: ['experiments'],
        operationId: 'listExperiments',
        summary: 'Experiments, newest first',
        querystring: ListExperimentsQuery,
        response: { 200: ListExperimentsResponse, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => app.experiments.list(request.query, request.scope),
  )

  // GET /experiments/compare
  app.get(
    '/experiments/compare',
    {
      config: { access: 'read' },
      schema: {
        tags: ['experiments'],
        operationId: 'compareExperiments',
        summary: 'Runs side by side: items as rows, experiments as columns, each one’s difference from the first',
        description:
          'Every item of any of the runs is a row; per experiment its run (null: not run) and its difference from ' +
          'the first experiment’s (latency, tokens, cost, each score both have). The aggregates and their ' +
          'differences likewise.',
        querystring: CompareExperimentsQuery,
        response: { 200: CompareExperimentsResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => app.experiments.compare(request.query.ids, request.scope),
  )

  // GET /experiments/{experiment_id}
  app.get(
    '/experiments/:experiment_id',
    {
      config: { access: 'read' },
      schema: {
        tags: ['experiments'],
        operationId: 'getExperiment',
        summary: 'An experiment’s results, item by item, and its aggregates',
        description:
          'Each item of the dataset as of `as_of`, with its run: the newest trace carrying the experiment’s id and ' +
          'the item’s, in short (output, status, latency, tokens, cost, its scores’ means). `pending_evaluations`: ' +
          'evaluations of its traces still to come.',
        params: ExperimentParams,
        response: { 200: ExperimentDetailResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => app.experiments.get(request.params.experiment_id, request.scope),
  )
}

export default experiments
