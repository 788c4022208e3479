// The item editor's text ⇄ value: what it shows is read back as the same value, and typed JSON objects and arrays are
// JSON while any other text stays text (as a CSV import reads a cell).
import t from 'tap'
import { editable, parseEditable } from '../../web/src/features/datasets/item-content.js'

t.test('a value shown in the editor reads back as itself', async (t) => {
  for (const value of ['Paris', { question: 'capital?', country: 'France' }, ['a', 1, null], 'multi\nline']) {
    t.same(parseEditable(editable(value)), value, JSON.stringify(value))
  }
})

t.test('objects and arrays are JSON; any other text is text', async (t) => {
  const cases: [string, unknown][] = [
    ['{"a": 1}', { a: 1 }],
    ['  [1, 2]\n', [1, 2]],
    ['42', '42'],
    ['true', 'true'],
    ['{not json', '{not json'],
    ['', ''],
  ]
  for (const [text, value] of cases) t.same(parseEditable(text), value, JSON.stringify(text))
  t.equal(editable(null), '', 'no expected output: an empty box')
  t.equal(editable(7), '7')
})
