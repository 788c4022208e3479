// Two traces side by side: the step alignment (a longest common subsequence of type and name) on reordered, inserted,
// deleted, retried and changed steps and on 1000-step traces; the word and line diff of texts.
import t from 'tap'
import { alignSteps, diffText, lcsPairs } from '../../schemas/align.js'
import type { Step } from '../../schemas/index.js'
import { step } from './fixtures.js'

/** Steps named by letters, in order: `'abc'` is a, b, c. */
const steps = (names: string, fields: Partial<Step> = {}) =>
  [...names].map((name, i) => step(i, { name, type: 'tool', tool: name, ...fields }))
/** Each row as `a>b:kind`, a side `-` when absent. */
const shape = (a: Step[], b: Step[]) => alignSteps(a, b).map((r) => `${r.a?.name ?? '-'}>${r.b?.name ?? '-'}:${r.kind}`)

const CASES: [string, string, string, string[]][] = [
  ['identical', 'abc', 'abc', ['a>a:same', 'b>b:same', 'c>c:same']],
  ['an inserted step', 'abc', 'abxc', ['a>a:same', 'b>b:same', '->x:added', 'c>c:same']],
  ['a deleted step', 'abc', 'ac', ['a>a:same', 'b>-:missing', 'c>c:same']],
  ['reordered steps', 'abc', 'acb', ['a>a:same', 'b>-:missing', 'c>c:same', '->b:added']],
  ['a retried step', 'abc', 'abbbc', ['a>a:same', 'b>b:same', '->b:added', '->b:added', 'c>c:same']],
  ['nothing shared', 'ab', 'xy', ['a>-:missing', 'b>-:missing', '->x:added', '->y:added']],
  ['an empty side', '', 'ab', ['->a:added', '->b:added']],
  ['both empty', '', '', []],
]

t.test('steps are aligned by type and name, in order', async (t) => {
  for (const [what, a, b, want] of CASES) t.same(shape(steps(a), steps(b)), want, what)
})

t.test('a step in both whose input, output, status or error differ is changed', async (t) => {
  const a = steps('ab')
  const b = [step(0, { ...a[0], output: { x: 2 } }), step(1, { ...a[1], status: 'failed', error: 'boom' })]
  t.same(
    alignSteps(a, b).map((r) => r.kind),
    ['changed', 'changed'],
  )
  const typed = [step(0, { ...a[0], type: 'llm' }), a[1] as Step]
  t.same(shape(a, typed), ['a>-:missing', '->a:added', 'b>b:same'], 'the same name of another type is another step')
})

t.test('1000-step traces align in well under a second', async (t) => {
  const names = (seed: number) =>
    Array.from({ length: 1000 }, (_, i) =>
      step(i, { name: `s${(i * seed) % 37}`, type: 'tool', tool: `s${(i * seed) % 37}` }),
    )
  const a = names(7)
  const b = [...names(7).slice(0, 400), ...names(11).slice(0, 100), ...names(7).slice(450)]
  const start = performance.now()
  const rows = alignSteps(a, b)
  const ms = performance.now() - start
  t.ok(ms < 1000, `aligned in ${ms.toFixed(0)} ms`)
  t.equal(rows.filter((r) => r.a).length, 1000, 'every step of A once')
  t.equal(rows.filter((r) => r.b).length, b.length, 'every step of B once')
  const indexes = (side: 'a' | 'b') => rows.flatMap((r) => (r[side] ? [r[side]?.index] : []))
  t.same(indexes('a'), [...Array(1000).keys()], 'A in its order')
  t.ok(rows.filter((r) => r.kind === 'same').length >= 900, 'the shared run is found')
})

t.test('lcsPairs is a longest common subsequence', async (t) => {
  t.same(lcsPairs([...'ABCBDAB'], [...'BDCABA']).length, 4)
  t.same(lcsPairs([], [1]), [])
})

t.test('texts are diffed word by word, long ones line by line', async (t) => {
  t.same(diffText('the cat sat', 'the dog sat'), [
    { op: 'same', text: 'the ' },
    { op: 'del', text: 'cat' },
    { op: 'add', text: 'dog' },
    { op: 'same', text: ' sat' },
  ])
  t.same(diffText('same', 'same'), [{ op: 'same', text: 'same' }])
  t.same(diffText('', 'new'), [{ op: 'add', text: 'new' }])
  const long = (changed: number) => Array.from({ length: 1500 }, (_, i) => `line ${i === changed ? 'X' : i}`).join('\n')
  const parts = diffText(long(-1), long(700))
  t.same(
    parts.filter((p) => p.op !== 'same').map((p) => p.text),
    ['line 700\n', 'line X\n'],
    'a long text: one line removed, one added',
  )
  const huge = (c: string) => Array.from({ length: 2500 }, (_, i) => `${c}${i}`).join('\n')
  t.same(
    diffText(huge('a'), huge('b')).map((p) => p.op),
    ['del', 'add'],
    'beyond the line limit: removed and added whole',
  )
})
