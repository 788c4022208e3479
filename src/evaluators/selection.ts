// Which evaluator rules a trace is due for: enabled, of its project (or of every project), its filter matching as
// GET /traces would match it (schemas/trace-filter.ts), and within the rule's sample — chosen by the trace id alone,
// so a re-run picks the same traces, and two rules at the same rate pick the same traces (their verdicts compare).
import { matchesFilter, type Trace, type TraceFilterFields } from '../../schemas/index.js'
import { derivedScoreId } from '../services/scores.js'
import type { EvaluatorRecord } from '../store/types.js'

/** Where a trace id falls in [0, 1): FNV-1a (32 bits) of its UTF-16 code units. */
export function samplePoint(traceId: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < traceId.length; i++) {
    hash ^= traceId.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash / 2 ** 32
}

/** Whether a trace is within a rule's sample. */
export const sampled = (traceId: string, rate: number): boolean => rate >= 1 || samplePoint(traceId) < rate

/** Whether a rule takes traces of this project, and this trace under its filter (the sample aside). */
export function ruleMatches(rule: EvaluatorRecord, trace: Trace): boolean {
  if (rule.project_id !== null && rule.project_id !== trace.project_id) return false
  return matchesFilter(trace, rule.filter as TraceFilterFields, trace)
}

/** The ids of the rules a newly stored trace is due for. */
export function dueRules(rules: readonly EvaluatorRecord[], trace: Trace): string[] {
  const due: string[] = []
  for (const rule of rules) {
    if (rule.enabled && sampled(trace.trace_id, rule.sample_rate) && ruleMatches(rule, trace)) {
      due.push(rule.evaluator_id)
    }
  }
  return due
}

/** The id of the score a rule gives a trace: the same every time, so a job run twice records one score. */
export const evaluatorScoreId = (evaluatorId: string, traceId: string): string =>
  derivedScoreId('evaluator', evaluatorId, traceId)
