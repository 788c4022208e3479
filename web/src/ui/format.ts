// How numbers and times read everywhere in the viewer.

const integer = new Intl.NumberFormat('en-US')

export function formatMs(ms: number | null): string {
  if (ms === null) return '—'
  if (ms === 0) return '0 ms'
  if (ms < 1) return `${ms.toFixed(2)} ms`
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
  const minutes = Math.floor(ms / 60_000)
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`
}

export const formatCount = (n: number | null) => (n === null ? '—' : integer.format(n))

export function formatPercent(n: number): string {
  return `${n.toFixed(n === 100 || n === 0 ? 0 : 2)}%`
}

/** A UTC ISO timestamp as local date and time, to the second. */
export function formatTime(iso: string): string {
  const d = new Date(iso)
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
}

/** JSON values pretty-printed; strings as they are. */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === null || value === undefined) return ''
  return JSON.stringify(value, null, 2)
}
