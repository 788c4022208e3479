// Evaluator rules (GET/POST /evaluators, GET/PUT/DELETE /evaluators/{evaluator_id}), POST /evaluators/test (a rule
// run on one trace, nothing stored), GET /evaluators/templates (the judge templates that ship), and backfill runs
// (POST/GET /evaluators/{evaluator_id}/runs, GET/DELETE /evaluator-runs/{run_id}).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  CreateEvaluatorRunBody,
  EvaluatorInputSchema,
  EvaluatorParams,
  EvaluatorRunParams,
  EvaluatorRunSchema,
  EvaluatorSchema,
  errorResponses,
  ListEvaluatorRunsResponse,
  ListEvaluatorsResponse,
  ListJudgeTemplatesResponse,
  Ref,
  TestEvaluatorBody,
  TestEvaluatorResponse,
} from '../../schemas/index.js'
import { EvaluatorNotFound } from '../errors.js'
import { JUDGE_TEMPLATES } from '../evaluators/templates.js'

const RULE_DOCS =
  'Checked as it will run: its kind’s `config` (a regex or JSON Schema that compiles), a `filter` of `GET /traces` ' +
  'parameters, an existing `project_id` (null: every project). Its results are scores named `score_name`, source ' +
  '`evaluator`, author the rule’s `name`.'

const evaluators: FastifyPluginAsyncTypebox = async (app) => {
  // GET /evaluators
  app.get(
    '/evaluators',
    {
      config: { access: 'read' },
      schema: {
        tags: ['evaluators'],
        operationId: 'listEvaluators',
        summary: 'Evaluator rules, oldest first',
        response: { 200: ListEvaluatorsResponse, ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const items = (await app.evaluators.list()).filter(
        (e) => request.scope === null || e.project_id === null || e.project_id === request.scope,
      )
      return { total: items.length, items }
    },
  )

  // POST /evaluators
  app.post(
    '/evaluators',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['evaluators'],
        operationId: 'createEvaluator',
        summary: 'Create an evaluator rule',
        description: RULE_DOCS,
        body: Ref(EvaluatorInputSchema),
        response: { 201: Ref(EvaluatorSchema), ...errorResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => reply.code(201).send(await app.evaluators.create(request.body)),
  )

  // GET /evaluators/{evaluator_id}
  app.get(
    '/evaluators/:evaluator_id',
    {
      config: { access: 'read' },
      schema: {
        tags: ['evaluators'],
        operationId: 'getEvaluator',
        summary: 'One evaluator rule',
        params: EvaluatorParams,
        response: { 200: Ref(EvaluatorSchema), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const evaluator = await app.evaluators.get(request.params.evaluator_id)
      // A rule of another project is answered as unknown to a project key.
      if (request.scope !== null && evaluator.project_id !== null && evaluator.project_id !== request.scope) {
        throw new EvaluatorNotFound(request.params.evaluator_id)
      }
      return evaluator
    },
  )

  // PUT /evaluators/{evaluator_id}
  app.put(
    '/evaluators/:evaluator_id',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['evaluators'],
        operationId: 'putEvaluator',
        summary: 'Create or replace an evaluator rule',
        description: `${RULE_DOCS} 201 when the id is new, 200 when the rule is replaced.`,
        params: EvaluatorParams,
        body: Ref(EvaluatorInputSchema),
        response: {
          200: Ref(EvaluatorSchema),
          201: Ref(EvaluatorSchema),
          ...errorResponses(400, 401, 403, 404, 415),
        },
      },
    },
    async (request, reply) => {
      const { created, evaluator } = await app.evaluators.replace(request.params.evaluator_id, request.body)
      return reply.code(created ? 201 : 200).send(evaluator)
    },
  )

  // DELETE /evaluators/{evaluator_id}
  app.delete(
    '/evaluators/:evaluator_id',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['evaluators'],
        operationId: 'deleteEvaluator',
        summary: 'Delete an evaluator rule (the scores it wrote stay)',
        params: EvaluatorParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await app.evaluators.remove(request.params.evaluator_id)
      return reply.code(204).send(null)
    },
  )

  // POST /evaluators/test
  app.post(
    '/evaluators/test',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['evaluators'],
        operationId: 'testEvaluator',
        summary: 'Run an evaluator rule on one trace, storing nothing',
        description:
          'Answers the score the rule would write (null, with the `error`, when it gives no verdict) and, for ' +
          '`llm_judge`, the judge’s `raw` answer. The judge is really asked (and may cost).',
        body: TestEvaluatorBody,
        response: { 200: TestEvaluatorResponse, ...errorResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request) => app.evaluators.test(request.body, request.scope),
  )

  // POST /evaluators/{evaluator_id}/runs
  app.post(
    '/evaluators/:evaluator_id/runs',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['evaluators'],
        operationId: 'startEvaluatorRun',
        summary: 'Run an evaluator rule on past traces (a backfill)',
        description:
          'Evaluates the traces the rule would take (its project, its filter, its sample) created in [since, until), ' +
          'newest first, in the background: 202 with the run, whose progress `GET /evaluator-runs/{run_id}` ' +
          'answers. A trace the rule has already scored is not evaluated again.',
        params: EvaluatorParams,
        body: CreateEvaluatorRunBody,
        response: { 202: Ref(EvaluatorRunSchema), ...errorResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await app.evaluators.startRun(request.params.evaluator_id, request.body, request.scope)),
  )

  // GET /evaluators/{evaluator_id}/runs
  app.get(
    '/evaluators/:evaluator_id/runs',
    {
      config: { access: 'read' },
      schema: {
        tags: ['evaluators'],
        operationId: 'listEvaluatorRuns',
        summary: 'A rule’s backfill runs, newest first',
        params: EvaluatorParams,
        response: { 200: ListEvaluatorRunsResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const items = await app.evaluators.listRuns(request.params.evaluator_id, request.scope)
      return { total: items.length, items }
    },
  )

  // GET /evaluator-runs/{run_id}
  app.get(
    '/evaluator-runs/:run_id',
    {
      config: { access: 'read' },
      schema: {
        tags: ['evaluators'],
        operationId: 'getEvaluatorRun',
        summary: 'A backfill run: its status, and how far it has got',
        params: EvaluatorRunParams,
        response: { 200: Ref(EvaluatorRunSchema), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => app.evaluators.getRun(request.params.run_id, request.scope),
  )

  // DELETE /evaluator-runs/{run_id}
  app.delete(
    '/evaluator-runs/:run_id',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['evaluators'],
        operationId: 'cancelEvaluatorRun',
        summary: 'Cancel a backfill run',
        description:
          'Its traces not yet evaluated are dropped (the scores written stay); answers the run, `cancelled` — or as ' +
          'it was, when it had already ended.',
        params: EvaluatorRunParams,
        response: { 200: Ref(EvaluatorRunSchema), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => app.evaluators.cancelRun(request.params.run_id, request.scope),
  )

  // GET /evaluators/templates
  app.get(
    '/evaluators/templates',
    {
      config: { access: 'read' },
      schema: {
        tags: ['evaluators'],
        operationId: 'listJudgeTemplates',
        summary: 'The judge templates that ship (helpfulness, correctness, groundedness, toxicity, refusal)',
        response: { 200: ListJudgeTemplatesResponse, ...errorResponses(401, 403) },
      },
    },
    async () => ({ total: JUDGE_TEMPLATES.length, items: [...JUDGE_TEMPLATES] }),
  )
}

export default evaluators
