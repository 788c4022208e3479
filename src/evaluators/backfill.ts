// Backfill runs: a rule run on past traces. A run enumerates the traces its rule would take (its project, its filter,
// the run's since/until, its sample), newest first, a page at a time; each page's jobs are enqueued with the page's
// position in one transaction, so a run interrupted by a restart goes on from where it stood — in whichever replica
// takes its lease next. A trace the rule has already scored, or one already waiting for it, is not enqueued again.
import type { TraceFilterQuery } from '../../schemas/index.js'
import { createWaker } from '../lib/waker.js'
import type { TraceService } from '../services/traces.js'
import type { EvaluatorRunRecord, NewEvaluationJob, Store } from '../store/types.js'
import { evaluatorScoreId, sampled } from './selection.js'

export interface BackfillDeps {
  store: Store
  traces: Pick<TraceService, 'list'>
  /** Jobs were enqueued: the worker should look. */
  enqueued(): void
  /** Traces read per page (default 500). */
  pageSize?: number
  /** How long a replica holds a run it enumerates before another may take it over. */
  leaseMs?: number
  pollMs?: number
  now?: () => number
  log: { warn(obj: object, msg: string): void }
}

export interface Backfill {
  start(): void
  stop(): Promise<void>
  /** A run was created: enumerate it now rather than at the next poll. */
  poke(): void
}

export function createBackfill(deps: BackfillDeps): Backfill {
  const { store, traces, pageSize = 500, leaseMs = 60_000, pollMs = 5000, now = Date.now, log } = deps
  let stopped = true
  let loop: Promise<void> | null = null
  const waker = createWaker()

  /** One page of a run enumerated and enqueued; false when the run has no page left (or stopped running). */
  async function page(run: EvaluatorRunRecord): Promise<boolean> {
    const rule = await store.evaluators.get(run.evaluator_id)
    if (!rule) {
      await store.evaluations.endRun(run.run_id, 'failed', 'the evaluator was deleted', now())
      return false
    }
    const since = run.since === null ? undefined : String(run.since)
    const until = run.until === null ? undefined : String(run.until)
    const query = {
      ...(rule.filter as TraceFilterQuery),
      ...(since === undefined ? {} : { since }),
      ...(until === undefined ? {} : { until }),
      limit: pageSize,
      fields: 'summary' as const,
      ...(run.cursor === null ? {} : { cursor: run.cursor }),
    }
    const found = await traces.list(query, run.project_id ?? rule.project_id)
    // The rule's sample of the page, less what it has scored already.
    const taken = found.items.filter((t) => sampled(t.trace_id, rule.sample_rate))
    const scored = await store.scores.ofTraces(taken.map((t) => t.trace_id))
    const at = now()
    const jobs: NewEvaluationJob[] = taken
      .filter(
        (t) => !scored.get(t.trace_id)?.some((s) => s.score_id === evaluatorScoreId(rule.evaluator_id, t.trace_id)),
      )
      .map((t) => ({
        project_id: t.project_id,
        evaluator_id: rule.evaluator_id,
        trace_id: t.trace_id,
        run_id: run.run_id,
        due_at: at,
        created_at: at,
      }))
    const next = found.next_cursor
    const added = await store.evaluations.advanceRun(run.run_id, jobs, next, at, at + leaseMs)
    if (added > 0) deps.enqueued()
    if (next === null) return false
    run.cursor = next
    return (await store.evaluations.getRun(run.run_id))?.status === 'running'
  }

  async function enumerate(run: EvaluatorRunRecord) {
    try {
      while (!stopped && (await page(run))) {}
    } catch (err) {
      log.warn({ err, run_id: run.run_id }, 'evaluator run: the traces could not be enumerated')
      await store.evaluations.endRun(run.run_id, 'failed', (err as Error).message, now()).catch(() => {})
    }
  }

  async function runLoop() {
    while (!stopped) {
      waker.reset()
      try {
        const run = await store.evaluations.leaseRun(now(), leaseMs)
        if (run) {
          await enumerate(run)
          continue
        }
      } catch (err) {
        log.warn({ err }, 'evaluator runs could not be read; trying again')
      }
      if (stopped) break
      await waker.pause(pollMs)
    }
  }

  return {
    start() {
      if (!stopped) return
      stopped = false
      loop = runLoop()
    },
    async stop() {
      stopped = true
      waker.poke()
      await loop
    },
    poke: waker.poke,
  }
}
