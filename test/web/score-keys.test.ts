// What a number key gives for a score config, and which score of a person's a change replaces.
import t from 'tap'
import { keyHints, ownScore, scoreText, valueForKey } from '../../web/src/features/annotation/score-keys.js'
import { score, scoreConfig } from './fixtures.js'

const config = scoreConfig

t.test('boolean: 1 is true, 0 false, other keys nothing', async (t) => {
  const c = config({ data_type: 'boolean' })
  t.equal(valueForKey(c, '1'), true)
  t.equal(valueForKey(c, '0'), false)
  t.equal(valueForKey(c, '2'), null)
  t.equal(valueForKey(c, 'a'), null)
})

t.test('categorical: the category at the key’s position, 0 the tenth', async (t) => {
  const c = config({ data_type: 'categorical', categories: ['bad', 'ok', 'good'] })
  t.equal(valueForKey(c, '1'), 'bad')
  t.equal(valueForKey(c, '3'), 'good')
  t.equal(valueForKey(c, '4'), null)
  t.equal(valueForKey(c, '0'), null)
  const ten = config({ data_type: 'categorical', categories: Array.from({ length: 10 }, (_, i) => `c${i + 1}`) })
  t.equal(valueForKey(ten, '0'), 'c10')
  t.equal(valueForKey(config({ data_type: 'categorical' }), '1'), null, 'no categories: no key')
})

t.test('numeric: the digit as typed, within the config’s bounds', async (t) => {
  const c = config({ min: 1, max: 5 })
  t.equal(valueForKey(c, '3'), 3)
  t.equal(valueForKey(c, '0'), null)
  t.equal(valueForKey(c, '6'), null)
  t.same(
    keyHints(c).map((h) => h.key),
    ['1', '2', '3', '4', '5'],
  )
  t.equal(valueForKey(config({}), '9'), 9)
})

t.test('a person’s own score of a name, trace or step: the one a change replaces', async (t) => {
  const scores = [
    score({ score_id: 'a' }),
    score({ score_id: 'b', author: 'bob' }),
    score({ score_id: 'c', step_index: 1 }),
    score({ score_id: 'd', source: 'api' }),
  ]
  t.equal(ownScore(scores, 'quality', 'ana', null)?.score_id, 'a')
  t.equal(ownScore(scores, 'quality', 'ana', 1)?.score_id, 'c')
  t.equal(ownScore(scores, 'quality', 'cy', null), null)
  t.equal(ownScore(scores, 'quality', null, null), null)
  t.equal(scoreText(score({})), 'bad')
  t.equal(scoreText(score({ data_type: 'numeric', value: 0.5, label: null })), '0.5')
})
