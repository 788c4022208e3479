// A uPlot time-series chart that follows its container's width and the theme; data updates redraw in place.
import { useEffect, useRef } from 'react'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { axisWidth } from '../features/dashboard/chart-data.js'

export interface Series {
  label: string
  values: number[]
  /** A value in full (the legend). */
  format: (value: number) => string
  /** A tick label on the y axis (short; `format` when not given). */
  tick?: (value: number) => string
}

/** The y axis as wide as its widest tick label, measured in the axis's own font. */
const fitAxis: uPlot.Axis.Size = (u, values, axisIdx, cycleNum) => {
  // At run time uPlot holds an axis's font as [css font, size] and its last size as _size.
  const axis = u.axes[axisIdx] as Omit<uPlot.Axis, 'font'> & { font?: [string, number]; _size?: number }
  // uPlot sizes axes in cycles until they settle; after the first two, keep the size.
  if (cycleNum > 1) return axis._size ?? 50
  u.ctx.save()
  if (axis.font) u.ctx.font = axis.font[0]
  const width = axisWidth(values, (text) => u.ctx.measureText(text).width / uPlot.pxRatio)
  u.ctx.restore()
  return width + (axis.gap ?? 5) + (axis.ticks?.size ?? 10)
}

const cssVar = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim()

export function TimeChart({
  title,
  x,
  series,
  height = 180,
}: {
  title: string
  x: number[]
  series: Series[]
  height?: number
}) {
  const box = useRef<HTMLDivElement>(null)
  const plot = useRef<uPlot | null>(null)
  const shape = series.map((s) => s.label).join('|')

  // biome-ignore lint/correctness/useExhaustiveDependencies: the chart is rebuilt only when its series change; data updates go through setData below.
  useEffect(() => {
    const el = box.current
    if (!el) return
    const fg = cssVar('--fg-muted')
    const grid = cssVar('--border')
    const colors = [cssVar('--accent'), cssVar('--bar-tool'), cssVar('--bar-retrieval')]
    const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } }
    const opts: uPlot.Options = {
      title,
      width: el.clientWidth || 400,
      height,
      scales: { x: { time: true } },
      axes: [
        axis,
        { ...axis, size: fitAxis, values: (_u, ticks) => ticks.map((t) => (series[0]!.tick ?? series[0]!.format)(t)) },
      ],
      series: [
        {},
        ...series.map((s, i) => ({
          label: s.label,
          stroke: colors[i % colors.length],
          fill: `${colors[i % colors.length]}22`,
          width: 2,
          value: (_u: uPlot, v: number | null) => (v === null ? '—' : s.format(v)),
        })),
      ],
    }
    plot.current = new uPlot(opts, [x, ...series.map((s) => s.values)], el)
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height }))
    resize.observe(el)
    return () => {
      resize.disconnect()
      plot.current?.destroy()
      plot.current = null
    }
  }, [shape, height, title])

  useEffect(() => {
    plot.current?.setData([x, ...series.map((s) => s.values)])
  }, [x, series])

  return <div className="chart" ref={box} data-chart={title} />
}
