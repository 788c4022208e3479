// Finding and repairing text that is not valid Unicode in parsed JSON: paths as ajv names fields, keys, any depth.
import t from 'tap'
import { illFormedText, makeWellFormed } from '../../src/lib/well-formed.js'

t.test('illFormedText names the first lone surrogate by its JSON pointer, or says there is none', async (t) => {
  t.equal(illFormedText({ a: 'fine', b: ['💥', { c: 'é' }], n: 1, z: null, ok: true }), null)
  t.equal(illFormedText('💥'), null)
  t.same(illFormedText('\ud800'), { path: '', key: false })
  t.same(illFormedText({ a: { b: [0, 'x', 'a\udc00b'] } }), { path: '/a/b/2', key: false })
  t.same(illFormedText({ 'a/b': { '~': '\udfff\ud800' } }), { path: '/a~1b/~0', key: false })
  t.same(illFormedText({ a: { '\ud800': 1 } }), { path: '/a', key: true })
  t.same(illFormedText(['\udc00']), { path: '/0', key: false })
  t.equal(illFormedText(Buffer.from([0xed, 0xa0, 0x80])), null, 'bytes are not text')
})

t.test('any depth is walked without overflowing the call stack', async (t) => {
  let deep: unknown = '\ud800'
  for (let i = 0; i < 200_000; i++) deep = [deep]
  const found = illFormedText(deep)
  t.equal(found?.path.split('/').length, 200_001)
  makeWellFormed(deep)
  t.equal(illFormedText(deep), null)
})

t.test('makeWellFormed replaces each lone surrogate with U+FFFD, in values and keys, and keeps the rest', async (t) => {
  const value = { a: '\ud800', b: ['a\udc00b', 'ok'], c: { '\udfff\ud800': 'v', '💥': 1 }, d: 2 }
  t.same(makeWellFormed(value), { a: '\ufffd', b: ['a\ufffdb', 'ok'], c: { '\ufffd\ufffd': 'v', '💥': 1 }, d: 2 })
  t.equal(makeWellFormed('x\ud800'), 'x\ufffd')
  t.same(makeWellFormed({ '\ufffd': 'kept', '\ud800': 'repaired' }), { '\ufffd': 'kept' }, 'an existing key wins')
})
