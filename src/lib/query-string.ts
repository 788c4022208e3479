// The query string parser. Fastify's own (fast-querystring) keeps a value whose percent-escapes are not UTF-8
// (`?q=%ED%A0%80`, a UTF-16 surrogate as a careless encoder writes it) as its raw text, so a filter would look for
// `%ED%A0%80` and a project be named so. Here such bytes are decoded with surrogate escapes (each byte that is not
// UTF-8 becomes a lone surrogate U+DC80–U+DCFF, as Python's `surrogateescape` does), which the validators refuse as
// they refuse a JSON `"\ud800"`: `querystring/q must be valid Unicode text`.
import { isUtf8 } from 'node:buffer'

const PERCENT_BYTE = /%[0-9a-fA-F]{2}/

/** The bytes a component stands for: each `%XX` one byte, every other character its UTF-8. */
function percentBytes(text: string): Buffer {
  const parts: Buffer[] = []
  let literal = ''
  for (let i = 0; i < text.length; i++) {
    const hex = text.slice(i + 1, i + 3)
    if (text[i] === '%' && PERCENT_BYTE.test(text.slice(i, i + 3))) {
      parts.push(Buffer.from(literal), Buffer.of(Number.parseInt(hex, 16)))
      literal = ''
      i += 2
    } else {
      literal += text[i]
    }
  }
  parts.push(Buffer.from(literal))
  return Buffer.concat(parts)
}

/** Bytes as text: each complete UTF-8 sequence its character, each other byte a surrogate escape. */
function surrogateEscaped(bytes: Buffer): string {
  let out = ''
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i] as number
    const length = lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : 4
    const sequence = bytes.subarray(i, i + length)
    if (lead <= 0xf4 && sequence.length === length && isUtf8(sequence)) {
      out += sequence.toString('utf8')
      i += length
    } else {
      out += String.fromCharCode(0xdc00 + lead)
      i += 1
    }
  }
  return out
}

/** One name or value of a query string: `+` is a space, then percent-escapes; bytes that are not UTF-8 escaped. */
function decodeComponent(raw: string): string {
  const text = raw.includes('+') ? raw.replaceAll('+', ' ') : raw
  if (!text.includes('%')) return text
  try {
    return decodeURIComponent(text)
  } catch {
    // Not UTF-8, or a `%` that starts no escape (`100%`), which stays as written.
    return surrogateEscaped(percentBytes(text))
  }
}

/** Fastify's `querystringParser`: names and values, a name given more than once an array of its values. */
export function parseQueryString(text: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = Object.create(null)
  for (const pair of text.split('&')) {
    if (pair === '') continue
    const at = pair.indexOf('=')
    const name = decodeComponent(at < 0 ? pair : pair.slice(0, at))
    const value = at < 0 ? '' : decodeComponent(pair.slice(at + 1))
    const before = query[name]
    if (before === undefined) query[name] = value
    else if (Array.isArray(before)) before.push(value)
    else query[name] = [before, value]
  }
  return query
}
