// The response serializer: JSON.stringify, except that stored traces (stored-trace.ts) are spliced in
// from their stored JSON text, wherever they sit in the usual response shapes (a trace, a list, an envelope).
import { isStoredTrace, storedTraceJson } from './stored-trace.js'

const holdsStored = (value: unknown) =>
  isStoredTrace(value) || (Array.isArray(value) && value.length > 0 && isStoredTrace(value[0]))

export function toJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value)
  const stored = storedTraceJson(value)
  if (stored !== undefined) return stored
  if (Array.isArray(value)) return holdsStored(value) ? `[${value.map(toJson).join(',')}]` : JSON.stringify(value)
  const entries = Object.entries(value)
  if (!entries.some(([, v]) => holdsStored(v))) return JSON.stringify(value)
  const parts = entries.filter(([, v]) => v !== undefined).map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`)
  return `{${parts.join(',')}}`
}
