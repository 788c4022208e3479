#!/usr/bin/env node
// The `loupe` executable (package.json "bin"): runs the CLI on this process's arguments and streams.
import { processIo } from './io.js'
import { runCli } from './program.js'

process.exitCode = await runCli(process.argv.slice(2), processIo())
