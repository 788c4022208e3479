// Reading the values a span's attributes carry: JSON text opened, text, token counts, costs, lists flattened into
// indexed keys, and the attribute reader that remembers which attributes a convention used.

import { BOUNDS } from '../../schemas/common.js'
import { setOwn } from '../lib/own.js'

export const hasText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== ''

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * A string that holds JSON — an object, an array, or a quoted string (OpenLLMetry JSON-encodes every entity input and
 * output) — is parsed; anything else is returned as it is.
 */
export function parseJsonText(value: unknown): unknown {
  if (typeof value !== 'string') return value
  const text = value.trim()
  const quoted = text.length >= 2 && text.startsWith('"') && text.endsWith('"')
  if (!(text.startsWith('{') || text.startsWith('[') || quoted)) return value
  try {
    return JSON.parse(text)
  } catch {
    return value
  }
}

/** A value as text: strings as they are, anything else as JSON; null and undefined stay null. */
export function asText(value: unknown): string | null {
  if (value === null || value === undefined) return null
  return typeof value === 'string' ? value : JSON.stringify(value)
}

export function asCount(value: unknown): number | null {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : null
}

/** A cost in USD within the bounds of a trace's cost, from a number or its text. */
export function asUsd(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= BOUNDS.costUsd ? n : null
}

/**
 * A list flattened into indexed keys (`prefix0.a`, `prefix0.b`, `prefix1.a`, …): one object per index, keyed by the
 * rest of the name, in index order; and the keys it was made of.
 */
export function byIndex(
  values: Record<string, unknown>,
  prefix: string,
): { items: Record<string, unknown>[]; keys: string[] } {
  const items = new Map<number, Record<string, unknown>>()
  const keys: string[] = []
  for (const [key, value] of Object.entries(values)) {
    const match = key.startsWith(prefix) ? /^(\d+)\.(.+)$/.exec(key.slice(prefix.length)) : null
    if (!match) continue
    const index = Number(match[1])
    const item = items.get(index) ?? {}
    setOwn(item, match[2]!, value)
    items.set(index, item)
    keys.push(key)
  }
  return { items: [...items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item), keys }
}

/** One item as itself, several as a list, none as null. */
export const oneOrList = (items: unknown[]): unknown =>
  items.length === 0 ? null : items.length === 1 ? items[0] : items

/** Reads attributes and remembers which ones it used, so that the rest can go to the metadata. */
export class AttributeReader {
  private readonly used = new Set<string>()

  constructor(private readonly values: Record<string, unknown>) {}

  /**
   * The first of `keys` whose value `as` accepts. The keys of one call name the same thing in different conventions,
   * so another that says the same counts as used too (it would only repeat it in the metadata); one that says
   * something else is kept.
   */
  first<T>(keys: readonly string[], as: (value: unknown) => T | null): T | null {
    let found: T | null = null
    for (const key of keys) {
      if (!Object.hasOwn(this.values, key)) continue
      const value = as(this.values[key])
      if (value === null) continue
      if (found === null) found = value
      else if (JSON.stringify(value) !== JSON.stringify(found)) continue
      this.used.add(key)
    }
    return found
  }

  /** The key of the first of `keys` whose value `as` accepts (for a reader that must know which convention spoke). */
  firstKey(keys: readonly string[], as: (value: unknown) => unknown): string | null {
    return keys.find((key) => Object.hasOwn(this.values, key) && as(this.values[key]) !== null) ?? null
  }

  /** Marks keys as used without reading them (twins of attributes read under another name). */
  use(...keys: string[]): void {
    for (const key of keys) if (Object.hasOwn(this.values, key)) this.used.add(key)
  }

  /** A value as sent, without counting it as used (a rule that reads one part of it). */
  peek(key: string): unknown {
    return Object.hasOwn(this.values, key) ? this.values[key] : undefined
  }

  has(key: string): boolean {
    return Object.hasOwn(this.values, key)
  }

  text(...keys: string[]): string | null {
    return this.first(keys, (v) => (hasText(v) ? v : null))
  }

  count(...keys: string[]): number | null {
    return this.first(keys, asCount)
  }

  usd(...keys: string[]): number | null {
    return this.first(keys, asUsd)
  }

  /** Any present value, JSON text parsed; `null` sent as JSON text is absent too (OpenLLMetry writes outputs so). */
  value(...keys: string[]): unknown {
    return this.first(keys, (v) =>
      v === null || v === undefined || v === '' || v === 'null' ? null : parseJsonText(v),
    )
  }

  /**
   * A list flattened into indexed keys (`prefix.0.message.role`, `prefix.1.message.role`, …), as OpenInference and
   * OpenLLMetry write them: one object per index, keyed by the rest of the name, in index order. All are used.
   */
  indexed(prefix: string): Record<string, unknown>[] {
    const { items, keys } = byIndex(this.values, prefix)
    for (const key of keys) this.used.add(key)
    return items
  }

  rest(): Record<string, unknown> {
    return Object.fromEntries(Object.entries(this.values).filter(([key]) => !this.used.has(key)))
  }
}
