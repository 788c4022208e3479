// Steps for the viewer's tests, named by their index, so each test states only what it is about.
import type { Score, ScoreConfig, Step } from '../../schemas/index.js'
import { fullStep } from '../fixtures/traces.js'

export function step(index: number, fields: Partial<Step> = {}): Step {
  return fullStep({ index, name: `s${index}`, type: 'llm', latency: 10, ...fields })
}

/** A score of trace `tr` as the server answers it; each test states the fields it is about. */
export function score(fields: Partial<Score> = {}): Score {
  return {
    score_id: 's',
    project_id: 'p',
    trace_id: 'tr',
    step_index: null,
    session_id: null,
    name: 'quality',
    data_type: 'categorical',
    value: 0,
    label: 'bad',
    comment: null,
    source: 'annotation',
    author: 'ana',
    created_at: '2026-11-28T09:00:00.000Z',
    metadata: {},
    ...fields,
  }
}

/** A score config (numeric, without bounds, unless told). */
export function scoreConfig(fields: Partial<ScoreConfig> = {}): ScoreConfig {
  return {
    name: 'x',
    data_type: 'numeric',
    min: null,
    max: null,
    categories: null,
    description: null,
    created_at: '2026-11-28T09:00:00.000Z',
    updated_at: '2026-11-28T09:00:00.000Z',
    ...fields,
  }
}
