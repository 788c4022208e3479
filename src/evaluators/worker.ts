// The evaluation worker: a bounded pool that works the evaluation jobs (src/store/evaluation-jobs.ts) off every
// request — ingest writes a job with its trace and never waits for it. Each job runs its rule on its trace and records
// the verdict through the one road of a score (source `evaluator`, author the rule's name, an id derived from the rule
// and the trace, so a job run again after a crash records nothing twice). A judge that cannot be asked (down, 429,
// 5xx, timeouts) puts the job back with a growing pause — its Retry-After when it gives one — however long it stays
// down; an answer that is no verdict is an evaluation error. Judge evaluations draw on a per-minute budget.
import { randomUUID } from 'node:crypto'
import { SCORE_LIMITS, type Score, type Trace } from '../../schemas/index.js'
import { NANOS_PER_USD, type Pricer } from '../costs/pricing.js'
import { createTokenBuckets } from '../lib/token-bucket.js'
import { createWaker } from '../lib/waker.js'
import type { ScoreService } from '../services/scores.js'
import type { EvaluationJob, EvaluatorRecord, JobVerdict, Store } from '../store/types.js'
import { type EvaluateDeps, type Evaluation, evaluate } from './evaluate.js'
import { evaluatorScoreId } from './selection.js'

/** What a finished job came to, as the metrics count it. */
export type EvaluationOutcome = 'scored' | 'error' | 'retried' | 'dropped'

export interface WorkerDeps {
  store: Store
  scores: Pick<ScoreService, 'recordEach'>
  /** The rule of a job, as it is now (null: deleted). */
  rule(evaluatorId: string): Promise<EvaluatorRecord | null>
  /** Every rule as it is now (the judge's rules are passed over while its budget is spent). */
  rules(): Promise<readonly EvaluatorRecord[]>
  evaluate: EvaluateDeps
  /** The expected output of an experiment's trace (a dataset item's), for a judge's `{{expected}}`. */
  expected?: (trace: Trace) => Promise<unknown>
  pricer(): Promise<Pricer>
  /** Evaluations at once (default 4). */
  concurrency?: number
  /** Judge evaluations a minute, in all (default 60). */
  judgePerMinute?: number
  /** How long a claimed job stays this worker's before another may take it (a worker that died). */
  leaseMs?: number
  /** How often the queue is looked at when nothing says a job came (other replicas' traces, retries due). */
  pollMs?: number
  /** The longest pause before a job the judge could not answer is tried again (default 10 minutes). */
  maxBackoffMs?: number
  /** True on SQLite: no other process can hold a job, so whatever was held when the last one stopped is free now. */
  soleWorker: boolean
  now?: () => number
  onOutcome?: (rule: string, outcome: EvaluationOutcome, cost: number) => void
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void }
}

export interface EvaluationWorker {
  start(): Promise<void>
  /** Stops claiming, waits for the evaluations under way (up to a while), and hands back what it still holds. */
  stop(): Promise<void>
  /** Jobs were written: look at the queue now rather than at the next poll. */
  poke(): void
  /** Resolves once no job is due now and none is running (tests, the bench). */
  idle(): Promise<void>
}

/** The judge's tokens and cost in USD, at the prices in force (0 when its model has no price). */
function spentOf(evaluation: Evaluation, model: string | null, price: Pricer) {
  const usage = evaluation.usage ?? { prompt_tokens: 0, completion_tokens: 0 }
  const nanos =
    model === null || evaluation.usage === null
      ? null
      : price(model, { input: usage.prompt_tokens, output: usage.completion_tokens, cached: 0 })
  return { ...usage, cost: nanos === null ? 0 : nanos / NANOS_PER_USD }
}

/** How long a queue found with nothing more to take is left alone, whatever pokes it. */
const CLAIM_PAUSE_MS = 200

