// Evaluation jobs, backfill runs and each rule's figures, written once for both databases: the reads over a dialect's
// Query, the writes as plans (plan.ts) that each dialect runs in one of its transactions (sqlite/evaluations.ts,
// postgres/evaluations.ts).
//
// A job is one rule to run on one trace. Live jobs are written with their trace, in its transaction (the trace writes
// of each dialect insert `jobRowsOf`), so a crash loses none. A worker claims jobs by moving their `due_at` a lease
// ahead — on PostgreSQL with `for update skip locked`, so replicas pass over each other's claims — and a job whose
// worker died is due again when its lease runs out. A verdict deletes the job and counts it for its rule (and its
// run) in one transaction: a job is finished once, whoever ran it.

import { type Plan, type PlanDialect, run } from './plan.js'
import type { Query } from './read-queries.js'
import type { PricedTrace } from './reported-cost.js'
import type {
  EvaluationJob,
  EvaluationStore,
  EvaluatorRunRecord,
  EvaluatorStatsRecord,
  JobVerdict,
  NewEvaluationJob,
} from './types.js'

const JOB_COLUMNS =
  'job_id, project_id, evaluator_id, trace_id, run_id, attempts, due_at, claimed_by, last_error, created_at'
const RUN_COLUMNS =
  'run_id, evaluator_id, project_id, since, until, status, total, done, errors, cost, cursor, enumerated, ' +
  'lease_until, last_error, created_at, finished_at'

const epoch = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))

const jobOf = (r: Record<string, unknown>): EvaluationJob => ({
  job_id: Number(r.job_id),
  project_id: r.project_id as string,
  evaluator_id: r.evaluator_id as string,
  trace_id: r.trace_id as string,
  run_id: (r.run_id as string | null) ?? null,
  attempts: Number(r.attempts),
  due_at: Number(r.due_at),
  claimed_by: (r.claimed_by as string | null) ?? null,
  last_error: (r.last_error as string | null) ?? null,
  created_at: Number(r.created_at),
})

const runOf = (r: Record<string, unknown>): EvaluatorRunRecord => ({
  run_id: r.run_id as string,
  evaluator_id: r.evaluator_id as string,
  project_id: (r.project_id as string | null) ?? null,
  since: epoch(r.since),
  until: epoch(r.until),
  status: r.status as EvaluatorRunRecord['status'],
  total: Number(r.total),
  done: Number(r.done),
  errors: Number(r.errors),
  cost: Number(r.cost),
  cursor: (r.cursor as string | null) ?? null,
  enumerated: r.enumerated === true || r.enumerated === 1,
  lease_until: epoch(r.lease_until),
  last_error: (r.last_error as string | null) ?? null,
  created_at: Number(r.created_at),
  finished_at: epoch(r.finished_at),
})

/** The live jobs of newly stored traces: one per rule each is due for, due at once. */
export function jobRowsOf(created: readonly PricedTrace[]): NewEvaluationJob[] {
  return created.flatMap(({ trace, evaluations }) =>
    (evaluations ?? []).map((evaluator_id) => ({
      project_id: trace.project_id,
      evaluator_id,
      trace_id: trace.trace_id,
      run_id: null,
      due_at: 0,
      created_at: Date.parse(trace.created_at),
    })),
  )
}

/** Inserts jobs, skipping a (rule, trace) already waiting: how many were added. */
function* enqueue(jobs: readonly NewEvaluationJob[]): Plan<number> {
  let added = 0
  for (const j of jobs) {
    const rows = yield* run(
      (b) =>
        `insert into evaluation_jobs (project_id, evaluator_id, trace_id, run_id, attempts, due_at, created_at)
         values (${b(j.project_id)}, ${b(j.evaluator_id)}, ${b(j.trace_id)}, ${b(j.run_id)}, 0, ${b(j.due_at)},
                 ${b(j.created_at)})
         on conflict (evaluator_id, trace_id) do nothing returning job_id`,
    )
    added += rows.length
  }
  return added
}

