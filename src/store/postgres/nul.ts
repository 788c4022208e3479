// PostgreSQL cannot hold U+0000 in text, nor `\u0000` in jsonb; SQLite can, and the contract accepts any string. So
// that both stores keep exactly what a client sent, the PostgreSQL store writes U+0000 as a two-character escape and
// reads it back: ESC '0' stands for U+0000 and ESC ESC for ESC itself, where ESC is the noncharacter U+FDD0 (which
// no real text uses, and which is escaped in turn, so the mapping is reversible for every string).

const ESC = '\uFDD0'
const NUL = '\u0000'
const ESCAPED = /\uFDD0([0\uFDD0])/g

/** A string as PostgreSQL text can hold it. */
export function encodeText(value: string): string {
  if (!value.includes(NUL) && !value.includes(ESC)) return value
  return value.replaceAll(ESC, ESC + ESC).replaceAll(NUL, `${ESC}0`)
}

/** The string `encodeText` was given. */
export function decodeText(value: string): string {
  if (!value.includes(ESC)) return value
  return value.replace(ESCAPED, (_, c: string) => (c === '0' ? NUL : ESC))
}

/** JSON text as jsonb can hold it: U+0000 appears in JSON.stringify's output only as the escape `\u0000`. */
export function encodeJson(value: unknown): string {
  const text = JSON.stringify(value)
  if (!text.includes('\\u0000') && !text.includes(ESC)) return text
  // An escape `\u0000` is one preceded by an even number of backslashes (a `\\` before it is an escaped backslash).
  return text.replace(/\uFDD0/g, ESC + ESC).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, `$1${ESC}0`)
}

/** Parses JSON text written through `encodeJson`. */
export function parseEncodedJson(text: string): unknown {
  return JSON.parse(text.includes(ESC) ? text.replace(ESCAPED, (_, c: string) => (c === '0' ? '\\u0000' : ESC)) : text)
}
