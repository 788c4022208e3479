// Traces as SQLite rows: a row read back as a trace (JSON columns as text, booleans as 0/1), a trace as the row
// written, a filter as a WHERE clause with `?` markers (the search through the trigram index), and the search counts
// the store keeps. What the trace store (traces.ts) and its writes (trace-writes.ts) both read.
import type { Trace, TraceSummary } from '../../../schemas/index.js'
import { toUtcIso } from '../../lib/time.js'
import { type ExtraConditions, type SearchClause, traceWhere } from '../read-queries.js'
import { type PricedTrace, REPORTED_COST, reportedCostJson } from '../reported-cost.js'
import { createSearchCounts } from '../search-counts.js'
import { storedTrace, storedTraceOf, TRACE_KEYS } from '../stored-trace.js'
import { charCount, TRIGRAM } from '../trigram.js'
import type { TraceFilter } from '../types.js'
import type { TraceRow } from './tables.js'

/** A traces row as better-sqlite3 returns it: JSON columns still text. */
export type RawTraceRow = Omit<TraceRow, 'tags' | 'metadata' | 'steps' | 'tokens_reported'> & {
  tags: string
  metadata: string
  steps: string
  /** SQLite keeps a boolean as 0 or 1. */
  tokens_reported: number
}

/** The columns written at insert: the trace's, then what the client reported of its costs. */
export const COLUMNS = [...TRACE_KEYS, REPORTED_COST]

export type RawSummaryRow = Omit<TraceSummary, 'tags' | 'created_at' | 'tokens_reported'> & {
  tags: string
  created_at: number
  tokens_reported: number
}
export const summaryFromRow = (row: RawSummaryRow): TraceSummary => ({
  ...row,
  tags: JSON.parse(row.tags),
  tokens_reported: row.tokens_reported === 1,
  created_at: toUtcIso(row.created_at),
})

export const fromRow = (row: RawTraceRow): Trace =>
  storedTrace({ ...row, tokens_reported: row.tokens_reported === 1, created_at: toUtcIso(row.created_at) })

/** The trace's columns, in TRACE_KEYS order: read as arrays (better-sqlite3's raw mode), which spares an object a row. */
export const TRACE_COLUMNS = TRACE_KEYS.join(', ')
const CREATED_AT = TRACE_KEYS.indexOf('created_at')
const TOKENS_REPORTED = TRACE_KEYS.indexOf('tokens_reported')
/** A row read in raw mode (its values in TRACE_KEYS order) → the stored trace. */
export const fromValues = (values: unknown[]): Trace => {
  values[CREATED_AT] = toUtcIso(values[CREATED_AT] as number)
  values[TOKENS_REPORTED] = values[TOKENS_REPORTED] === 1
  return storedTraceOf(values)
}

/** A trace on its way to the store → its row. */
export const toRow = ({ trace: t, reported }: PricedTrace) => ({
  ...t,
  created_at: Date.parse(t.created_at),
  tokens_reported: t.tokens_reported ? 1 : 0,
  tags: JSON.stringify(t.tags),
  metadata: JSON.stringify(t.metadata),
  steps: JSON.stringify(t.steps),
  reported_cost: reportedCostJson(reported),
})

/**
 * Every word in the trigram index: words of 3 characters or more are phrases of one MATCH (each a substring of the
 * text); shorter ones (two CJK characters are a word) are checked on the indexed text with GLOB. The index is case
 * sensitive over text lower-cased at ingest, so a MATCH of a word is exactly `instr(body, word) > 0`.
 */
export const searchConditions = (words: readonly string[], bind: (value: unknown) => string) => {
  const long = words.filter((w) => charCount(w) >= TRIGRAM)
  return [
    ...(long.length > 0
      ? [`traces_search match ${bind(long.map((w) => `"${w.replaceAll('"', '""')}"`).join(' '))}`]
      : []),
    ...words
      .filter((w) => charCount(w) < TRIGRAM)
      .map((w) => `body glob ${bind(`*${w.replace(/[*?[]/g, (c) => `[${c}]`)}*`)}`),
  ].join(' and ')
}

/**
 * Through the index: the set of matching rowids. As a probe: the one trace's text read by its rowid and each word
 * looked for in it (≈1.5 µs a trace; a MATCH restricted to one rowid costs 100 times more).
 */
const searchClause: SearchClause = (words, bind, probe) =>
  probe
    ? `exists (select 1 from traces_search s where s.rowid = traces.rowid and ${words
        .map((w) => `instr(s.body, ${bind(w)}) > 0`)
        .join(' and ')})`
    : `rowid in (select rowid from traces_search where ${searchConditions(words, bind)})`

/**
 * The filter's WHERE clause with `?` markers, and its values in order. `lead`: the text is the whole FROM and WHERE,
 * a score order's rollup index walked first (SQLite otherwise read every trace with the score, then sorted them).
 */
export const where = (f: TraceFilter, extra: ExtraConditions = {}, probe?: boolean, lead = false) => {
  const params: unknown[] = []
  const text = traceWhere(
    f,
    extra,
    (value) => {
      params.push(value)
      return '?'
    },
    searchClause,
    probe,
    // A probe reads one trace's scores: named, since without statistics of the scores (a database analyzed before
    // it held any) SQLite took the (name, value) index and walked every matching score for each trace.
    'scores indexed by scores_trace',
    lead ? 'trace_scores indexed by trace_scores_name_mean' : undefined,
  )
  return { sql: text, params }
}

/** Beyond this many new traces, counting again through the index is cheaper than testing each. */
const SEARCH_COUNT_CATCH_UP = 20_000

/**
 * Counts of searches (search-counts.ts), kept up to the last rowid they counted: writers take turns, so every
 * trace below the highest rowid a read sees is there for good, and a count is brought up to date by testing the
 * traces added since. A viewer paging through a search, or refreshing it as traces arrive, counts a common word once.
 */
export const createSqliteSearchCounts = () =>
  createSearchCounts<number>((upTo, top) => upTo <= top && top - upTo <= SEARCH_COUNT_CATCH_UP)

export type SqliteSearchCounts = ReturnType<typeof createSqliteSearchCounts>
