// POST /evaluators/test (a rule run on one trace, nothing stored) and GET /evaluators/templates (the judge templates
// that ship).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  errorResponses,
  ListJudgeTemplatesResponse,
  TestEvaluatorBody,
  TestEvaluatorResponse,
} from '../../schemas/index.js'
import { JUDGE_TEMPLATES } from '../evaluators/templates.js'

const evaluators: FastifyPluginAsyncTypebox = async (app) => {
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