/** The next jobs due, each leased to `worker` until `now + leaseMs` (its attempts counted). */
function* claim(
  d: PlanDialect,
  limit: number,
  now: number,
  leaseMs: number,
  worker: string,
  skip: readonly string[],
): Plan<EvaluationJob[]> {
  const due = yield* run(
    (b) =>
      `select job_id, project_id from evaluation_jobs where due_at <= ${b(now)}
       ${skip.length === 0 ? '' : `and not (${d.inList(b, 'evaluator_id', skip)})`}
       order by due_at, job_id limit ${b(limit)} ${d.skipLocked}`,
  )
  const claimed: EvaluationJob[] = []
  for (const r of due) {
    const rows = yield* run(
      (b) =>
        `update evaluation_jobs set due_at = ${b(now + leaseMs)}, claimed_by = ${b(worker)}, attempts = attempts + 1
         where project_id = ${b(r.project_id)} and job_id = ${b(r.job_id)} returning ${JOB_COLUMNS}`,
    )
    if (rows[0]) claimed.push(jobOf(rows[0]))
  }
  return claimed
}

/** Moves a rule's figures (made empty the first time). */
function* bumpStats(
  evaluatorId: string,
  fields: { evaluated: number; errors: number; error: string | null; at: number; cost: number } & Tokens,
): Plan<void> {
  yield* run(
    (b) =>
      `insert into evaluator_stats (evaluator_id, evaluated, errors, last_error, last_error_at, last_evaluated_at,
         prompt_tokens, completion_tokens, cost)
       values (${b(evaluatorId)}, ${b(fields.evaluated)}, ${b(fields.errors)}, ${b(fields.error)},
               ${b(fields.error === null ? null : fields.at)}, ${b(fields.evaluated > 0 ? fields.at : null)},
               ${b(fields.prompt_tokens)}, ${b(fields.completion_tokens)}, ${b(fields.cost)})
       on conflict (evaluator_id) do update set
         evaluated = evaluator_stats.evaluated + excluded.evaluated,
         errors = evaluator_stats.errors + excluded.errors,
         last_error = coalesce(excluded.last_error, evaluator_stats.last_error),
         last_error_at = coalesce(excluded.last_error_at, evaluator_stats.last_error_at),
         last_evaluated_at = coalesce(excluded.last_evaluated_at, evaluator_stats.last_evaluated_at),
         prompt_tokens = evaluator_stats.prompt_tokens + excluded.prompt_tokens,
         completion_tokens = evaluator_stats.completion_tokens + excluded.completion_tokens,
         cost = evaluator_stats.cost + excluded.cost`,
  )
}

type Tokens = { prompt_tokens: number; completion_tokens: number }

/** A run whose every trace is enqueued and evaluated is done. */
function* settleRun(d: PlanDialect, runId: string, now: number): Plan<void> {
  yield* run(
    (b) =>
      `update evaluator_runs set status = 'done', finished_at = ${b(now)}, lease_until = null
       where run_id = ${b(runId)} and status = 'running' and enumerated = ${d.bool(true)}
         and not exists (select 1 from evaluation_jobs where run_id = ${b(runId)})`,
  )
}

/**
 * A job's verdict recorded: the job deleted, counted for its rule and its run — unless it was finished already (a
 * worker whose lease ran out while another took the job over), in which case nothing is counted twice.
 */
function* finish(d: PlanDialect, job: EvaluationJob, verdict: JobVerdict, now: number): Plan<boolean> {
  const rows = yield* run(
    (b) =>
      `delete from evaluation_jobs where project_id = ${b(job.project_id)} and job_id = ${b(job.job_id)}
       returning job_id`,
  )
  if (rows.length === 0) return false
  if (verdict.kind === 'dropped') {
    if (job.run_id !== null) {
      yield* run((b) => `update evaluator_runs set done = done + 1 where run_id = ${b(job.run_id)}`)
      yield* settleRun(d, job.run_id, now)
    }
    return true
  }
  const error = verdict.kind === 'error' ? verdict.error : null
  yield* bumpStats(job.evaluator_id, {
    evaluated: error === null ? 1 : 0,
    errors: error === null ? 0 : 1,
    error,
    at: now,
    cost: verdict.cost,
    prompt_tokens: verdict.prompt_tokens,
    completion_tokens: verdict.completion_tokens,
  })
  if (job.run_id !== null) {
    yield* run(
      (b) =>
        `update evaluator_runs set done = done + 1, errors = errors + ${b(error === null ? 0 : 1)},
           cost = cost + ${b(verdict.cost)}, last_error = coalesce(${b(error)}, last_error)
         where run_id = ${b(job.run_id)}`,
    )
    yield* settleRun(d, job.run_id, now)
  }
  return true
}

