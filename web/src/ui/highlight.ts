// Where the words of a search occur in a text, as segments to mark: matched the way the server matches (each word a
// substring, whatever the case), so what is marked is what was found.
import { searchWords } from '../../../schemas/search.js'

export interface Segment {
  text: string
  match: boolean
}

/**
 * The text cut into plain and matched segments. When lower-casing changes the text's length (a few letters, such as
 * the Turkish İ, lower-case to two units), positions would not line up: the text is then returned unmarked.
 */
export function highlight(text: string, q: string | undefined): Segment[] {
  const words = q === undefined ? null : searchWords(q)
  const lower = text.toLowerCase()
  if (words === null || text === '' || lower.length !== text.length) return [{ text, match: false }]
  const marked = new Uint8Array(text.length)
  for (const word of words) {
    for (let at = lower.indexOf(word); at !== -1; at = lower.indexOf(word, at + 1)) marked.fill(1, at, at + word.length)
  }
  const segments: Segment[] = []
  let start = 0
  for (let i = 1; i <= text.length; i++) {
    if (i === text.length || marked[i] !== marked[start]) {
      segments.push({ text: text.slice(start, i), match: marked[start] === 1 })
      start = i
    }
  }
  return segments
}
