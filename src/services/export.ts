// Streamed export of traces: NDJSON (each line a trace exactly as the API answers it) or CSV (one row per trace with
// its flat fields). Lines are produced chunk by chunk from the store's keyset walk, so memory stays constant however
// many traces match.
import { CSV_COLUMNS, type ExportFormat, type Trace } from '../../schemas/index.js'
import { toJson } from '../lib/json.js'
import type { Store, TraceFilter } from '../store/types.js'

/** Traces read from the store at a time. */
export const EXPORT_CHUNK = 500

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break; null is empty. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return ''
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

export const csvRow = (fields: readonly unknown[]) => `${fields.map(csvField).join(',')}\r\n`

/** A trace as its CSV row: the fields of CSV_COLUMNS, in order. */
export function traceCsvRow(trace: Trace): string {
  const record = trace as unknown as Record<string, unknown>
  return csvRow(CSV_COLUMNS.map((c) => (c === 'step_count' ? trace.steps.length : record[c])))
}

/** The text of an export, a chunk of lines at a time. */
export async function* exportTraces(
  store: Store,
  filter: TraceFilter,
  format: ExportFormat,
  chunk = EXPORT_CHUNK,
): AsyncGenerator<string> {
  if (format === 'csv') yield csvRow(CSV_COLUMNS)
  for await (const traces of store.walkTraces(filter, chunk)) {
    yield traces.map((t) => (format === 'csv' ? traceCsvRow(t) : `${toJson(t)}\n`)).join('')
  }
}
