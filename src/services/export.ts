// Streamed export of traces: NDJSON (each line a trace exactly as the API answers it) or CSV (one row per trace with
// its flat fields). Lines are produced chunk by chunk from the store's keyset walk, so memory stays constant however
// many traces match.
import { setImmediate as nextTurn } from 'node:timers/promises'
import { CSV_COLUMNS, type ExportFormat, type ScoreSummary, type Trace } from '../../schemas/index.js'
import { toJson } from '../store/to-json.js'
import type { Store, TraceFilter } from '../store/types.js'

/** Traces read from the store at a time. */
export const EXPORT_CHUNK = 200

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break; null is empty. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return ''
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

export const csvRow = (fields: readonly unknown[]) => `${fields.map(csvField).join(',')}\r\n`

/** A trace as its CSV row: the fields of CSV_COLUMNS, in order (its scores in short, as JSON). */
export function traceCsvRow(trace: Trace, scores: ScoreSummary = {}): string {
  const { head, tail } = csvParts(trace)
  return head + csvField(scores) + tail
}

/** A trace's line without its scores: `head`, then the scores, then `tail`. */
interface LineParts {
  trace_id: string
  head: string
  tail: string
}

/** The CSV row of a trace around its last column, its scores. */
function csvParts(trace: Trace): LineParts {
  const record = trace as unknown as Record<string, unknown>
  const fields = CSV_COLUMNS.slice(0, -1).map((c) => (c === 'step_count' ? trace.steps.length : record[c]))
  return { trace_id: trace.trace_id, head: `${fields.map(csvField).join(',')},`, tail: '\r\n' }
}

/** The NDJSON line of a trace around its last field, its scores (as GET /traces/{trace_id} writes them). */
function ndjsonParts(trace: Trace): LineParts {
  const json = toJson(trace)
  return { trace_id: trace.trace_id, head: `${json.slice(0, -1)},"scores":`, tail: '}\n' }
}

/** Lines as one Buffer, written line by line: no string of the whole chunk is ever made. */
function linesBuffer(lines: readonly string[]): Buffer {
  const bytes = Buffer.allocUnsafe(lines.reduce((n, line) => n + Buffer.byteLength(line), 0))
  let at = 0
  for (const line of lines) at += bytes.write(line, at)
  return bytes
}

/**
 * The bytes of an export, a chunk of lines at a time, in constant memory: each line is a short-lived string and each
 * chunk a Buffer outside the JavaScript heap (a string of the whole chunk went to V8's large-object space, which only a
 * full collection empties: a million traces grew the heap by hundreds of MB of garbage). Each chunk waits for a turn of
 * the event loop first: SQLite answers at once and a socket that keeps up takes every write at once, so without it the
 * whole export ran in one turn, every other request (and every timer) waiting until its last line.
 */
export async function* exportTraces(
  store: Store,
  filter: TraceFilter,
  format: ExportFormat,
  chunk = EXPORT_CHUNK,
): AsyncGenerator<Buffer> {
  if (format === 'csv') yield Buffer.from(csvRow(CSV_COLUMNS))
  // Each trace becomes its line (but its scores) as it is read: only the lines are held until the chunk is complete,
  // and the chunk's scores are read at once, then put in their place.
  const parts = format === 'csv' ? csvParts : ndjsonParts
  for await (const chunkParts of store.traces.walk(filter, chunk, parts)) {
    const ids = chunkParts.map((p) => p.trace_id)
    let scoresOf: (traceId: string) => string
    if (format === 'csv') {
      const summaries = await store.scores.summaries(ids)
      scoresOf = (id) => csvField(summaries.get(id) ?? {})
    } else {
      const scores = await store.scores.ofTraces(ids)
      scoresOf = (id) => JSON.stringify(scores.get(id) ?? [])
    }
    yield linesBuffer(chunkParts.map((p) => p.head + scoresOf(p.trace_id) + p.tail))
    await nextTurn()
  }
}
