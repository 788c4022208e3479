// Text that is not valid Unicode: a JavaScript string may hold a lone UTF-16 surrogate (JSON `"\ud800"`), which no
// UTF-8 store can keep as sent (SQLite kept invalid bytes that no later query could match, PostgreSQL refused it).
// Every door checks its input with `illFormedText` (the validators, src/lib/validation.ts) or, where refusing would
// lose good data (an OTLP export), repairs it with `makeWellFormed`.

/** Where text that is not well-formed sits: a JSON pointer (`/metadata/a`), and whether it is a key of that object. */
export interface IllFormed {
  path: string
  key: boolean
}

/** A container met on the walk, with the way back to the root (for the path of what is found in it). */
interface Visit {
  value: object
  segment: string
  parent: Visit | null
}

/** A key as a JSON pointer segment (RFC 6901), as ajv writes instance paths. */
const segmentOf = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1')

function pathOf(visit: Visit | null, last?: string): string {
  const segments = last === undefined ? [] : [last]
  for (let at = visit; at !== null && at.parent !== null; at = at.parent) segments.push(at.segment)
  return segments.length === 0 ? '' : `/${segments.reverse().join('/')}`
}

/**
 * Every string and object key in `value` (parsed JSON, or a decoded message: strings, numbers, arrays and plain
 * objects; byte arrays are skipped), each handed to `text` with where it is; `text` answers the string to keep, or
 * `stop` to end the walk. Walked with a stack of its own, so that no nesting depth can overflow the call stack.
 */
function walk(
  value: unknown,
  text: (found: string, visit: Visit, key: string | null, index: string) => string | typeof STOP,
): void {
  if (typeof value !== 'object' || value === null) return
  const stack: Visit[] = [{ value, segment: '', parent: null }]
  /** One item of a container: its string checked (false: the walk ends), or its container walked later. */
  const item = (container: Record<string, unknown>, index: string, visit: Visit): boolean => {
    const found = container[index]
    if (typeof found === 'string') {
      if (found.isWellFormed()) return true
      const kept = text(found, visit, null, index)
      if (kept === STOP) return false
      container[index] = kept
    } else if (typeof found === 'object' && found !== null) {
      stack.push({ value: found, segment: segmentOf(index), parent: visit })
    }
    return true
  }
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    const container = visit.value
    if (ArrayBuffer.isView(container)) continue
    if (Array.isArray(container)) {
      const items = container as unknown as Record<string, unknown>
      for (let i = 0; i < container.length; i++) if (!item(items, String(i), visit)) return
      continue
    }
    const record = container as Record<string, unknown>
    for (const key of Object.keys(record)) {
      let name = key
      if (!key.isWellFormed()) {
        const kept = text(key, visit, key, key)
        if (kept === STOP) return
        name = kept
        // A repaired key joins the object in the place of the old one; an existing key of that name is kept.
        if (!(name in record)) record[name] = record[key]
        delete record[key]
      }
      if (!item(record, name, visit)) return
    }
  }
}

const STOP: unique symbol = Symbol('stop')

/** The first string or key in `value` that is not well-formed Unicode text, or null when there is none. */
export function illFormedText(value: unknown): IllFormed | null {
  if (typeof value === 'string') return value.isWellFormed() ? null : { path: '', key: false }
  let found: IllFormed | null = null
  walk(value, (_text, visit, key, index) => {
    found = key === null ? { path: pathOf(visit, segmentOf(index)), key: false } : { path: pathOf(visit), key: true }
    return STOP
  })
  return found
}

/**
 * `value` with every lone surrogate in its strings and keys replaced by U+FFFD (in place: the caller owns it), as a
 * UTF-8 decoder does with bytes that are not text.
 */
export function makeWellFormed<T>(value: T): T {
  if (typeof value === 'string') return value.toWellFormed() as T
  walk(value, (text) => text.toWellFormed())
  return value
}

/** The message that names what is wrong (after the field's path). */
export const illFormedMessage = (found: IllFormed) =>
  found.key ? 'has a key that is not valid Unicode text' : 'must be valid Unicode text'
