// How costs, compact numbers and search matches read in the viewer.
import t from 'tap'
import { axisWidth } from '../../web/src/features/dashboard/chart-data.js'
import { formatCompact, formatCost, formatScore } from '../../web/src/ui/format.js'
import { highlight } from '../../web/src/ui/highlight.js'

t.test('formatCost: unpriced is said, never $0; small amounts keep two significant digits', async (t) => {
  t.equal(formatCost(null), 'unpriced')
  t.equal(formatCost(0), '$0')
  t.equal(formatCost(1234.5), '$1,235')
  t.equal(formatCost(12.345), '$12.35')
  t.equal(formatCost(0.0125), '$0.0125')
  t.equal(formatCost(0.001234), '$0.0012')
  t.equal(formatCost(0.000045), '$0.000045')
  t.equal(formatCost(0.000000001), '$0.000000001', 'a nano-dollar')
})

t.test('formatCompact: a number in few characters for an axis', async (t) => {
  t.equal(formatCompact(0), '0')
  t.equal(formatCompact(950), '950')
  t.equal(formatCompact(0.25), '0.25')
  t.equal(formatCompact(12_345), '12K')
  t.equal(formatCompact(1_500), '1.5K')
  t.equal(formatCompact(4_500_000), '4.5M')
  t.equal(formatCompact(12_345_678), '12M')
  t.equal(formatCompact(3e9), '3B')
})

t.test('axisWidth: a y axis is as wide as its widest label, so long labels are not cut', async (t) => {
  const measure = (text: string) => text.length * 7
  t.equal(axisWidth(['0', '5,000,000', '10,000,000'], measure), 10 * 7 + 4)
  t.ok(axisWidth(['12,345,678'], measure) > axisWidth(['12M'], measure))
  t.equal(axisWidth(null, measure), 4, 'no labels yet')
})

t.test('highlight marks every occurrence of every word, whatever the case', async (t) => {
  const marked = (text: string, q: string | undefined) =>
    highlight(text, q)
      .map((s) => (s.match ? `[${s.text}]` : s.text))
      .join('')
  t.equal(marked('Refund my REFUND', 'refund'), '[Refund] my [REFUND]')
  t.equal(marked('refunded order', 'refund order'), '[refund]ed [order]')
  t.equal(marked('aaaa', 'aa'), '[aaaa]', 'overlapping matches join')
  t.equal(marked('返金をお願いします', '返金'), '[返金]をお願いします')
  t.equal(marked('nothing here', 'refund'), 'nothing here')
  t.equal(marked('nothing here', undefined), 'nothing here')
  t.same(
    highlight('İstanbul', 'istanbul'),
    [{ text: 'İstanbul', match: false }],
    'unmarked when lower-casing moves letters',
  )
})

t.test('formatScore: a mean to 3 decimals (or as told), trailing zeros dropped, none a dash', async (t) => {
  t.equal(formatScore(0.525), '0.525')
  t.equal(formatScore(0.5254), '0.525')
  t.equal(formatScore(0.5), '0.5')
  t.equal(formatScore(1), '1')
  t.equal(formatScore(100), '100')
  t.equal(formatScore(0), '0')
  t.equal(formatScore(-2.5), '-2.5')
  t.equal(formatScore(-0.0001), '0', 'no negative zero')
  t.equal(formatScore(2 / 3, 2), '0.67')
  t.equal(formatScore(null), '—')
})
