// The comparison grid's colours: a run improved on the baseline's or regressed from it, by its scores first, then by
// whether it failed.
import t from 'tap'
import type { ExperimentRun } from '../../schemas/index.js'
import { cellTrend } from '../../web/src/features/datasets/trend.js'

const run = (status: ExperimentRun['status'], scores: Record<string, number> = {}): ExperimentRun => ({
  trace_id: 't',
  status,
  output: null,
  error: null,
  latency: 1,
  token_count: 1,
  cost: null,
  scores,
})
const delta = (scores: Record<string, number>) => ({ latency: 0, token_count: 0, cost: 0, scores })

t.test('a cell is improved, regressed or the same as the baseline', async (t) => {
  const cases: [string, ReturnType<typeof delta> | null, ExperimentRun, ExperimentRun | null, string][] = [
    ['a higher score', delta({ c: 0.5 }), run('success'), run('success'), 'improved'],
    ['a lower score', delta({ c: -0.5 }), run('success'), run('success'), 'regressed'],
    ['one score down, one up: down wins', delta({ a: 1, b: -1 }), run('success'), run('success'), 'regressed'],
    ['equal scores, now failed', delta({ c: 0 }), run('failed'), run('success'), 'regressed'],
    ['equal scores, no longer failed', delta({}), run('success'), run('failed'), 'improved'],
    ['nothing changed', delta({ c: 0 }), run('success'), run('success'), 'same'],
    ['the baseline column', null, run('success'), null, 'same'],
  ]
  for (const [what, d, r, base, want] of cases) t.equal(cellTrend(d, r, base), want, what)
})
