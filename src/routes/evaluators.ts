// Evaluator rules (GET/POST /evaluators, GET/PUT/DELETE /evaluators/{evaluator_id}), POST /evaluators/test (a rule
// run on one trace, nothing stored) and GET /evaluators/templates (the judge templates that ship).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  EvaluatorInputSchema,
  EvaluatorParams,
  EvaluatorSchema,
  errorResponses,
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
