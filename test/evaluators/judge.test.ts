// The LLM judge against a fake OpenAI-compatible server: structured answers, text answers, answers that are not
// verdicts, and a judge that fails, rate-limits or does not answer.
import t from 'tap'
import { askJudge, firstJsonObject, type JudgeEndpoint, readVerdict } from '../../src/evaluators/judge.js'
import { startFakeJudge } from './fake-judge.js'

const numeric = { data_type: 'numeric', min: 0, max: 1 } as const
const fast = { retryBaseMs: 1, sleep: async () => {} }

async function setup(t: Parameters<typeof startFakeJudge>[0], timeoutMs = 2000) {
  const judge = await startFakeJudge(t)
  const endpoint: JudgeEndpoint = { baseUrl: judge.url, apiKey: 'sk-judge', model: 'judge-1', timeoutMs }
  return { judge, endpoint }
}

t.test('a structured answer is a verdict; the question asks for the schema with response_format', async (t) => {
  const { judge, endpoint } = await setup(t)
  judge.script({
    answer: '{"score": 0.75, "reasoning": "mostly right"}',
    usage: { prompt_tokens: 50, completion_tokens: 9 },
  })
  const out = await askJudge(endpoint, 'Is 2+2=4 answered well?', numeric)
  t.same(out, {
    verdict: { score: 0.75, reasoning: 'mostly right' },
    error: null,
    raw: '{"score": 0.75, "reasoning": "mostly right"}',
    usage: { prompt_tokens: 50, completion_tokens: 9 },
    attempts: 1,
    transient: false,
    retryAfterMs: null,
  })
  const [request] = judge.requests
  t.equal(request?.authorization, 'Bearer sk-judge')
  t.match(request?.body, {
    model: 'judge-1',
    temperature: 0,
    response_format: {
      type: 'json_schema',
      json_schema: { name: 'verdict', schema: { properties: { score: { type: 'number', minimum: 0, maximum: 1 } } } },
    },
  })
  t.match((request?.body.messages as { content: string }[] | undefined)?.[1], {
    role: 'user',
    content: 'Is 2+2=4 answered well?',
  })
})

t.test('a model that answers text: the first JSON object in it is read', async (t) => {
  t.same(firstJsonObject('Sure! ```json\n{"score": "yes {", "reasoning": "a } inside"}\n``` done'), {
    score: 'yes {',
    reasoning: 'a } inside',
  })
  t.equal(firstJsonObject('no object here'), null)
  t.same(firstJsonObject('{broken {"score": true, "reasoning": "x"}'), { score: true, reasoning: 'x' })
  t.same(
    readVerdict('{"score": "rude", "reasoning": "r"}', { data_type: 'categorical', categories: ['rude', 'kind'] }),
    {
      score: 'rude',
      reasoning: 'r',
    },
  )
  t.equal(readVerdict('{"score": 2, "reasoning": "r"}', numeric), '"score" 2 is not between 0 and 1')
  t.equal(readVerdict('{"score": 1}', numeric), 'the answer has no "reasoning" text')
  t.equal(readVerdict('{"score": 1, "reasoning": "r"}', { data_type: 'boolean' }), '"score" is not true or false')
})

t.test('an answer that is not a verdict is asked again once with the error, then is an error', async (t) => {
  const { judge, endpoint } = await setup(t)
  judge.script({ answer: 'I think it is good' }, { answer: '{"score": 1, "reasoning": "fixed"}' })
  const fixed = await askJudge(endpoint, 'q', numeric, fast)
  t.same(fixed.verdict, { score: 1, reasoning: 'fixed' })
  t.equal(fixed.attempts, 2)
  const retried = judge.requests[1]?.body.messages as { role: string; content: string }[]
  t.match(retried.at(-1), { role: 'user', content: /not usable: the answer holds no JSON object/ })
  t.same(fixed.usage, { prompt_tokens: 200, completion_tokens: 40 }, 'the tokens of both answers count')

  judge.script({ answer: '{"score": 7, "reasoning": "x"}' }, { answer: '{"score": 9, "reasoning": "y"}' })
  const wrong = await askJudge(endpoint, 'q', numeric, fast)
  t.same([wrong.verdict, wrong.error], [null, 'the judge gave no usable verdict: "score" 9 is not between 0 and 1'])
})

t.test(
  '429 with Retry-After, 500 and a timeout are asked again after a pause; past the attempts, an error',
  async (t) => {
    const { judge, endpoint } = await setup(t, 1000)
    const waits: number[] = []
    const sleep = async (ms: number) => {
      waits.push(ms)
    }
    judge.script({ status: 429, retryAfter: '2' }, { status: 503 }, { answer: '{"score": 0, "reasoning": "bad"}' })
    const out = await askJudge(endpoint, 'q', numeric, { retryBaseMs: 100, sleep })
    t.same(out.verdict, { score: 0, reasoning: 'bad' })
    t.same(waits, [2000, 200], "the judge's Retry-After, then the doubled base")

    judge.script({ hang: true }, { status: 500 }, { status: 500 })
    const down = await askJudge(endpoint, 'q', numeric, { retryBaseMs: 1, sleep: async () => {} })
    t.same([down.verdict, down.error, down.attempts], [null, 'the judge answered 500', 3])
    t.equal(down.transient, true, 'a judge that could not be asked: worth asking again later')

    judge.script({ hang: true })
    const slow = await askJudge(endpoint, 'q', numeric, { transportAttempts: 1 })
    t.equal(slow.error, 'the judge did not answer within 1000 ms')
    t.equal(slow.transient, true)
  },
)

t.test('a refusal (4xx) or an answer that is not a chat completion is an error at once', async (t) => {
  const { judge, endpoint } = await setup(t)
  judge.script({ status: 401, body: '{"error":"bad key"}' })
  const refused = await askJudge(endpoint, 'q', numeric, fast)
  t.match(refused, { verdict: null, error: /^the judge refused the question: 401/, attempts: 1 })
  judge.script({ status: 200, body: 'plain text' })
  t.match(await askJudge(endpoint, 'q', numeric, fast), { error: /not a chat completion/ })
  const nowhere = await askJudge({ ...endpoint, baseUrl: 'http://127.0.0.1:9/v1' }, 'q', numeric, {
    ...fast,
    transportAttempts: 1,
  })
  t.match(nowhere.error, /^the judge could not be reached/)
})
