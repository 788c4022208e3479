// How the CLI shows things to a person: colours (only on a terminal, never with NO_COLOR), aligned tables that fit
// the terminal, and the one-line form of a trace that `loupe tail` prints.
import type { Trace } from '../../schemas/index.js'

export interface OutputStream {
  write(text: string): unknown
  isTTY?: boolean
  columns?: number
}

const ANSI = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
} as const
export type Style = keyof typeof ANSI

export type Paint = (style: Style | undefined, text: string) => string

/** Colours for a stream: on when it is a terminal (or FORCE_COLOR is set), off with NO_COLOR or TERM=dumb. */
export function painter(stream: OutputStream, env: NodeJS.ProcessEnv): Paint {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0'
  const enabled =
    (env.NO_COLOR === undefined || env.NO_COLOR === '') && env.TERM !== 'dumb' && (forced || stream.isTTY === true)
  if (!enabled) return (_style, text) => text
  return (style, text) => (style ? `\u001b[${ANSI[style][0]}m${text}\u001b[${ANSI[style][1]}m` : text)
}

export const STATUS_STYLE: Record<Trace['status'], Style> = { success: 'green', warning: 'yellow', failed: 'red' }

/** Text on one line, at most `max` characters (an ellipsis says it was cut). */
export function oneLine(text: string | null | undefined, max = Number.POSITIVE_INFINITY): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim()
  if (flat.length <= max) return flat
  return max <= 1 ? flat.slice(0, max) : `${flat.slice(0, max - 1)}…`
}

export function formatLatency(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`
}

/** `2026-11-21T13:45:00.123Z` (or zoneless) → `2026-11-21 13:45:00`. */
export function formatTimestamp(iso: string | null): string {
  return iso ? iso.replace('T', ' ').slice(0, 19) : '-'
}

export interface Column<Row> {
  header: string
  value: (row: Row) => string
  style?: (row: Row) => Style | undefined
  align?: 'right'
  /** The one column that is cut to make the table fit the terminal. */
  flex?: boolean
}

/** Rows as an aligned table with a header; on a terminal, the flex column is cut to the terminal's width. */
export function table<Row>(rows: Row[], columns: Column<Row>[], out: OutputStream, paint: Paint): string {
  const cells = rows.map((row) => columns.map((c) => oneLine(c.value(row))))
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)))
  const flex = columns.findIndex((c) => c.flex)
  const limit = out.isTTY && out.columns ? out.columns : 160
  if (flex >= 0) {
    const others = widths.reduce((sum, w, i) => (i === flex ? sum : sum + w + 2), 0)
    widths[flex] = Math.max(columns[flex]!.header.length, Math.min(widths[flex]!, limit - others))
  }
  const line = (values: string[], styles: (Style | undefined)[]) =>
    values
      .map((value, i) => {
        const text = oneLine(value, widths[i])
        const padded = columns[i]!.align === 'right' ? text.padStart(widths[i]!) : text.padEnd(widths[i]!)
        return paint(styles[i], padded)
      })
      .join('  ')
      .trimEnd()
  const header = line(
    columns.map((c) => c.header),
    columns.map(() => 'bold' as const),
  )
  const body = rows.map((row, r) =>
    line(
      cells[r]!,
      columns.map((c) => c.style?.(row)),
    ),
  )
  return `${[header, ...body].join('\n')}\n`
}

/** One line per trace, for `loupe tail`: time, status, project, model, latency, tokens, name and prompt. */
export function traceLine(trace: Trace, paint: Paint, width = 160): string {
  const fields: [string, Style | undefined][] = [
    [trace.created_at.slice(11, 23), 'dim'],
    [trace.status.padEnd(7), STATUS_STYLE[trace.status]],
    [trace.project_id, 'cyan'],
    [trace.model ?? '-', undefined],
    [formatLatency(trace.latency), undefined],
    [`${trace.token_count} tok`, undefined],
  ]
  const failed = trace.status === 'failed' && trace.failure_reason
  const what = `${trace.name ? `${trace.name}: ` : ''}${failed ? trace.failure_reason : trace.prompt}`
  const used = fields.reduce((sum, [text]) => sum + text.length + 2, 0)
  fields.push([oneLine(what, Math.max(20, width - used)), failed ? 'red' : undefined])
  return `${fields.map(([text, style]) => paint(style, text)).join('  ')}\n`
}

/** A cost in USD for a table: `-` when unpriced, cents below a dollar shown to the precision they need. */
export function formatCost(usd: number | null): string {
  if (usd === null) return '-'
  if (usd === 0) return '$0'
  if (usd >= 1) return `$${usd.toFixed(2)}`
  return `$${usd.toPrecision(3).replace(/0+$/, '').replace(/\.$/, '')}`
}