export function createEvaluationWorker(deps: WorkerDeps): EvaluationWorker {
  const {
    store,
    scores,
    concurrency = 4,
    judgePerMinute = 60,
    pollMs = 1000,
    maxBackoffMs = 600_000,
    now = Date.now,
    onOutcome = () => {},
    log,
  } = deps
  // A job is held long enough for the judge's slowest answer: every attempt timing out, and the pauses between.
  const leaseMs = deps.leaseMs ?? Math.max(300_000, deps.evaluate.judge.timeoutMs * 6)
  const worker = `w_${randomUUID()}`
  const budget = createTokenBuckets(judgePerMinute)
  const running = new Set<Promise<void>>()
  /** Jobs claimed and not started yet (claimSize), in the order claimed, with when. */
  const held: { job: EvaluationJob; at: number }[] = []
  /** Until when the judge's budget is spent and every rule is a judge: the queue is not looked at before. */
  let starvedUntil = 0
  let stopped = true
  let loop: Promise<void> | null = null
  const waker = createWaker()
  const idlers: (() => void)[] = []
  /** Tells whoever waits for the worker to be idle. */
  const settle = () => {
    for (const idle of idlers.splice(0)) idle()
  }

  /** The verdict of a job whose evaluation gave a score: recorded through the score road. */
  async function record(job: EvaluationJob, evaluation: Evaluation, cost: number | null): Promise<string | null> {
    const score = evaluation.score!
    const [outcome] = await scores.recordEach(
      [
        {
          ...score,
          // The judge's reasoning and the rule's name as long as a score holds them.
          comment: score.comment === null ? null : score.comment.slice(0, SCORE_LIMITS.comment),
          author: score.author.slice(0, SCORE_LIMITS.author),
          metadata: cost === null ? score.metadata : { ...score.metadata, judge_cost: cost },
          score_id: evaluatorScoreId(job.evaluator_id, job.trace_id),
          trace_id: job.trace_id,
          project_id: job.project_id,
        } satisfies Partial<Score>,
      ],
      { scope: null, source: 'evaluator' },
      () => 'evaluation',
    )
    if (!outcome || outcome.ok) return null
    // Recorded before (this job ran once already, its end lost to a crash): the first verdict stands.
    if ((outcome.error as { code?: string }).code === 'LOUPE_SCORE_ID_TAKEN') return null
    return `the score was refused: ${outcome.error.message}`
  }

  async function runJob(job: EvaluationJob): Promise<void> {
    const at = now()
    const finish = (verdict: JobVerdict) => store.evaluations.finish(job, verdict, now())
    const rule = await deps.rule(job.evaluator_id)
    // A deleted rule's jobs, a disabled rule's live jobs, and a deleted trace's: nothing to do.
    const trace = rule && (rule.enabled || job.run_id !== null) ? await store.traces.get(job.trace_id) : null
    if (!rule || !trace) {
      await finish({ kind: 'dropped' })
      onOutcome(rule?.name ?? job.evaluator_id, 'dropped', 0)
      return
    }
    if (rule.kind === 'llm_judge') {
      const take = budget.take('judge', 1, at)
      if (!take.ok) {
        await store.evaluations.retry(job, at + take.retryAfterS * 1000, null, at, {
          prompt_tokens: 0,
          completion_tokens: 0,
          cost: 0,
        })
        return
      }
    }
    const config = await store.scores.getConfig(rule.score_name)
    const expected = trace.dataset_item_id && deps.expected ? await deps.expected(trace) : undefined
    const evaluation = await evaluate(rule, trace, config, deps.evaluate, expected ?? null)
    const model = rule.kind === 'llm_judge' ? judgeModel(rule) : null
    const spent = spentOf(evaluation, model, await deps.pricer())
    if (evaluation.transient) {
      const backoff = Math.min(maxBackoffMs, 5000 * 2 ** Math.min(20, job.attempts - 1))
      const wait = Math.max(backoff, evaluation.retryAfterMs ?? 0)
      await store.evaluations.retry(job, now() + wait, evaluation.error, now(), spent)
      onOutcome(rule.name, 'retried', spent.cost)
      return
    }
    const error =
      evaluation.error ??
      (evaluation.score ? await record(job, evaluation, model === null ? null : spent.cost) : 'no verdict')
    if (error === null) {
      await finish({ kind: 'scored', ...spent })
      onOutcome(rule.name, 'scored', spent.cost)
    } else {
      await finish({ kind: 'error', error, ...spent })
      onOutcome(rule.name, 'error', spent.cost)
    }
  }

  const judgeModel = (rule: EvaluatorRecord) =>
    (rule.config as { model?: string }).model ?? deps.evaluate.judge.model ?? null

  function spawn(job: EvaluationJob) {
    const task = runJob(job)
      .catch(async (err) => {
        log.error({ err, job_id: job.job_id, evaluator_id: job.evaluator_id }, 'evaluation failed; it runs again')
        // Put back a while (the store may be what failed: the lease brings it back then anyway).
        await store.evaluations
          .retry(job, now() + 30_000, (err as Error).message, now(), {
            prompt_tokens: 0,
            completion_tokens: 0,
            cost: 0,
          })
          .catch(() => {})
      })
      .finally(() => {
        running.delete(task)
        startHeld()
        waker.poke()
      })
    running.add(task)
  }

  /**
   * How many jobs to claim with `free` slots: a few more than the free slots (at most `concurrency` more, held until a
   * slot frees), so that claims — each a write transaction beside ingest's — come once for several jobs rather than
   * once a job; but no more judge jobs than the judge's budget can run now, which would only be put back (two writes
   * a job). Zero while the budget is spent and every rule is a judge: nothing could be run, so nothing is claimed.
   */
  function claimSize(free: number, tokens: number, judgeOnly: boolean): number {
    const wanted = free + Math.min(concurrency, Math.max(0, tokens - free))
    return judgeOnly ? Math.min(wanted, tokens) : wanted
  }

  /**
   * Starts held jobs in the free slots. One held past half its lease is let go instead (its lease runs out, and it is
   * claimed again): started now, it could outlive its lease and be taken by another replica while it runs.
   */
  function startHeld() {
    while (!stopped && held.length > 0 && running.size < concurrency) {
      const { job, at } = held.shift()!
      if (now() - at <= leaseMs / 2) spawn(job)
    }
  }

  async function run() {
    while (!stopped) {
      waker.reset()
      let next = pollMs
      /** The last look took less than it could (or nothing): the queue holds nothing more to take now. */
      let quiet = false
      try {
        startHeld()
        const free = concurrency - running.size
        if (free > 0 && now() < starvedUntil) {
          next = starvedUntil - now()
          if (running.size === 0) settle()
        } else if (free > 0) {
          const due = await store.evaluations.nextDue()
          const at = now()
          if (due !== null && due <= at) {
            const rules = await deps.rules()
            const judges = rules.filter((r) => r.kind === 'llm_judge').map((r) => r.evaluator_id)
            const { tokens, nextInMs } = budget.level('judge', at)
            const limit = claimSize(free, tokens, judges.length === rules.length)
            // While the judge's budget is spent, its rules' jobs stay where they are: claiming them only to put them
            // back would be two writes a job, over and over, against ingest.
            const jobs =
              limit === 0 ? [] : await store.evaluations.claim(limit, at, leaseMs, worker, tokens < 1 ? judges : [])
            for (const job of jobs) held.push({ job, at })
            startHeld()
            // More may be due: look again as soon as a slot is free.
            quiet = jobs.length < limit
            if (limit === 0) {
              starvedUntil = at + nextInMs
              next = nextInMs
            } else if (jobs.length === limit) next = pollMs
            else if (jobs.length > 0) next = 0
            // Nothing could be taken (what is due waits for the judge's budget) and nothing runs: idle.
            if (jobs.length === 0 && running.size === 0) settle()
          } else if (due !== null) next = Math.min(pollMs, due - at)
          if ((due === null || due > at) && running.size === 0) settle()
        }
      } catch (err) {
        log.warn({ err }, 'evaluation: the queue could not be read; trying again')
      }
      // Ingest pokes at every request; a queue just found with nothing more to take is not looked at again for a
      // moment, so that a stream of requests is not a stream of claims (each one a write transaction).
      if (!stopped && quiet && next > 0) await new Promise((resolve) => setTimeout(resolve, CLAIM_PAUSE_MS))
      if (!stopped) await waker.pause(next)
    }
  }

  return {
    poke: waker.poke,

    async start() {
      if (!stopped) return
      stopped = false
      if (deps.soleWorker) await store.evaluations.release(null, now())
      loop = run()
    },

    async stop() {
      stopped = true
      waker.poke()
      await loop
      // Held jobs are never started: the release below hands them back with the rest.
      held.length = 0
      // An evaluation under way gets a while to end; what is still held after that is handed back.
      const ending = Promise.allSettled([...running])
      await Promise.race([ending, new Promise((resolve) => setTimeout(resolve, 5000).unref())])
      await store.evaluations.release(worker, now()).catch(() => {})
      settle()
    },

    idle() {
      return new Promise<void>((resolve) => {
        idlers.push(resolve)
        waker.poke()
      })
    },
  }
}
