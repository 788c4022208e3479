// The CLI's connection to this process: its streams and environment, and Ctrl-C (or SIGTERM) as the end of a
// long-running command.
import type { CliIo } from './context.js'

export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    interrupted: () =>
      new Promise((resolve) => {
        process.once('SIGINT', () => resolve())
        process.once('SIGTERM', () => resolve())
      }),
  }
}
