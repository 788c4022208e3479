// Traces read back from a store keep their JSON columns (tags, metadata, steps) as the stored text until someone
// reads those fields: a response then splices the text in as it is (src/lib/json.ts), sparing a parse and a
// re-serialization of the largest part of every trace on every read. To everything else it is a plain Trace.
import { TRACE_BODY_FIELDS, type Trace, TraceSchema } from '../../schemas/index.js'

export const JSON_COLUMNS = ['tags', 'metadata', 'steps'] as const
type JsonColumn = (typeof JSON_COLUMNS)[number]

/** A trace as stored: every field but the JSON columns, which are their JSON text. */
export type StoredColumns = Omit<Trace, JsonColumn> & Record<JsonColumn, string>

const STATE = Symbol('loupe.storedTrace')
interface State {
  columns: StoredColumns
  /** JSON columns that were read (parsed) or replaced: these are serialized from their value again. */
  values: Partial<Record<JsonColumn, unknown>>
}

/** A trace's fields in TraceSchema's order: the column order of every store, and of every serialized trace. */
export const TRACE_KEYS = Object.keys(TraceSchema.properties) as (keyof Trace)[]
/** The columns a trace summary reads, in TraceSummarySchema's order (its `step_count` is counted from `steps`). */
export const SUMMARY_KEYS = TRACE_KEYS.filter((key) => !(TRACE_BODY_FIELDS as readonly string[]).includes(key))
const isJsonColumn = (key: string): key is JsonColumn => (JSON_COLUMNS as readonly string[]).includes(key)

export function storedTrace(columns: StoredColumns): Trace {
  const state: State = { columns, values: {} }
  const trace = {} as Record<string, unknown>
  for (const key of TRACE_KEYS) {
    if (!isJsonColumn(key)) {
      trace[key] = columns[key]
      continue
    }
    Object.defineProperty(trace, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        if (!(key in state.values)) state.values[key] = JSON.parse(columns[key])
        return state.values[key]
      },
      set: (value: unknown) => {
        state.values[key] = value
      },
    })
  }
  Object.defineProperty(trace, STATE, { value: state })
  return trace as Trace
}

export const isStoredTrace = (value: unknown): boolean => typeof value === 'object' && value !== null && STATE in value

/** The JSON text of a stored trace, in TraceSchema's field order; undefined for any other value. */
export function storedTraceJson(value: unknown): string | undefined {
  if (!isStoredTrace(value)) return undefined
  const { columns, values } = (value as { [STATE]: State })[STATE]
  let text = '{'
  for (const key of TRACE_KEYS) {
    const json =
      isJsonColumn(key) && !(key in values)
        ? columns[key]
        : JSON.stringify(isJsonColumn(key) ? values[key] : (value as Trace)[key])
    text += `${text.length > 1 ? ',' : ''}"${key}":${json}`
  }
  return `${text}}`
}
