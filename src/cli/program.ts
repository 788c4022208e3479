// The `loupe` command line: runCli(argv, io) parses with commander, runs one command against the server at --url
// (through the SDK's read client), and returns the exit code: 0 done, 1 failed, 2 used wrongly. It never calls
// process.exit, so tests run it in-process.
import { Command, CommanderError, Option } from 'commander'
import { DEFAULT_BASE_URL, LoupeError } from '../client/index.js'
import { version } from '../lib/version.js'
import { addCostsCommand } from './commands/costs.js'
import { addDataCommands } from './commands/data.js'
import { addDatasetsCommand } from './commands/datasets.js'
import { addEvaluatorsCommand } from './commands/evaluators.js'
import { addExperimentCommand } from './commands/experiment.js'
import { addExportCommand } from './commands/export.js'
import { addKeysCommand } from './commands/keys.js'
import { addMcpCommand } from './commands/mcp.js'
import { addProjectsCommand } from './commands/projects.js'
import { addScoresCommand } from './commands/scores.js'
import { addSeedCommand } from './commands/seed.js'
import { addServeCommand } from './commands/serve.js'
import { addSessionsCommands } from './commands/sessions.js'
import { addTailCommand } from './commands/tail.js'
import { addTracesCommand } from './commands/traces.js'
import { type CliIo, createContext } from './context.js'
import { CliError } from './errors.js'
import { painter } from './format.js'
import { checkUrl } from './options.js'

export type { CliIo } from './context.js'

const USAGE_ERROR = 2

/** The `loupe` program: the global options, then one command per file of commands/. */
export function buildProgram(io: CliIo): Command {
  const cx = createContext(io)
  const program = new Command('loupe')
    .description(
      'Loupe: self-hosted observability for LLM apps. Run the server, manage projects and keys, read traces and scores.',
    )
    .version(version, '-v, --version')
    .addOption(
      new Option('--url <url>', 'the Loupe server').env('LOUPE_BASE_URL').default(DEFAULT_BASE_URL).argParser(checkUrl),
    )
    .addOption(
      new Option('--token <credential>', 'sent as Authorization: Bearer, for servers that require one').env(
        'LOUPE_ADMIN_TOKEN',
      ),
    )
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({
      writeOut: cx.out,
      writeErr: cx.err,
      outputError: (message, write) => write(cx.paintErr('red', message)),
    })
  for (const add of [
    addServeCommand,
    addProjectsCommand,
    addKeysCommand,
    addTracesCommand,
    addScoresCommand,
    addEvaluatorsCommand,
    addSessionsCommands,
    addCostsCommand,
    addTailCommand,
    addSeedCommand,
    addExportCommand,
    addDataCommands,
    addMcpCommand,
    addDatasetsCommand,
    addExperimentCommand,
  ]) {
    add(program, cx)
  }
  return program
}

/** Runs the CLI; resolves to the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const program = buildProgram(io)
  const paintErr = painter(io.stderr, io.env)
  try {
    await program.parseAsync(argv, { from: 'user' })
    return 0
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version end with 0; every parsing error (already printed by commander) is a usage error.
      return error.exitCode === 0 ? 0 : USAGE_ERROR
    }
    if (error instanceof LoupeError) {
      const hint =
        error.status === null
          ? `\nIs the server running? Start it with \`loupe serve\`, or point --url (or LOUPE_BASE_URL) at it.`
          : error.status === 401
            ? '\nThis server is in protected mode: pass its admin token with --token (or set LOUPE_ADMIN_TOKEN).'
            : ''
      io.stderr.write(paintErr('red', `loupe: ${error.message}${hint}\n`))
      return 1
    }
    if (error instanceof CliError) {
      io.stderr.write(paintErr('red', `loupe: ${error.message}\n`))
      return error.exitCode
    }
    io.stderr.write(paintErr('red', `loupe: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`))
    return 1
  }
}
