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

/**
 * A cost in USD; null is "unpriced" (no reported cost, no known price) and never $0. Small amounts keep their
 * significant digits: a single call often costs a fraction of a cent.
 */
export function formatCost(usd: number | null): string {
  if (usd === null) return 'unpriced'
  if (usd === 0) return '$0'
  const abs = Math.abs(usd)
  if (abs >= 1000) return `$${integer.format(Math.round(usd))}`
  if (abs >= 1) return `$${usd.toFixed(2)}`
  if (abs >= 0.01) return `$${usd.toFixed(4)}`
  // Two significant digits, down to the nano-dollar costs are kept to.
  return `$${usd.toFixed(Math.min(9, Math.ceil(-Math.log10(abs)) + 1))}`
}

/** A large number in few characters (an axis label): 950, 12.3K, 4.5M. */
export function formatCompact(n: number): string {
  const abs = Math.abs(n)
  if (abs < 1000) return integer.format(Math.round(n * 100) / 100)
  for (const [size, unit] of [
    [1e12, 'T'],
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'K'],
  ] as const) {
    if (abs >= size) {
      const value = n / size
      return `${Math.abs(value) < 10 ? Number(value.toFixed(1)) : Math.round(value)}${unit}`
    }
  }
  return String(n)
}

/** A score's value or mean: at most `decimals` decimals, trailing zeros dropped (0.525, 1, -2.5); null is "—". */
export function formatScore(value: number | null, decimals = 3): string {
  if (value === null) return '—'
  const text = value
    .toFixed(decimals)
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '')
  return text === '-0' ? '0' : text
}
