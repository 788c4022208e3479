// The deterministic evaluators, one by one: what passes, what fails and why, and when there is no verdict.
import t from 'tap'
import { DETERMINISTIC_CONFIGS, type DeterministicCheck } from '../../schemas/index.js'
import { createSchemaCompiler, fieldText, runCheck } from '../../src/evaluators/checks.js'
import { fullStep, fullTrace } from '../fixtures/traces.js'

const compile = createSchemaCompiler()
const judge = (check: DeterministicCheck, trace = fullTrace()) => runCheck(check, trace, compile)

const answer = fullTrace({
  prompt: 'Write my order as JSON',
  response: '{"order": 42, "email": "ana@example.com"}',
  latency: 812.5,
  cost: 0.0021,
  steps: [
    fullStep({ input: 'lookup 42', output: { found: true } }),
    fullStep({ index: 1, input: null, output: 'done' }),
  ],
})

t.test('the text a check reads: prompt, response, or the steps’ inputs and outputs a line each', async (t) => {
  t.equal(fieldText(answer, 'prompt'), 'Write my order as JSON')
  t.equal(fieldText(answer, 'step_input'), 'lookup 42')
  t.equal(fieldText(answer, 'step_output'), '{"found":true}\ndone')
  t.equal(fieldText(fullTrace(), 'response'), null)
  t.equal(fieldText(fullTrace(), 'step_output'), null)
})

t.test('regex: match or no_match, with the match quoted', async (t) => {
  t.same(
    judge({ kind: 'regex', config: { field: 'response', pattern: '"order":\\s*\\d+', expect: 'match' } }, answer),
    {
      passed: true,
      comment: 'the response matches /"order":\\s*\\d+/ at "\\"order\\": 42"',
    },
  )
  t.match(judge({ kind: 'regex', config: { field: 'response', pattern: 'ORDER', expect: 'match' } }, answer), {
    passed: false,
  })
  t.match(
    judge({ kind: 'regex', config: { field: 'response', pattern: 'ORDER', flags: 'i', expect: 'no_match' } }, answer),
    { passed: false },
  )
  t.same(judge({ kind: 'regex', config: { field: 'response', pattern: 'x', expect: 'match' } }), {
    error: 'the trace has no response',
  })
})

t.test('contains: any, all, none, case-insensitive unless asked', async (t) => {
  const words = ['ORDER', 'refund']
  t.match(judge({ kind: 'contains', config: { field: 'response', words, mode: 'any' } }, answer), { passed: true })
  t.match(judge({ kind: 'contains', config: { field: 'response', words, mode: 'all' } }, answer), {
    passed: false,
    comment: 'the response contains "ORDER", not "refund"',
  })
  t.match(judge({ kind: 'contains', config: { field: 'response', words, mode: 'none' } }, answer), { passed: false })
  t.match(
    judge({ kind: 'contains', config: { field: 'response', words, mode: 'any', case_sensitive: true } }, answer),
    { passed: false, comment: 'the response contains none of "ORDER", "refund"' },
  )
})

t.test('json and json_schema', async (t) => {
  t.same(judge({ kind: 'json', config: { field: 'response' } }, answer), {
    passed: true,
    comment: 'the response is valid JSON',
  })
  t.match(judge({ kind: 'json', config: { field: 'prompt' } }, answer), {
    passed: false,
    comment: /^the prompt is not valid JSON: /,
  })
  const schema = { type: 'object', required: ['order', 'status'], properties: { order: { type: 'integer' } } }
  t.same(judge({ kind: 'json_schema', config: { field: 'response', schema } }, answer), {
    passed: false,
    comment: "the response does not meet the schema: (the value) must have required property 'status'",
  })
  t.match(
    judge({ kind: 'json_schema', config: { field: 'response', schema: { ...schema, required: ['order'] } } }, answer),
    { passed: true },
  )
})

t.test('length counts characters, not UTF-16 units', async (t) => {
  const emoji = fullTrace({ response: '👍👍👍' })
  t.same(judge({ kind: 'length', config: { field: 'response', max: 3 } }, emoji), {
    passed: true,
    comment: 'the response has 3 characters (≤ 3)',
  })
  t.match(judge({ kind: 'length', config: { field: 'response', min: 4, max: 10 } }, emoji), { passed: false })
})

t.test('latency and cost thresholds; an unpriced trace gets no verdict', async (t) => {
  t.same(judge({ kind: 'latency', config: { max_ms: 1000 } }, answer), {
    passed: true,
    comment: 'latency 812.5 ms ≤ 1000 ms',
  })
  t.match(judge({ kind: 'latency', config: { max_ms: 800 } }, answer), { passed: false })
  t.match(judge({ kind: 'cost', config: { max_usd: 0.001 } }, answer), { passed: false })
  t.same(judge({ kind: 'cost', config: { max_usd: 1 } }, fullTrace()), {
    error: 'the trace is unpriced: its cost is not known',
  })
})

t.test('pii: the redaction detectors, all or some', async (t) => {
  t.same(judge({ kind: 'pii', config: { field: 'response' } }, answer), {
    passed: false,
    comment: 'the response contains personal data: email',
  })
  t.match(judge({ kind: 'pii', config: { field: 'response', detectors: ['card', 'phone'] } }, answer), {
    passed: true,
  })
  t.match(judge({ kind: 'pii', config: { field: 'prompt' } }, fullTrace({ prompt: 'card 4111 1111 1111 1111' })), {
    passed: false,
    comment: /card/,
  })
})

t.test('every kind has a config schema', async (t) => {
  t.same(Object.keys(DETERMINISTIC_CONFIGS).sort(), [
    'contains',
    'cost',
    'json',
    'json_schema',
    'latency',
    'length',
    'pii',
    'regex',
  ])
})
