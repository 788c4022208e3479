// loupe serve: the server, on the configuration the environment and the flags give (flags win).
import { type Command, Option } from 'commander'
import { type Config, LOG_LEVELS, loadConfig } from '../../config.js'
import type { CliContext } from '../context.js'
import { CliError } from '../errors.js'
import { integer } from '../options.js'

export function addServeCommand(program: Command, { io }: CliContext): void {
  // loupe serve
  program
    .command('serve')
    .description('run the Loupe server (what `npm start` runs); stop it with Ctrl-C')
    .option('-p, --port <port>', 'TCP port (default: $PORT, else 3000)', integer('--port', 0, 65535))
    .option('--host <host>', 'interface to listen on (default: $HOST, else 127.0.0.1)')
    .option(
      '-d, --database <path>',
      'SQLite file, :memory:, or a postgres:// URL (default: $DATABASE_URL, else ./data/loupe.db)',
    )
    .addOption(new Option('--log-level <level>', 'log level (default: $LOG_LEVEL, else info)').choices(LOG_LEVELS))
    .action(async (options: { port?: number; host?: string; database?: string; logLevel?: Config['logLevel'] }) => {
      // Flags win over the environment.
      const flags: Partial<Config> = {}
      if (options.port !== undefined) flags.port = options.port
      if (options.host !== undefined) flags.host = options.host
      if (options.database !== undefined) flags.databaseUrl = options.database
      if (options.logLevel !== undefined) flags.logLevel = options.logLevel
      const { startServer, startupFailure } = await import('../../server.js')
      try {
        await startServer(loadConfig(io.env, flags))
      } catch (error) {
        throw new CliError(startupFailure(error))
      }
    })
}
