// A leading-and-trailing throttle: the first call runs at once when the last run is older than the interval, else one
// run is scheduled at the end of the interval for every call made meanwhile. Pure (clock and timers are passed in),
// so the bound it gives — at most one run per interval, whatever the rate of calls — is tested without waiting.

export interface Clock {
  now(): number
  setTimeout(run: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}

export function throttle(run: () => void, intervalMs: number, clock: Clock = realClock) {
  let timer: unknown = null
  let lastRun = Number.NEGATIVE_INFINITY
  return {
    call() {
      if (timer !== null) return
      const wait = Math.max(0, lastRun + intervalMs - clock.now())
      timer = clock.setTimeout(() => {
        timer = null
        lastRun = clock.now()
        run()
      }, wait)
    },
    cancel() {
      if (timer !== null) clock.clearTimeout(timer)
      timer = null
    },
  }
}
