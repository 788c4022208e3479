// Steps for the viewer's tests, named by their index, so each test states only what it is about.
import type { Step } from '../../schemas/index.js'
import { fullStep } from '../fixtures/traces.js'

export function step(index: number, fields: Partial<Step> = {}): Step {
  return fullStep({ index, name: `s${index}`, type: 'llm', latency: 10, ...fields })
}
