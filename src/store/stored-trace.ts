// Traces read back from a store keep their JSON columns (tags, metadata, steps) as the stored text until someone
// reads those fields: a response then splices the text in as it is (src/store/to-json.ts), sparing a parse and a
// re-serialization of the largest part of every trace on every read. To everything else it is a plain Trace.
//
// A list page makes fifty of these per request, so they are cheap to make: the three accessors are the same functions
// for every trace (they find the trace's text through `this`), which keeps every stored trace on one hidden class.
import { TRACE_BODY_FIELDS, type Trace, TraceSchema } from '../../schemas/index.js'

export const JSON_COLUMNS = ['tags', 'metadata', 'steps'] as const
type JsonColumn = (typeof JSON_COLUMNS)[number]

/** A trace as stored: every field but the JSON columns, which are their JSON text. */
export type StoredColumns = Omit<Trace, JsonColumn> & Record<JsonColumn, string>

const STATE = Symbol('loupe.storedTrace')
interface State {
  /** The stored JSON text of each JSON column. */
  text: Record<JsonColumn, string>
  /** JSON columns that were read (parsed) or replaced: these are serialized from their value again. */
  values: Partial<Record<JsonColumn, unknown>>
}
type Holder = Record<string, unknown> & { [STATE]: State }

/** A trace's fields in TraceSchema's order: the column order of every store, and of every serialized trace. */
export const TRACE_KEYS = Object.keys(TraceSchema.properties).filter((key) => key !== 'scores') as StoredKey[]
/** A trace's stored fields: all but its scores, which are rows of their own (read beside the trace by its id). */
export type StoredKey = Exclude<keyof Trace, 'scores'>
/** The columns a trace summary reads, in TraceSummarySchema's order (its `step_count` is counted from `steps`). */
export const SUMMARY_KEYS = TRACE_KEYS.filter((key) => !(TRACE_BODY_FIELDS as readonly string[]).includes(key))
const isJsonColumn = (key: string): key is JsonColumn => (JSON_COLUMNS as readonly string[]).includes(key)

/** Per field in TRACE_KEYS order: the JSON column it is, if it is one. */
const JSON_AT: (JsonColumn | null)[] = TRACE_KEYS.map((key) => (isJsonColumn(key) ? key : null))
/** Per field in TRACE_KEYS order: what precedes its value in the serialized trace. */
const PREFIX = TRACE_KEYS.map((key, i) => `${i === 0 ? '{' : ','}${JSON.stringify(key)}:`)

const accessor = (key: JsonColumn): PropertyDescriptor => ({
  enumerable: true,
  configurable: true,
  get(this: Holder) {
    const state = this[STATE]
    if (!(key in state.values)) state.values[key] = JSON.parse(state.text[key])
    return state.values[key]
  },
  set(this: Holder, value: unknown) {
    this[STATE].values[key] = value
  },
})
const ACCESSORS = Object.fromEntries(JSON_COLUMNS.map((key) => [key, accessor(key)])) as Record<
  JsonColumn,
  PropertyDescriptor
>

/**
 * A stored trace from its fields' values in TRACE_KEYS order (a store's row as an array), the JSON columns as their
 * stored text; every other value as the Trace holds it.
 */
export function storedTraceOf(values: readonly unknown[]): Trace {
  const text = {} as Record<JsonColumn, string>
  const trace = {} as Holder
  Object.defineProperty(trace, STATE, { value: { text, values: {} } satisfies State })
  for (let i = 0; i < TRACE_KEYS.length; i++) {
    const json = JSON_AT[i]
    if (json === null || json === undefined) {
      trace[TRACE_KEYS[i] as string] = values[i]
      continue
    }
    text[json] = values[i] as string
    Object.defineProperty(trace, json, ACCESSORS[json])
  }
  return trace as unknown as Trace
}

export function storedTrace(columns: StoredColumns): Trace {
  return storedTraceOf(TRACE_KEYS.map((key) => columns[key]))
}

export const isStoredTrace = (value: unknown): boolean => typeof value === 'object' && value !== null && STATE in value

/** One field's JSON: what JSON.stringify writes for it inside an object. */
const fieldJson = (value: unknown): string =>
  typeof value === 'string' || value !== null ? JSON.stringify(value) : 'null'

/** The JSON text of a stored trace, in TraceSchema's field order; undefined for any other value. */
export function storedTraceJson(value: unknown): string | undefined {
  if (!isStoredTrace(value)) return undefined
  const trace = value as Holder
  const { text, values } = trace[STATE]
  let json = ''
  for (let i = 0; i < TRACE_KEYS.length; i++) {
    const column = JSON_AT[i]
    json +=
      PREFIX[i] +
      (column !== null && column !== undefined && !(column in values)
        ? text[column]
        : fieldJson(column ? values[column] : trace[TRACE_KEYS[i] as string]))
  }
  // Its scores, when they were read beside it (a trace read by its id), come last, as TraceSchema lists them.
  if (trace.scores !== undefined) json += `,"scores":${JSON.stringify(trace.scores)}`
  return `${json}}`
}
