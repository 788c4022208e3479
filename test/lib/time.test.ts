// parseTimestamp: every accepted form, and the ones it refuses.
import t from 'tap'
import { parseTimestamp, toUtcIso, toZonelessIso } from '../../src/lib/time.js'

const ms = Date.UTC(2026, 10, 21, 13, 45, 0, 123)

t.test('accepted forms fold to the same UTC instant', async (t) => {
  const cases: [unknown, number][] = [
    ['2026-11-21T13:45:00.123Z', ms],
    ['2026-11-21T13:45:00.123', ms],
    ['2026-11-21T15:45:00.123+02:00', ms],
    ['2026-11-21T08:45:00.123-0500', ms],
    ['2026-11-21 13:45:00.123Z', ms],
    ['2026-11-21T13:45:00.123456Z', ms],
    [ms, ms],
    [ms / 1000, ms],
    [String(ms), ms],
    ['2026-11-21', Date.UTC(2026, 10, 21)],
    [1_700_000_000, 1_700_000_000_000],
  ]
  for (const [input, expected] of cases) t.equal(parseTimestamp(input), expected, String(input))
})

t.test('impossible or malformed values are refused', async (t) => {
  for (const bad of [
    '',
    'yesterday',
    '2026-02-30T00:00:00Z',
    '2026-13-01',
    '2026-11-21T25:00:00Z',
    -5,
    Number.NaN,
    null,
    {},
    1e17,
  ]) {
    t.equal(parseTimestamp(bad), null, JSON.stringify(bad))
  }
})

t.test('output forms: traces with Z, projects and keys without a zone', async (t) => {
  t.equal(toUtcIso(ms), '2026-11-21T13:45:00.123Z')
  t.equal(toZonelessIso(ms), '2026-11-21T13:45:00.123')
})
