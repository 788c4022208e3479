// The CLI's connection to this process: its streams and environment, and Ctrl-C (or SIGTERM) as the end of a
// long-running command; on a terminal, a yes/no question before a deletion.
import { createInterface } from 'node:readline/promises'
import type { CliIo } from './context.js'

export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    stdio: { stdin: process.stdin, stdout: process.stdout },
    interrupted: () =>
      new Promise((resolve) => {
        process.once('SIGINT', () => resolve())
        process.once('SIGTERM', () => resolve())
      }),
    confirm: process.stdin.isTTY
      ? async (question) => {
          const rl = createInterface({ input: process.stdin, output: process.stderr })
          try {
            return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim())
          } finally {
            rl.close()
          }
        }
      : undefined,
  }
}
