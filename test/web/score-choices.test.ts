// Which score names the trace list's filter bar offers, and how each is filtered: by a range or by a label.
import t from 'tap'
import type { ScoreAnalytics } from '../../schemas/index.js'
import { scoreChoices, scoreControl } from '../../web/src/features/traces/score-choices.js'
import { scoreConfig } from './fixtures.js'

const config = scoreConfig

const given = (over: Partial<ScoreAnalytics>): ScoreAnalytics => ({
  name: 'x',
  data_type: 'numeric',
  count: 1,
  mean: 1,
  labels: [],
  series: [],
  ...over,
})

t.test('every name configured or given, once, name ascending, with its type and labels', async (t) => {
  const choices = scoreChoices(
    [
      given({ name: 'thumbs', data_type: 'boolean', labels: [{ label: 'true', count: 3 }] }),
      given({ name: 'quality', data_type: 'categorical', mean: null, labels: [{ label: 'meh', count: 1 }] }),
      given({ name: 'helpfulness' }),
      given({ name: 'tone', data_type: 'categorical', mean: null, labels: [{ label: 'warm', count: 2 }] }),
    ],
    [
      config({ name: 'quality', data_type: 'categorical', categories: ['bad', 'ok', 'good'] }),
      config({ name: 'accuracy' }),
      config({ name: 'tone', data_type: 'numeric' }),
    ],
  )
  t.same(choices, [
    { name: 'accuracy', data_type: 'numeric', labels: [] },
    { name: 'helpfulness', data_type: 'numeric', labels: [] },
    { name: 'quality', data_type: 'categorical', labels: ['bad', 'ok', 'good', 'meh'] },
    { name: 'thumbs', data_type: 'boolean', labels: ['true', 'false'] },
    { name: 'tone', data_type: 'numeric', labels: [] },
  ])
})

t.test('a name from the URL that nothing knows is offered, its type unknown', async (t) => {
  t.same(scoreChoices([], [], 'legacy'), [{ name: 'legacy', data_type: null, labels: [] }])
  t.same(scoreChoices([given({ name: 'legacy' })], [], 'legacy'), [
    { name: 'legacy', data_type: 'numeric', labels: [] },
  ])
  t.same(scoreChoices([], []), [])
  t.same(
    scoreChoices([], [config({ name: '__proto__', data_type: 'boolean' })]).map((c) => c.name),
    ['__proto__'],
    'any name is a name',
  )
})

t.test(
  'a numeric score is filtered by a range, a categorical or boolean one by a label, an unknown by either',
  async (t) => {
    t.same(scoreControl({ name: 'a', data_type: 'numeric', labels: [] }), { range: true, label: false })
    t.same(scoreControl({ name: 'a', data_type: 'categorical', labels: ['x'] }), { range: false, label: true })
    t.same(scoreControl({ name: 'a', data_type: 'boolean', labels: ['true', 'false'] }), { range: false, label: true })
    t.same(scoreControl({ name: 'a', data_type: null, labels: [] }), { range: true, label: true })
    t.same(scoreControl(undefined), { range: true, label: true })
  },
)
