// Live traces joining a loaded list: pure, so what the list does with each event is tested without a browser.
import type { InfiniteData } from '@tanstack/react-query'
import type { ListTraceSummariesResponse, TraceSummary } from '../../../../schemas/index.js'
import { newestFirst } from './filters.js'

export type TracePages = InfiniteData<ListTraceSummariesResponse, string | null>

/**
 * The list with `fresh` traces at its top (newest first among themselves) and its total grown by as many; traces the
 * list already holds are not added twice (a reconnect, or a page fetched after the trace was stored).
 */
export function insertLive(data: TracePages | undefined, fresh: readonly TraceSummary[]): TracePages | undefined {
  if (!data || data.pages.length === 0 || fresh.length === 0) return data
  const held = new Set<string>()
  for (const page of data.pages) for (const item of page.items) held.add(item.trace_id)
  const added: TraceSummary[] = []
  for (const trace of fresh) {
    if (held.has(trace.trace_id)) continue
    held.add(trace.trace_id)
    added.push(trace)
  }
  if (added.length === 0) return data
  added.sort(newestFirst)
  const [first, ...rest] = data.pages
  const total = first!.total + added.length
  return {
    ...data,
    pages: [{ ...first!, total, items: [...added, ...first!.items] }, ...rest.map((page) => ({ ...page, total }))],
  }
}

/**
 * The list without a trace that was deleted, its total one smaller; the same object when the list does not hold it
 * (a deleted trace outside the loaded pages changes the total only when read again).
 */
export function removeDeleted(data: TracePages | undefined, traceId: string): TracePages | undefined {
  if (!data?.pages.some((page) => page.items.some((item) => item.trace_id === traceId))) return data
  const total = Math.max(0, (data.pages[0]?.total ?? 1) - 1)
  return {
    ...data,
    pages: data.pages.map((page) => ({
      ...page,
      total,
      items: page.items.filter((item) => item.trace_id !== traceId),
    })),
  }
}

/** Traces held back while the list is paused: at most `cap` of them are kept (the count goes on). */
export interface Held {
  items: TraceSummary[]
  count: number
}

export const HELD_CAP = 500

export function hold(held: Held, trace: TraceSummary, cap = HELD_CAP): Held {
  return { items: held.items.length < cap ? [...held.items, trace] : held.items, count: held.count + 1 }
}

/** A deleted trace is no longer held (the count of new ones stays: it only says how many came). */
export function unhold(held: Held, traceId: string): Held {
  return held.items.some((item) => item.trace_id === traceId)
    ? { ...held, items: held.items.filter((item) => item.trace_id !== traceId) }
    : held
}

/** On resume: whether the held traces can simply join the list, or so many came that the list is read again. */
export const resumeByRefetch = (held: Held) => held.count > held.items.length
