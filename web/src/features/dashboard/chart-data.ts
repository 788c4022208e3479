// /analytics charts as uPlot series: 24 hourly points labelled HH:MM (UTC), oldest first, placed on a time axis.
import type { ChartPoint } from '../../../../schemas/index.js'

const HOUR_S = 3600

/**
 * The epoch seconds of each point: the last point is the hour that holds `now` (UTC), the others the hours before
 * it, as the server buckets them. Labels are checked against that: a label that does not match its hour (a chart
 * read across an hour boundary) shifts the axis by whole hours so that labels and times agree.
 */
export function chartTimes(points: readonly ChartPoint[], now: number): number[] {
  if (points.length === 0) return []
  let lastHour = Math.floor(now / 1000 / HOUR_S) * HOUR_S
  const label = points.at(-1)!.label
  const hour = Number(label.slice(0, 2))
  if (Number.isInteger(hour)) {
    const diff = (new Date(lastHour * 1000).getUTCHours() - hour + 24) % 24
    lastHour -= (diff > 12 ? diff - 24 : diff) * HOUR_S
  }
  return points.map((_, i) => lastHour - (points.length - 1 - i) * HOUR_S)
}

export function chartSeries(points: readonly ChartPoint[]) {
  return {
    traces: points.map((p) => p.traces),
    latency: points.map((p) => p.latency),
    tokens: points.map((p) => p.tokens),
    cost: points.map((p) => p.cost),
  }
}

/**
 * The width (CSS px) a y axis's tick labels need: the widest as `measure` reads it, plus a margin (the chart adds its
 * ticks and gap). A fixed width cut long labels such as 12,345,678 tokens.
 */
export function axisWidth(labels: readonly string[] | null | undefined, measure: (text: string) => number, extra = 4) {
  const widest = (labels ?? []).reduce((max, label) => Math.max(max, measure(label)), 0)
  return Math.ceil(widest + extra)
}
