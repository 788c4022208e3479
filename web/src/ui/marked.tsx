// A text with the words of a search marked (<mark>), as ui/highlight.ts finds them.
import { highlight } from './highlight.js'

export function Marked({ text, q }: { text: string; q: string | undefined }) {
  if (q === undefined) return <>{text}</>
  return (
    <>
      {highlight(text, q).map((segment, i) =>
        // biome-ignore lint/suspicious/noArrayIndexKey: segments are positional and never reordered.
        segment.match ? <mark key={i}>{segment.text}</mark> : <span key={i}>{segment.text}</span>,
      )}
    </>
  )
}
