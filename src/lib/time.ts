// Timestamps: every form a client may send, folded to UTC; and the two forms the contract returns.

/** An hour and a day in ms: the analytics buckets, the rollups and the seed's rhythm count in these. */
export const HOUR_MS = 3_600_000
export const DAY_MS = 24 * HOUR_MS

/**
 * The answer time of a route that streams or works through every matching trace (export, deletion by filter, a
 * project's deletion, re-pricing): minutes at a million traces, so REQUEST_TIMEOUT_MS must not cut it midway.
 * Such a route sets it as its own `handlerTimeout` (then Fastify times it, not src/plugins/deadline.ts), at most
 * setTimeout's limit (about 24 days).
 */
export const LONG_RUNNING_MS = 2_147_483_647

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/
const EPOCH = /^\d+(?:\.\d+)?$/
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

/** Epoch number → ms: seconds when < 1e11, otherwise milliseconds. */
function epochToMs(value: number): number | null {
  if (!Number.isFinite(value) || value < 0) return null
  const ms = Math.floor(value < 1e11 ? value * 1000 : value)
  return ms <= MAX_MS ? ms : null
}

/**
 * Parses an ISO 8601 string (any offset; none means UTC) or an epoch number (or numeric string)
 * to epoch milliseconds. Returns null when the value is not a real point in time.
 */
export function parseTimestamp(value: unknown): number | null {
  if (typeof value === 'number') return epochToMs(value)
  if (typeof value !== 'string') return null
  const text = value.trim()
  if (EPOCH.test(text)) return epochToMs(Number(text))
  const m = ISO.exec(text)
  if (!m) return null
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const hour = Number(h)
  const minute = Number(mi)
  const second = Number(s)
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null
  const ms = Number(frac.padEnd(3, '0').slice(0, 3))
  const local = Date.UTC(year, month - 1, day, hour, minute, second, ms)
  // Date.UTC rolls 31 April over into May: reject what does not round-trip.
  if (new Date(local).getUTCDate() !== day) return null
  let offsetMinutes = 0
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1
    const digits = zone.slice(1).replace(':', '')
    const oh = Number(digits.slice(0, 2))
    const om = Number(digits.slice(2) || '0')
    if (oh > 23 || om > 59) return null
    offsetMinutes = sign * (oh * 60 + om)
  }
  const utc = local - offsetMinutes * 60_000
  return utc >= 0 && utc <= MAX_MS ? utc : null
}

/** `2026-11-21T13:45:00.123Z`: the form of every trace timestamp. */
export const toUtcIso = (ms: number): string => new Date(ms).toISOString()

/** `2026-11-21T13:45:00.123`: UTC without a zone designator, the form of project and key timestamps. */
export const toZonelessIso = (ms: number): string => new Date(ms).toISOString().slice(0, -1)

/** Parses a zoneless (UTC) timestamp written by `toZonelessIso`. */
export const fromZonelessIso = (text: string): number => Date.parse(`${text}Z`)

/** A duration in ms rounded to whole microseconds (3 decimals), as every latency is stored: no float noise. */
export const roundToMicros = (ms: number): number => Math.round(ms * 1000) / 1000
