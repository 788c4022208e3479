// Writes written once for both databases: each write is a plan — a generator that yields its statements (built with
// the dialect's parameter markers) and is handed back their rows — which a dialect's driver runs inside one of its
// transactions: SQLite's synchronously (sqlite/plan.ts), PostgreSQL's awaiting each statement (postgres/plan.ts).
// Scores (score-writes.ts), annotation queues (annotation-queues.ts) and evaluation jobs (evaluation-jobs.ts) are
// written so.

/** A statement of a plan: its SQL, built with the driver's `bind`. */
export interface PlanStatement {
  build: (bind: (value: unknown) => string) => string
}
/** A write: yields statements, is handed each one's rows, returns its result. */
export type Plan<T> = Generator<PlanStatement, T, Record<string, unknown>[]>

/** What differs between the dialects in the plans. */
export interface PlanDialect {
  /** The statement that finds (and, until commit, locks against deletion) a trace of this id: a row, or none. */
  lockTrace(bind: (value: unknown) => string, traceId: string): string
  /** `column in (the values)`: one bound parameter whatever the count. */
  inList(bind: (value: unknown) => string, column: string, values: readonly string[]): string
  /** An integer expression as a double (so that a division is IEEE's, as JavaScript's). */
  float(expression: string): string
  /** A trace row's number of steps. */
  stepCount: string
  /** A JSON value as its column takes it. */
  json(bind: (value: unknown) => string, value: unknown): string
  /** What a select that claims rows adds so that concurrent claimers pass over each other's rows ('' if none can). */
  skipLocked: string
  /** A boolean as a literal of the dialect. */
  bool(value: boolean): string
}

/** A JSON value to bind: each driver writes it as its JSON column takes it. */
export class JsonParam {
  constructor(readonly value: unknown) {}
}

/** One statement's rows. */
export function* run(
  build: PlanStatement['build'],
): Generator<PlanStatement, Record<string, unknown>[], Record<string, unknown>[]> {
  return yield { build }
}
