// Full-text search (`q` of GET /traces), the same on every store: a trace matches when each word of `q` occurs in its
// searchable text — name, prompt, response, failure reason, and its steps' inputs, outputs and errors (every string
// in them, not their keys) — as a substring, whatever the case. Substrings, not tokens, so that Japanese, Chinese or
// any text without spaces matches too; the text and the words are lower-cased here, once, so that both stores fold
// case exactly alike. SQLite indexes the text with FTS5's trigram tokenizer, PostgreSQL with pg_trgm. Part of the
// contract because the viewer marks and filters by the same rule as the server (it imports this file, not the index).
import type { Trace } from './trace.js'

/**
 * Searchable text indexed per piece (a name, a prompt, a response, a failure reason, each string of a step) and per
 * trace. A trigram index grows with the distinct trigrams of its text, so its cost rises faster than the text: a
 * 200 KB base64 blob in a prompt costs ~0.5 s to index whole, its first 8 K characters a few milliseconds. Bounded
 * here, ingest keeps its pace whatever clients send; the beginning of a prompt and of an answer is what people search.
 */
export const SEARCH_PIECE_CHARS = 8_192
export const SEARCH_TEXT_CHARS = 32_768

/** Words of a `q`, and how many at most. */
export const MAX_SEARCH_WORDS = 16

/** The first `max` UTF-16 units of a text, never cutting a character in two. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text
  const code = text.charCodeAt(max - 1)
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max)
}

/** Every string inside a JSON value (not its keys), in order. */
function strings(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value)
  else if (typeof value === 'number' || typeof value === 'boolean') out.push(String(value))
  else if (Array.isArray(value)) for (const item of value) strings(item, out)
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) strings(item, out)
}

/** The lower-cased text a trace is found by. */
export function searchText(trace: Pick<Trace, 'name' | 'prompt' | 'response' | 'failure_reason' | 'steps'>): string {
  const parts: string[] = []
  for (const text of [trace.name, trace.prompt, trace.response, trace.failure_reason]) if (text) parts.push(text)
  for (const step of trace.steps) {
    strings(step.input, parts)
    strings(step.output, parts)
    if (step.error) parts.push(step.error)
  }
  return cut(parts.map((part) => cut(part, SEARCH_PIECE_CHARS)).join('\n'), SEARCH_TEXT_CHARS).toLowerCase()
}

/** The words of a `q`: split on white space, lower-cased; null when there is none. */
export function searchWords(q: string): string[] | null {
  const words = q
    .toLowerCase()
    .split(/\s+/u)
    .filter((w) => w !== '')
  return words.length === 0 ? null : [...new Set(words)].slice(0, MAX_SEARCH_WORDS)
}
