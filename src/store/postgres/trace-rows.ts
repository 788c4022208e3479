// Traces as PostgreSQL rows: a row read back as a trace (its steps' keys in the contract's order), a filter as a
// WHERE clause with `$n` markers (text through the U+0000 escape; the search through pg_trgm), and the search counts
// the store keeps. What the trace store (traces.ts) and its writes (trace-writes.ts) both read.
import { StepSchema, type Trace } from '../../../schemas/index.js'
import { toUtcIso } from '../../lib/time.js'
import { type ExtraConditions, type SearchClause, traceWhere } from '../read-queries.js'
import { createSearchCounts } from '../search-counts.js'
import { TRACE_KEYS } from '../stored-trace.js'
import type { TraceFilter } from '../types.js'
import { encodeText } from './nul.js'
import type { TraceRow } from './tables.js'

/** The columns of a trace in the contract's order, so that a trace read back serializes as SQLite's does. */
export const COLUMNS = TRACE_KEYS
export const SELECT_TRACE = `select ${COLUMNS.join(', ')} from traces`

const STEP_KEYS = Object.keys(StepSchema.properties) as (keyof Trace['steps'][number])[]

/** jsonb keeps object keys in its own order: a step is rebuilt in StepSchema's (and normalization's) order. */
const orderStep = (step: Trace['steps'][number]) =>
  Object.fromEntries(STEP_KEYS.map((k) => [k, step[k]])) as Trace['steps'][number]

export const fromRow = (row: TraceRow): Trace => ({
  ...row,
  created_at: toUtcIso(row.created_at),
  steps: row.steps.map(orderStep),
})

/**
 * Each word a substring of the searchable text: through pg_trgm's GIN index (LIKE, for words of 3 characters or
 * more), or as a probe (`strpos`, which no index serves), so that the planner walks the order's index and tests each
 * trace until the page is full — the plan for a common word.
 */
const searchClause: SearchClause = (words, bind, probe) =>
  words
    .map((w) =>
      probe
        ? `strpos(search_text, ${bind(w)}) > 0`
        : `search_text like ${bind(`%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}`,
    )
    .join(' and ')

/** A filter's WHERE clause with `$n` markers, and its values in order (text through the U+0000 escape). */
export function where(f: TraceFilter, extra: ExtraConditions = {}, probe?: boolean) {
  const params: unknown[] = []
  const text = traceWhere(
    f,
    extra,
    (value) => {
      params.push(typeof value === 'string' ? encodeText(value) : value)
      return `$${params.length}`
    },
    searchClause,
    probe,
  )
  return { sql: text, params }
}

/** The search totals a store instance keeps: up to a snapshot's xmin (an xid8, in its decimal text). */
export const createPostgresSearchCounts = () => createSearchCounts<string>((kept, now) => BigInt(kept) <= BigInt(now))

export type PostgresSearchCounts = ReturnType<typeof createPostgresSearchCounts>
