// Whether a run improved on the baseline's or regressed from it: its scores first (a higher score is better), then, with
// scores equal, a failure against a success. What the comparison grid colours a cell by.
import type { ExperimentDelta, ExperimentRun } from '../../../../schemas/index.js'

export type Trend = 'improved' | 'regressed' | 'same'

export function cellTrend(delta: ExperimentDelta | null, run: ExperimentRun, base: ExperimentRun | null): Trend {
  if (!delta || !base) return 'same'
  const scores = Object.values(delta.scores)
  if (scores.some((d) => d < 0)) return 'regressed'
  if (scores.some((d) => d > 0)) return 'improved'
  if (run.status === 'failed' && base.status !== 'failed') return 'regressed'
  if (run.status !== 'failed' && base.status === 'failed') return 'improved'
  return 'same'
}
