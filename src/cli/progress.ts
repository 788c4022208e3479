// Progress of a long command on stderr (seeding, an evaluator run): a bar on a terminal, else a line every 10 % or 5 s,
// so that a log of a CI job stays short.
import cliProgress from 'cli-progress'
import type { OutputStream } from './format.js'

const fmt = (n: number) => n.toLocaleString('en-US')

export interface ProgressReporter {
  /** `done` of `total` (a total that grows while it is being counted is given again). */
  update(done: number, total?: number): void
  stop(): void
}

/** Progress of `total` `unit` (e.g. traces) on `stream`. */
export function progressReporter(stream: OutputStream, total: number, unit: string): ProgressReporter {
  const started = performance.now()
  let all = total
  const rate = (done: number) => fmt(Math.round(done / Math.max(0.001, (performance.now() - started) / 1000)))
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `  {bar} {percentage}% | {value}/{total} ${unit} | {rate} ${unit}/s | ETA {eta_formatted}`,
        hideCursor: true,
        etaBuffer: 20,
        fps: 10,
        stream: stream as NodeJS.WritableStream,
      },
      cliProgress.Presets.shades_classic,
    )
    bar.start(total, 0, { rate: 0 })
    return {
      update(done, grown) {
        if (grown !== undefined && grown !== all) {
          all = grown
          bar.setTotal(grown)
        }
        bar.update(done, { rate: rate(done) })
      },
      stop: () => bar.stop(),
    }
  }
  let nextShare = 0.1
  let lastLine = started
  return {
    update(done, grown) {
      if (grown !== undefined) all = grown
      const now = performance.now()
      const share = all === 0 ? 1 : done / all
      if (share < nextShare && now - lastLine < 5000 && done !== all) return
      stream.write(`  ${fmt(done)}/${fmt(all)} ${unit} (${Math.floor(100 * share)}%), ${rate(done)} ${unit}/s\n`)
      while (nextShare <= share) nextShare += 0.1
      lastLine = now
    },
    stop() {},
  }
}
