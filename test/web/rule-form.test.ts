// The evaluator form's logic: each kind's config read into the form and back unchanged (and valid for the API's
// schema), the first wrong field named as the API names it, a rule's filter cleaned and its unknown filters kept, a
// judge template as the start of a rule, and a backfill's progress in figures.
import { Value } from '@sinclair/typebox/value'
import t from 'tap'
import { evaluatorStatsExample } from '../../schemas/examples.js'
import {
  EVALUATOR_CONFIGS,
  EVALUATOR_KINDS,
  type Evaluator,
  EvaluatorInputSchema,
  type EvaluatorKind,
  type JudgeTemplate,
} from '../../schemas/index.js'
import {
  applyTemplate,
  configToForm,
  draftToInput,
  draftToTry,
  EVALUATOR_KIND_LIST,
  emptyConfigForm,
  formToConfig,
  localToIso,
  newDraft,
  type RuleDraft,
  ruleToDraft,
  runProgress,
} from '../../web/src/features/evaluators/rule-form.js'

const CONFIGS: Record<EvaluatorKind, Record<string, unknown>> = {
  regex: { field: 'response', pattern: '^\\{', flags: 'i', expect: 'no_match' },
  contains: { field: 'prompt', words: ['refund', 'cancel order'], mode: 'all', case_sensitive: true },
  json: { field: 'step_output' },
  json_schema: { field: 'response', schema: { type: 'object', required: ['answer'] } },
  length: { field: 'response', min: 10, max: 2000 },
  latency: { max_ms: 1500 },
  cost: { max_usd: 0.02 },
  pii: { field: 'response', detectors: ['email', 'phone'] },
  llm_judge: { template: 'Rate {{response}}', model: 'gpt-4o-mini', base_url: 'http://127.0.0.1:9/v1' },
}

t.test('the form offers every kind the API has', async (t) => {
  t.same([...EVALUATOR_KIND_LIST].sort(), [...EVALUATOR_KINDS].sort())
})

t.test('each kind’s config goes into the form and comes back the same, valid for the API', async (t) => {
  for (const kind of EVALUATOR_KINDS) {
    const back = formToConfig(kind, configToForm(kind, CONFIGS[kind]))
    t.same(back, { ok: true, value: CONFIGS[kind] }, kind)
    if (back.ok) t.ok(Value.Check(EVALUATOR_CONFIGS[kind], back.value), `${kind}: the schema takes it`)
  }
})

t.test('the fields left empty are left out, not sent as empty', async (t) => {
  const form = { ...emptyConfigForm(), pattern: 'x', max: '100', template: 'T' }
  t.same(formToConfig('regex', form), { ok: true, value: { field: 'response', pattern: 'x', expect: 'match' } })
  t.same(formToConfig('length', form), { ok: true, value: { field: 'response', max: 100 } })
  t.same(formToConfig('pii', form), { ok: true, value: { field: 'response' } }, 'no detector ticked: every one')
  t.same(formToConfig('llm_judge', form), { ok: true, value: { template: 'T' } })
  const words = { ...emptyConfigForm(), words: ' refund \n\n  \nmoney back' }
  t.same(formToConfig('contains', words), {
    ok: true,
    value: { field: 'response', words: ['refund', 'money back'], mode: 'any', case_sensitive: false },
  })
})

t.test('a wrong setting is named as the API names it', async (t) => {
  const cases: [EvaluatorKind, Partial<ReturnType<typeof emptyConfigForm>>, RegExp][] = [
    ['regex', { pattern: '' }, /^config\/pattern is required/],
    ['regex', { pattern: '(' }, /^config\/pattern is not a usable regex/],
    ['regex', { pattern: 'a', flags: 'g' }, /^config\/flags/],
    ['contains', { words: ' \n ' }, /^config\/words/],
    ['json_schema', { schema: '{nope' }, /^config\/schema is not JSON/],
    ['json_schema', { schema: '[1]' }, /^config\/schema must be a JSON object/],
    ['length', {}, /^config needs a min or a max/],
    ['length', { min: '1.5' }, /^config\/min must be a whole number/],
    ['length', { max: '-1' }, /^config\/max must be a number/],
    ['length', { min: '10', max: '5' }, /^config\/min must not be above/],
    ['latency', {}, /^config\/max_ms is required/],
    ['cost', { max_usd: 'cheap' }, /^config\/max_usd must be a number/],
    ['llm_judge', { template: '  ' }, /^config\/template is required/],
    ['llm_judge', { template: 'T', base_url: 'ftp://x' }, /^config\/base_url/],
  ]
  for (const [kind, patch, message] of cases) {
    const result = formToConfig(kind, { ...emptyConfigForm(), ...patch })
    t.equal(result.ok, false, `${kind} ${JSON.stringify(patch)}`)
    if (!result.ok) t.match(result.error, message)
  }
})

const draft = (over: Partial<RuleDraft>): RuleDraft => ({
  ...newDraft(),
  name: 'valid-json',
  score_name: 'json_valid',
  ...over,
})

