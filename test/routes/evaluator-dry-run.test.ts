// POST /evaluators/test and GET /evaluators/templates: a rule run on one trace, nothing stored, on the store under
// test; the judge is a fake OpenAI-compatible server.
import t from 'tap'
import { startFakeJudge } from '../evaluators/fake-judge.js'
import { buildTestApp, createProject, postTrace } from '../helper.js'

const rule = (fields: Record<string, unknown>) => ({ name: 'check', score_name: 'ok', ...fields })

t.test('a deterministic rule on a trace: the score it would write, nothing stored', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Eval')
  await postTrace(app, key, { trace_id: 'tr-1', prompt: 'JSON please', response: 'Sure! Here: {"a": 1}' })
  const test = (evaluator: unknown, trace_id = 'tr-1') =>
    app.inject({ method: 'POST', url: '/evaluators/test', payload: { evaluator, trace_id } })
  const res = await test(rule({ kind: 'json', config: { field: 'response' } }))
  t.equal(res.statusCode, 200, res.body)
  t.match(res.json(), {
    score: { name: 'ok', data_type: 'boolean', value: 0, label: 'false', source: 'evaluator', author: 'check' },
    error: null,
    raw: null,
  })
  t.match(res.json().score.comment, /^the response is not valid JSON/)
  const passes = await test(
    rule({ kind: 'regex', config: { field: 'response', pattern: '\\{.*\\}', expect: 'match' } }),
  )
  t.match(passes.json(), { score: { value: 1, label: 'true' } })
  const none = await test(rule({ kind: 'cost', config: { max_usd: 1 } }))
  t.same(none.json(), { score: null, error: 'the trace is unpriced: its cost is not known', raw: null })
  t.equal((await app.inject('/scores')).json().total, 0, 'nothing was stored')

  const badPattern = await test(rule({ kind: 'regex', config: { field: 'response', pattern: '(', expect: 'match' } }))
  t.equal(badPattern.statusCode, 400)
  t.match(badPattern.json().message, /^body\/evaluator\/config\/pattern is not a usable regex/)
  const badConfig = await test(rule({ kind: 'contains', config: { field: 'response', words: [], mode: 'any' } }))
  t.equal(badConfig.statusCode, 400)
  t.match(badConfig.json().message, /body\/evaluator\/config\/words/)
  const badFilter = await test(rule({ kind: 'json', config: { field: 'response' }, filter: { modle: 'x' } }))
  t.equal(badFilter.statusCode, 400)
  t.match(badFilter.json().message, 'body/evaluator/filter/modle is not a filter of GET /traces')
  const badKind = await test(rule({ kind: 'vibes', config: {} }))
  t.equal(badKind.statusCode, 400)
  t.equal((await test(rule({ kind: 'json', config: { field: 'response' } }), 'nope')).statusCode, 404)
})

t.test('an llm_judge rule asks the judge with its template filled in; its verdict fits the score config', async (t) => {
  const judge = await startFakeJudge(t)
  const app = await buildTestApp(t, {
    config: { judgeBaseUrl: judge.url, judgeApiKey: 'sk-server-judge', judgeModel: 'judge-1' },
  })
  const { key } = await createProject(app, 'Eval')
  await postTrace(app, key, {
    trace_id: 'tr-1',
    prompt: 'Capital of France?',
    response: 'Paris.',
    metadata: { topic: 'geo' },
  })
  await app.inject({
    method: 'PUT',
    url: '/score-configs/helpfulness',
    payload: { data_type: 'numeric', min: 1, max: 5 },
  })
  judge.script({ answer: '{"score": 4, "reasoning": "short but right"}' })
  const judged = await app.inject({
    method: 'POST',
    url: '/evaluators/test',
    payload: {
      trace_id: 'tr-1',
      evaluator: rule({
        name: 'helpful-judge',
        score_name: 'helpfulness',
        kind: 'llm_judge',
        config: { template: 'Q: {{prompt}} A: {{response}} topic={{metadata.topic}} {{unknown}}' },
      }),
    },
  })
  t.equal(judged.statusCode, 200, judged.body)
  t.match(judged.json(), {
    score: {
      name: 'helpfulness',
      data_type: 'numeric',
      value: 4,
      comment: 'short but right',
      author: 'helpful-judge',
      metadata: { judge_model: 'judge-1', judge_usage: { prompt_tokens: 100, completion_tokens: 20 } },
    },
    error: null,
    raw: '{"score": 4, "reasoning": "short but right"}',
  })
  const asked = judge.requests[0]!
  t.equal(asked.authorization, 'Bearer sk-server-judge')
  t.match(
    (asked.body.messages as { content: string }[])[1]?.content,
    'Q: Capital of France? A: Paris. topic=geo {{unknown}}',
  )
  t.match(asked.body, {
    response_format: { json_schema: { schema: { properties: { score: { minimum: 1, maximum: 5 } } } } },
  })

  judge.script({ answer: 'no idea' }, { answer: '{"score": 9, "reasoning": "x"}' })
  const wrong = await app.inject({
    method: 'POST',
    url: '/evaluators/test',
    payload: {
      trace_id: 'tr-1',
      evaluator: rule({ score_name: 'helpfulness', kind: 'llm_judge', config: { template: 'x' } }),
    },
  })
  t.match(wrong.json(), {
    score: null,
    error: /no usable verdict: "score" 9 is not between 1 and 5/,
    raw: /"score": 9/,
  })

  // A rule that names its own judge: the server's key is not sent there.
  const own = await startFakeJudge(t)
  await app.inject({
    method: 'POST',
    url: '/evaluators/test',
    payload: {
      trace_id: 'tr-1',
      evaluator: rule({ kind: 'llm_judge', config: { template: 'x', base_url: own.url, model: 'other' } }),
    },
  })
  t.equal(own.requests.length, 1)
  t.equal(own.requests[0]?.authorization, undefined)
  t.equal(own.requests[0]?.body.model, 'other')
})

t.test('without a judge configured, an llm_judge rule says so; the templates that ship are listed', async (t) => {
  const app = await buildTestApp(t)
  const { key } = await createProject(app, 'Eval')
  await postTrace(app, key, { trace_id: 'tr-1', prompt: 'p' })
  const res = await app.inject({
    method: 'POST',
    url: '/evaluators/test',
    payload: { trace_id: 'tr-1', evaluator: rule({ kind: 'llm_judge', config: { template: 'x' } }) },
  })
  t.match(res.json(), { score: null, error: /^no judge is configured: set LOUPE_JUDGE_BASE_URL/ })
  const templates = (await app.inject('/evaluators/templates')).json()
  t.same(
    templates.items.map((x: { id: string }) => x.id),
    ['helpfulness', 'correctness', 'groundedness', 'toxicity', 'refusal'],
  )
})
