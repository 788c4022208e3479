// A loop's pause that can be cut short: a background loop (the evaluation worker, backfill runs) sleeps until its next
// poll unless something says there is work now. A poke while the loop is busy is kept, so the next pause ends at once.

export interface Waker {
  /** There is work: end the pause under way, or the next one. */
  poke(): void
  /** Sleeps `ms` (at least 0), or until poked. */
  pause(ms: number): Promise<void>
  /** Forgets earlier pokes: called as the loop starts looking for work. */
  reset(): void
}

export function createWaker(): Waker {
  let wake: (() => void) | null = null
  let poked = false
  return {
    poke() {
      poked = true
      wake?.()
    },
    pause(ms) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(0, ms))
        function done() {
          clearTimeout(timer)
          wake = null
          resolve()
        }
        wake = done
        if (poked) done()
      })
    },
    reset() {
      poked = false
    },
  }
}
