// npm run seed -- --traces N [--days D] [--projects P] [--database URL] [--seed S] [--force]: the same command as
// `loupe seed` (src/cli/commands/seed.ts), kept under this name for the README and muscle memory.
import { processIo } from '../src/cli/io.js'
import { runCli } from '../src/cli/program.js'

process.exitCode = await runCli(['seed', ...process.argv.slice(2)], processIo())
