// The query string parser: fast-querystring's answers, except that escapes which are not UTF-8 become surrogate
// escapes (which the validators refuse) instead of staying as raw text.
import fastQuerystring from 'fast-querystring'
import t from 'tap'
import { parseQueryString } from '../../src/lib/query-string.js'

t.test('answers as fast-querystring does for every query that is UTF-8', async (t) => {
  for (const query of [
    '',
    'a=1&b=2',
    'a=1&a=2&a=3&b',
    'x=a+b%20c&y=100%&z=%25ED%25A0',
    '=v&&k==x',
    'c=%F0%9F%92%A5&d=%ZZ&e=%',
    '__proto__=1&constructor=2',
  ]) {
    t.same({ ...parseQueryString(query) }, { ...(fastQuerystring.parse(query) as object) }, query)
  }
})

t.test('bytes that are not UTF-8 become surrogate escapes, in names and values; the rest is decoded', async (t) => {
  t.same({ ...parseQueryString('q=%ED%A0%80') }, { q: '\udced\udca0\udc80' })
  t.same({ ...parseQueryString('q=caf%E9+au+lait&r=1') }, { q: 'caf\udce9 au lait', r: '1' })
  t.same({ ...parseQueryString('q=%F0%9F%92%A5%F0%9F') }, { q: '💥\udcf0\udc9f' })
  t.same({ ...parseQueryString('%ED%A0%80=1') }, { '\udced\udca0\udc80': '1' })
  t.same({ ...parseQueryString('q=100%25%E9') }, { q: '100%\udce9' })
  t.same({ ...parseQueryString('q=%E9&q=ok') }, { q: ['\udce9', 'ok'] })
  t.notOk(parseQueryString('q=%ED%A0%80').q?.toString().isWellFormed())
})