/**
 * A job put back until `dueAt`: after a failure to reach the judge (`error`, kept on the job and as its rule's last
 * error; the judge's tokens spent so far counted), or unattempted (`error` null: the judge's budget was spent).
 */
function* retry(
  job: EvaluationJob,
  dueAt: number,
  error: string | null,
  now: number,
  spent: Tokens & { cost: number },
) {
  const rows = yield* run(
    (b) =>
      `update evaluation_jobs set due_at = ${b(dueAt)}, claimed_by = null,
         attempts = attempts - ${b(error === null ? 1 : 0)}, last_error = coalesce(${b(error)}, last_error)
       where project_id = ${b(job.project_id)} and job_id = ${b(job.job_id)} returning job_id`,
  )
  if (rows.length === 0 || error === null) return
  yield* bumpStats(job.evaluator_id, { evaluated: 0, errors: 0, error, at: now, ...spent })
}

/** A page of a run's enumeration enqueued, its position kept (null: every trace enqueued), under its lease. */
function* advanceRun(
  d: PlanDialect,
  runId: string,
  jobs: readonly NewEvaluationJob[],
  cursor: string | null,
  now: number,
  leaseUntil: number,
): Plan<number> {
  const [live] = yield* run((b) => `select status from evaluator_runs where run_id = ${b(runId)}`)
  if (live?.status !== 'running') return 0
  const added = yield* enqueue(jobs)
  yield* run(
    (b) =>
      `update evaluator_runs set total = total + ${b(added)}, cursor = ${b(cursor)},
         enumerated = ${d.bool(cursor === null)}, lease_until = ${b(cursor === null ? null : leaseUntil)}
       where run_id = ${b(runId)}`,
  )
  if (cursor === null) yield* settleRun(d, runId, now)
  return added
}

/** The oldest running run not yet enumerated whose lease has run out, leased now to its caller. */
function* leaseRun(d: PlanDialect, now: number, leaseMs: number): Plan<EvaluatorRunRecord | null> {
  const [found] = yield* run(
    (b) =>
      `select run_id from evaluator_runs
       where status = 'running' and enumerated = ${d.bool(false)} and (lease_until is null or lease_until <= ${b(now)})
       order by created_at, run_id limit 1 ${d.skipLocked}`,
  )
  if (!found) return null
  const rows = yield* run(
    (b) =>
      `update evaluator_runs set lease_until = ${b(now + leaseMs)} where run_id = ${b(found.run_id)}
       returning ${RUN_COLUMNS}`,
  )
  return rows[0] ? runOf(rows[0]) : null
}

function* endRun(runId: string, status: 'cancelled' | 'failed', error: string | null, now: number): Plan<boolean> {
  const rows = yield* run(
    (b) =>
      `update evaluator_runs set status = ${b(status)}, finished_at = ${b(now)}, lease_until = null,
         last_error = coalesce(${b(error)}, last_error)
       where run_id = ${b(runId)} and status = 'running' returning run_id`,
  )
  if (rows.length === 0) return false
  yield* run((b) => `delete from evaluation_jobs where run_id = ${b(runId)}`)
  return true
}

function* forget(evaluatorId: string, now: number): Plan<void> {
  yield* run((b) => `delete from evaluation_jobs where evaluator_id = ${b(evaluatorId)}`)
  yield* run((b) => `delete from evaluator_stats where evaluator_id = ${b(evaluatorId)}`)
  yield* run(
    (b) =>
      `update evaluator_runs set status = 'cancelled', finished_at = ${b(now)}, lease_until = null
       where evaluator_id = ${b(evaluatorId)} and status = 'running'`,
  )
}