t.test('a draft becomes the rule the API takes', async (t) => {
  const result = draftToInput(
    draft({
      project_id: 'acme',
      sample_rate: '0.25',
      enabled: false,
      filter: { status: 'failed', model: ' gpt-4o ', min_latency: '250', max_cost: 'lots', q: '', environment: 'prod' },
      otherFilter: { score_name: 'thumbs' },
    }),
  )
  t.ok(result.ok)
  if (!result.ok) return
  t.same(result.value, {
    name: 'valid-json',
    project_id: 'acme',
    // A value GET /traces would refuse (a cost that is no number, an unknown environment) is left out, as the trace
    // list leaves it out of its URL; a filter the form has no field for is kept.
    filter: { score_name: 'thumbs', status: 'failed', model: 'gpt-4o', min_latency: 250 },
    sample_rate: 0.25,
    score_name: 'json_valid',
    enabled: false,
    kind: 'json',
    config: { field: 'response' },
  })
  t.ok(Value.Check(EvaluatorInputSchema, result.value), 'the API’s schema takes it')
  const everyProject = draftToInput(draft({ sample_rate: '' }))
  t.match(everyProject, { ok: true, value: { project_id: null, sample_rate: 1, filter: {} } })
})

t.test('a draft missing what a rule needs is refused, naming the field', async (t) => {
  t.match(draftToInput(draft({ name: ' ' })), { ok: false, error: /^name/ })
  t.match(draftToInput(draft({ score_name: '' })), { ok: false, error: /^score_name/ })
  t.match(draftToInput(draft({ sample_rate: '1.5' })), { ok: false, error: /^sample_rate/ })
  t.match(draftToInput(draft({ sample_rate: 'half' })), { ok: false, error: /^sample_rate/ })
  t.match(draftToInput(draft({ kind: 'latency' })), { ok: false, error: /^config\/max_ms/ })
})

t.test('a rule is tried before it is named; its settings must still be right', async (t) => {
  t.match(draftToTry(draft({ name: '', score_name: ' ' })), {
    ok: true,
    value: { name: 'unsaved rule', score_name: 'json', kind: 'json' },
  })
  t.match(draftToTry(draft({ name: 'mine', score_name: 'ok' })), {
    ok: true,
    value: { name: 'mine', score_name: 'ok' },
  })
  t.match(draftToTry(draft({ name: '', kind: 'regex' })), { ok: false, error: /^config\/pattern/ })
})

t.test('a stored rule read into the form and saved again is the same rule', async (t) => {
  for (const kind of EVALUATOR_KINDS) {
    const rule: Evaluator = {
      evaluator_id: 'ev_1',
      name: `rule-${kind}`,
      project_id: kind === 'json' ? null : 'acme',
      filter: { model: 'gpt-4o', min_tokens: 10, score_name: 'thumbs', min_score: 1 },
      sample_rate: 0.5,
      score_name: 'check',
      enabled: kind !== 'cost',
      kind,
      config: CONFIGS[kind],
      created_at: '2026-11-28T09:00:00.000Z',
      updated_at: '2026-11-28T09:00:00.000Z',
      stats: evaluatorStatsExample,
    }
    const { evaluator_id: _i, created_at: _c, updated_at: _u, stats: _s, ...input } = rule
    t.same(draftToInput(ruleToDraft(rule)), { ok: true, value: input }, kind)
  }
})

t.test('a judge template starts an llm_judge rule, naming it only where no name was typed', async (t) => {
  const template: JudgeTemplate = {
    id: 'helpfulness',
    description: 'Helpful?',
    template: 'Rate {{response}}',
    score: { data_type: 'numeric', min: 0, max: 1 },
  }
  const fresh = applyTemplate(newDraft(), template)
  t.match(fresh, { kind: 'llm_judge', name: 'helpfulness', score_name: 'helpfulness' })
  t.equal(fresh.config.template, 'Rate {{response}}')
  const named = applyTemplate({ ...newDraft(), name: 'mine', score_name: 'help' }, template)
  t.match(named, { name: 'mine', score_name: 'help', config: { template: 'Rate {{response}}' } })
})

t.test('a backfill’s progress: done of total, and a total still growing said to be one', async (t) => {
  const run = (over: Partial<Parameters<typeof runProgress>[0]>) =>
    runProgress({ status: 'running', done: 0, total: 0, enumerated: false, ...over })
  t.same(run({}), { share: 0, text: '0 / 0+ (still counting)' })
  t.same(run({ done: 30, total: 120, enumerated: true }), { share: 0.25, text: '30 / 120' })
  t.same(run({ done: 1500, total: 1500, enumerated: false }), {
    share: 0.99,
    text: '1,500 / 1,500+ (still counting)',
  })
  t.same(run({ status: 'done', done: 0, total: 0, enumerated: true }), { share: 1, text: '0 / 0' })
  t.same(run({ status: 'done', done: 4, total: 4, enumerated: true }), { share: 1, text: '4 / 4' })
  t.same(run({ status: 'cancelled', done: 2, total: 8, enumerated: false }), { share: 0.25, text: '2 / 8' })
})

t.test('a datetime-local value becomes a UTC timestamp; empty is no bound', async (t) => {
  t.same(localToIso(''), { ok: true, value: undefined })
  const result = localToIso('2026-11-28T10:30')
  t.same(result, { ok: true, value: new Date(2026, 10, 28, 10, 30).toISOString() })
  t.match(localToIso('yesterday'), { ok: false, error: /not a date/ })
})
