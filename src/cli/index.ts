#!/usr/bin/env node
// The `loupe` executable (package.json "bin"): runs the CLI on this process's arguments and streams.
import { runCli } from './program.js'

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  interrupted: () =>
    new Promise((resolve) => {
      process.once('SIGINT', () => resolve())
      process.once('SIGTERM', () => resolve())
    }),
})
