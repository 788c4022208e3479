// The small shared pieces: status badge, copy button, long text, error box, the buttons that end a filter bar.
import { useState } from 'react'
import type { TraceStatus } from '../../../schemas/index.js'
import { ApiError } from '../api/client.js'

export function StatusBadge({ status }: { status: TraceStatus | 'success' | 'failed' }) {
  return <span className={`badge ${status}`}>{status}</span>
}

/** Copies `text` (from a function, so large texts are only built when asked for). */
export function CopyButton({ text, label = 'Copy' }: { text: () => string; label?: string }) {
  const [done, setDone] = useState<'copied' | 'failed' | null>(null)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text())
      setDone('copied')
    } catch {
      setDone('failed')
    }
    setTimeout(() => setDone(null), 1500)
  }
  return (
    <button type="button" onClick={copy}>
      {done === 'copied' ? 'Copied' : done === 'failed' ? 'Copy failed' : label}
    </button>
  )
}

const LONG = 4000

/** Text shown whole when short; otherwise its start, with a switch to show all. */
export function LongText({ text, className }: { text: string; className?: string }) {
  const [open, setOpen] = useState(false)
  if (text.length <= LONG) return <pre className={className}>{text}</pre>
  return (
    <div>
      <pre className={className}>{open ? text : `${text.slice(0, LONG)}…`}</pre>
      <button type="button" onClick={() => setOpen(!open)} aria-expanded={open}>
        {open ? 'Show less' : `Show all (${text.length.toLocaleString('en-US')} characters)`}
      </button>
    </div>
  )
}

export function ErrorBox({ error }: { error: unknown }) {
  const message =
    error instanceof ApiError
      ? `${error.status === 0 ? '' : `${error.status}: `}${error.message}`
      : error instanceof Error
        ? error.message
        : String(error)
  return (
    <div className="error-box" role="alert">
      {message}
    </div>
  )
}

/** The end of a filter bar: Apply submits its form, Clear drops every filter. */
export function FilterActions({ onClear }: { onClear: () => void }) {
  return (
    <>
      <button type="submit" className="primary">
        Apply
      </button>
      <button type="button" onClick={onClear}>
        Clear
      </button>
    </>
  )
}