/** The evaluation store of a dialect: `query` reads, `write` runs a plan in one transaction. */
export function createEvaluationStore(
  query: Query,
  write: <T>(plan: Plan<T>) => Promise<T>,
  d: PlanDialect,
): EvaluationStore {
  return {
    enqueue: (jobs) => (jobs.length === 0 ? Promise.resolve(0) : write(enqueue(jobs))),
    claim: (limit, now, leaseMs, worker, skip = []) => write(claim(d, limit, now, leaseMs, worker, skip)),
    release: (worker, now) =>
      write(
        (function* () {
          const rows = yield* run(
            (b) =>
              `update evaluation_jobs set due_at = ${b(now)}, claimed_by = null
               where ${worker === null ? 'claimed_by is not null' : `claimed_by = ${b(worker)}`} returning job_id`,
          )
          return rows.length
        })(),
      ),
    finish: (job, verdict, now) => write(finish(d, job, verdict, now)),
    retry: (job, dueAt, error, now, spent) => write(retry(job, dueAt, error, now, spent)),
    async nextDue() {
      const [row] = await query<{ due_at: unknown }>(
        () => 'select due_at from evaluation_jobs order by due_at, job_id limit 1',
      )
      return row ? Number(row.due_at) : null
    },
    async stats() {
      const out = new Map<string, EvaluatorStatsRecord>()
      const empty = (evaluatorId: string): EvaluatorStatsRecord => ({
        evaluator_id: evaluatorId,
        evaluated: 0,
        errors: 0,
        pending: 0,
        last_error: null,
        last_error_at: null,
        last_evaluated_at: null,
        prompt_tokens: 0,
        completion_tokens: 0,
        cost: 0,
      })
      for (const r of await query<Record<string, unknown>>(() => 'select * from evaluator_stats')) {
        out.set(r.evaluator_id as string, {
          ...empty(r.evaluator_id as string),
          evaluated: Number(r.evaluated),
          errors: Number(r.errors),
          last_error: (r.last_error as string | null) ?? null,
          last_error_at: epoch(r.last_error_at),
          last_evaluated_at: epoch(r.last_evaluated_at),
          prompt_tokens: Number(r.prompt_tokens),
          completion_tokens: Number(r.completion_tokens),
          cost: Number(r.cost),
        })
      }
      const pending = await query<{ evaluator_id: string; n: unknown }>(
        () => 'select evaluator_id, count(*) as n from evaluation_jobs group by evaluator_id',
      )
      for (const r of pending) {
        const stats = out.get(r.evaluator_id) ?? empty(r.evaluator_id)
        stats.pending = Number(r.n)
        out.set(r.evaluator_id, stats)
      }
      return out
    },
    async pendingOfExperiment(experimentId, projectId) {
      const [row] = await query<{ n: unknown }>(
        (b) =>
          // Through the (rule, trace) index: the rules are few, the experiment's traces found by their own index.
          `select count(*) as n from evaluation_jobs
           where evaluator_id in (select evaluator_id from evaluators)
             and trace_id in (select trace_id from traces
                              where experiment_id = ${b(experimentId)} and project_id = ${b(projectId)})`,
      )
      return Number(row?.n ?? 0)
    },
    async pending() {
      const [row] = await query<{ n: unknown }>(() => 'select count(*) as n from evaluation_jobs')
      return Number(row?.n ?? 0)
    },
    forget: (evaluatorId, now) => write(forget(evaluatorId, now)),
    createRun: (r) =>
      write(
        (function* () {
          yield* run(
            (b) =>
              `insert into evaluator_runs (run_id, evaluator_id, project_id, since, until, status, total, done, errors,
                 cost, cursor, enumerated, lease_until, last_error, created_at, finished_at)
               values (${b(r.run_id)}, ${b(r.evaluator_id)}, ${b(r.project_id)}, ${b(r.since)}, ${b(r.until)},
                       ${b(r.status)}, 0, 0, 0, 0, ${b(r.cursor)}, ${d.bool(false)}, ${b(r.lease_until)}, null,
                       ${b(r.created_at)}, null)`,
          )
        })(),
      ),
    async getRun(runId) {
      const [row] = await query<Record<string, unknown>>(
        (b) => `select ${RUN_COLUMNS} from evaluator_runs where run_id = ${b(runId)}`,
      )
      return row ? runOf(row) : null
    },
    async listRuns(evaluatorId) {
      const rows = await query<Record<string, unknown>>(
        (b) =>
          `select ${RUN_COLUMNS} from evaluator_runs where evaluator_id = ${b(evaluatorId)}
           order by created_at desc, run_id desc`,
      )
      return rows.map(runOf)
    },
    leaseRun: (now, leaseMs) => write(leaseRun(d, now, leaseMs)),
    advanceRun: (runId, jobs, cursor, now, leaseUntil) => write(advanceRun(d, runId, jobs, cursor, now, leaseUntil)),
    endRun: (runId, status, error, now) => write(endRun(runId, status, error, now)),
  }
}
