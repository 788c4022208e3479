// Turning whatever an app hands the SDK (return values, errors, outputs) into JSON the server accepts, without
// ever throwing: cycles, BigInt and functions must not cost the app its trace, or its exception.

/** Contract limits the SDK applies before sending (docs/api.md, Limits; test/client checks them against schemas/). */
export const CLIENT_LIMITS = { textBytes: 256 * 1024, batch: 1000, steps: 1000, tags: 20, tagLength: 64 } as const

const TRUNCATED = '… [truncated by loupe]'

/** Cuts text to at most `maxBytes` of UTF-8 (the server's measure), on a character boundary, saying it was cut. */
export function clip(text: string, maxBytes: number = CLIENT_LIMITS.textBytes): string {
  if (text.length <= maxBytes / 3 || Buffer.byteLength(text) <= maxBytes) return text
  const bytes = Buffer.from(text)
  let end = Math.max(0, maxBytes - Buffer.byteLength(TRUNCATED))
  // Never cut inside a character: step back over UTF-8 continuation bytes (10xxxxxx).
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
  return bytes.subarray(0, end).toString('utf8') + TRUNCATED
}

/** JSON.stringify that never throws: cycles become "[Circular]", BigInt a string, an Error its name and message. */
export function safeStringify(value: unknown): string {
  try {
    const text = JSON.stringify(value, plainReplacer)
    if (text !== undefined) return text
  } catch {
    // a cycle (or a throwing toJSON): retried below with cycle detection
  }
  const seen = new WeakSet<object>()
  try {
    return (
      JSON.stringify(value, (key, v) => {
        const plain = plainReplacer(key, v)
        if (typeof plain === 'object' && plain !== null) {
          if (seen.has(plain)) return '[Circular]'
          seen.add(plain)
        }
        return plain
      }) ?? 'null'
    )
  } catch {
    return JSON.stringify(String(value))
  }
}

function plainReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString()
  if (value instanceof Error) return { name: value.name, message: value.message }
  return value
}

/** A value as the text of a trace's response: strings as they are, anything else as JSON. */
export function toText(value: unknown): string | null {
  if (value === undefined || value === null) return null
  return clip(typeof value === 'string' ? value : safeStringify(value))
}

/** The message of anything thrown. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name
  if (typeof err === 'string') return err
  return safeStringify(err)
}
