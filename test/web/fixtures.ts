// Steps for the viewer's tests, every StepSchema field written out, so each test states only what it is about.
import type { Step } from '../../schemas/index.js'

export function step(index: number, fields: Partial<Step> = {}): Step {
  return {
    index,
    name: `s${index}`,
    type: 'llm',
    tool: null,
    status: 'success',
    latency: 10,
    token_count: null,
    input: null,
    output: null,
    error: null,
    started_at: null,
    metadata: {},
    parent_index: null,
    cost: null,
    ...fields,
  }
}
