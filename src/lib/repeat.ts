// A background job run every `intervalMs` after the previous run ended (never two at once, never keeping the
// process alive), for the retention job and the alert evaluator.
export interface RepeatingJob {
  start(): void
  /** Disarms the timer; a run under way is awaited by its owner. */
  stop(): void
}

export function repeatEvery(
  intervalMs: number,
  run: () => Promise<unknown>,
  onError: (err: unknown) => void,
): RepeatingJob {
  let timer: NodeJS.Timeout | null = null
  let stopped = true
  const tick = () => {
    timer = setTimeout(async () => {
      try {
        await run()
      } catch (err) {
        onError(err)
      }
      if (!stopped) tick()
    }, intervalMs)
    timer.unref()
  }
  return {
    start() {
      stopped = false
      tick()
    },
    stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      timer = null
    },
  }
}
