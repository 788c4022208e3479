// The `loupe` command line: runCli(argv, io) parses with commander, runs one command against the server at --url
// (through the SDK's read client), and returns the exit code: 0 done, 1 failed, 2 used wrongly. It never calls
// process.exit, so tests run it in-process.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander'
import { ENVIRONMENTS } from '../../schemas/index.js'
import { DEFAULT_BASE_URL, Loupe, LoupeError, type Trace } from '../client/index.js'
import { type Config, LOG_LEVELS, loadConfig } from '../config.js'
import { version } from '../lib/version.js'
import { addAlertCommands, addDeleteCommands, addRetentionCommand } from './data-commands.js'
import { CliError } from './errors.js'
import { addExportCommand } from './export.js'
import { formatLatency, formatTimestamp, type OutputStream, painter, STATUS_STYLE, table, traceLine } from './format.js'
import { integer, traceFilterQuery, withTraceFilters } from './trace-filters.js'

export interface CliIo {
  stdout: OutputStream
  stderr: OutputStream
  env: NodeJS.ProcessEnv
  /** Resolves when the user asks a long-running command (`tail`) to stop: Ctrl-C in a terminal. */
  interrupted: () => Promise<void>
  /** Asks the user a yes/no question (a terminal); absent when nobody can answer, so `--yes` is required. */
  confirm?: (question: string) => Promise<boolean>
}

const USAGE_ERROR = 2

interface GlobalOptions {
  url: string
  token?: string
}

const positive = (name: string) => (value: string) => {
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError(`${name} must be a number > 0.`)
  return n
}

/** The options of the commands that issue a key: its environment, and how to print the one-time secret. */
const withNewKeyOptions = (command: Command) =>
  command
    .addOption(
      new Option('-e, --environment <environment>', 'environment of the key')
        .choices(ENVIRONMENTS)
        .default('development'),
    )
    .option('-q, --quiet', 'print only the key (for scripts)')
    .option('--json', 'print the server’s answer as JSON')

const checkUrl = (value: string) => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new InvalidArgumentError('expected an http(s) URL such as http://127.0.0.1:3000.')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgumentError('expected an http(s) URL such as http://127.0.0.1:3000.')
  }
  return value
}

export function buildProgram(io: CliIo): Command {
  const out = (text: string): void => {
    io.stdout.write(text)
  }
  const err = (text: string): void => {
    io.stderr.write(text)
  }
  const paint = painter(io.stdout, io.env)
  const paintErr = painter(io.stderr, io.env)
  const json = (value: unknown) => out(`${JSON.stringify(value, null, 2)}\n`)

  const program = new Command('loupe')
    .description(
      'Loupe: self-hosted observability for LLM apps. Run the server, manage projects and keys, read traces.',
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
      writeOut: out,
      writeErr: err,
      outputError: (message, write) => write(paintErr('red', message)),
    })

  const client = (command: Command) => {
    const { url, token } = command.optsWithGlobals<GlobalOptions>()
    return new Loupe({ baseUrl: url, apiKey: token, enabled: false, onWarning: (m) => err(`loupe: ${m}\n`) })
  }

  const printKey = (key: string, environment: string) => {
    out(`API key (${environment}), shown only this once: store it now.\n`)
    out(`${paint('bold', key)}\n`)
  }

  // loupe serve
  program
    .command('serve')
    .description('run the Loupe server (what `npm start` runs); stop it with Ctrl-C')
    .option('-p, --port <port>', 'TCP port (default: $PORT, else 3000)', integer('--port', 0, 65535))
    .option('--host <host>', 'interface to listen on (default: $HOST, else 127.0.0.1)')
    .option('-d, --database <path>', 'SQLite file or :memory: (default: $DATABASE_URL, else ./data/loupe.db)')
    .addOption(new Option('--log-level <level>', 'log level (default: $LOG_LEVEL, else info)').choices(LOG_LEVELS))
    .action(async (options: { port?: number; host?: string; database?: string; logLevel?: Config['logLevel'] }) => {
      // Flags win over the environment.
      const flags: Partial<Config> = {}
      if (options.port !== undefined) flags.port = options.port
      if (options.host !== undefined) flags.host = options.host
      if (options.database !== undefined) flags.databaseUrl = options.database
      if (options.logLevel !== undefined) flags.logLevel = options.logLevel
      let config: Config
      try {
        config = loadConfig(io.env, flags)
      } catch (error) {
        throw new CliError((error as Error).message)
      }
      const { startServer } = await import('../server.js')
      await startServer(config).catch((error: Error) => {
        throw new CliError(`could not start: ${error.message}`)
      })
    })

  // loupe projects …
  const projects = program.command('projects').description('create, list and delete projects')
  withNewKeyOptions(projects.command('create'))
    .description('create a project and its first API key (the key is printed once)')
    .requiredOption('-n, --name <name>', 'project name; its slug becomes the project_id')
    .option('--description <text>', 'free text')
    .action(async (options, command: Command) => {
      const created = await client(command).projects.create({
        name: options.name,
        environment: options.environment,
        description: options.description,
      })
      if (options.json) return json(created)
      if (options.quiet) return out(`${created.api_key.key}\n`)
      out(`Created project ${paint('cyan', created.project.project_id)} (${created.project.name}).\n`)
      printKey(created.api_key.key, created.api_key.environment)
    })

  projects
    .command('list')
    .description('list every project, oldest first')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (options, command: Command) => {
      const list = await client(command).projects.list()
      if (options.json) return json(list)
      if (list.total === 0) return out('No projects yet. Create one: loupe projects create --name "My App"\n')
      out(
        table(
          list.items,
          [
            { header: 'PROJECT ID', value: (p) => p.project_id, style: () => 'cyan' },
            { header: 'NAME', value: (p) => p.name },
            { header: 'CREATED (UTC)', value: (p) => formatTimestamp(p.created_at) },
            { header: 'DESCRIPTION', value: (p) => p.description, flex: true },
          ],
          io.stdout,
          paint,
        ),
      )
    })

  // loupe keys …
  const keys = program.command('keys').description('list, create and revoke API keys')
  keys
    .command('list')
    .description('list API keys (never their secrets)')
    .option('-p, --project <project_id>', 'only the keys of this project')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (options, command: Command) => {
      const list = await client(command).apiKeys.list({ project_id: options.project })
      if (options.json) return json(list)
      if (list.total === 0) return out('No API keys.\n')
      out(
        table(
          list.items,
          [
            { header: 'KEY ID', value: (k) => k.key_id },
            { header: 'KEY', value: (k) => k.key_preview },
            { header: 'PROJECT', value: (k) => k.project_id, style: () => 'cyan' },
            { header: 'ENVIRONMENT', value: (k) => k.environment },
            { header: 'CREATED (UTC)', value: (k) => formatTimestamp(k.created_at) },
            { header: 'LAST USED', value: (k) => formatTimestamp(k.last_used_at) },
            {
              header: 'STATE',
              value: (k) => (k.revoked_at ? 'revoked' : 'active'),
              style: (k) => (k.revoked_at ? 'red' : 'green'),
            },
          ],
          io.stdout,
          paint,
        ),
      )
    })

  withNewKeyOptions(keys.command('create'))
    .description('issue another API key for a project (printed once)')
    .requiredOption('-p, --project <project_id>', 'the project')
    .action(async (options, command: Command) => {
      const created = await client(command).apiKeys.create({
        project_id: options.project,
        environment: options.environment,
      })
      if (options.json) return json(created)
      if (options.quiet) return out(`${created.key}\n`)
      out(`Created key ${created.key_id} for project ${paint('cyan', created.project_id)}.\n`)
      printKey(created.key, created.environment)
    })

  keys
    .command('revoke')
    .description('revoke an API key: it is refused from now on')
    .argument('<key_id>', 'the KEY ID shown by `loupe keys list`')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (keyId: string, options, command: Command) => {
      const revoked = await client(command).apiKeys.revoke(keyId)
      if (options.json) return json(revoked)
      out(`Revoked key ${revoked.key_preview} of project ${paint('cyan', revoked.project_id)}.\n`)
    })

  // loupe traces …
  const traces = program.command('traces').description('list, show and delete traces')
  withTraceFilters(traces.command('list').description('list traces, newest first'))
    .option('-n, --limit <n>', 'at most n traces (1–1000)', integer('--limit', 1, 1000), 20)
    .option('--offset <n>', 'skip the n newest', integer('--offset', 0), 0)
    .option('--json', 'print the server’s answer as JSON')
    .action(async (options, command: Command) => {
      const list = await client(command).listTraces({
        ...traceFilterQuery(options),
        limit: options.limit,
        offset: options.offset,
      })
      if (options.json) return json(list)
      if (list.items.length === 0) {
        return out(list.total === 0 ? 'No traces match.\n' : `No traces past offset ${options.offset}.\n`)
      }
      out(
        table(
          list.items,
          [
            { header: 'CREATED (UTC)', value: (tr: Trace) => formatTimestamp(tr.created_at) },
            { header: 'STATUS', value: (tr) => tr.status, style: (tr) => STATUS_STYLE[tr.status] },
            { header: 'PROJECT', value: (tr) => tr.project_id, style: () => 'cyan' },
            { header: 'MODEL', value: (tr) => tr.model ?? '-' },
            { header: 'LATENCY', value: (tr) => formatLatency(tr.latency), align: 'right' },
            { header: 'TOKENS', value: (tr) => String(tr.token_count), align: 'right' },
            { header: 'TRACE ID', value: (tr) => tr.trace_id, style: () => 'dim' },
            {
              header: 'NAME / PROMPT',
              value: (tr) => `${tr.name ? `${tr.name}: ` : ''}${tr.failure_reason ?? tr.prompt}`,
              flex: true,
            },
          ],
          io.stdout,
          paint,
        ),
      )
      const shown = options.offset + list.items.length
      const more = shown < list.total ? `; next page: --offset ${shown}` : ''
      out(paint('dim', `${list.items.length} of ${list.total} trace(s), newest first${more}\n`))
    })

  traces
    .command('get')
    .description('show one trace with its steps, as JSON')
    .argument('<trace_id>')
    .action(async (traceId: string, _options, command: Command) => {
      json(await client(command).getTrace(traceId))
    })

  // loupe tail
  program
    .command('tail')
    .description('follow traces live, one line each, until Ctrl-C')
    .option('-p, --project <project_id>', 'only this project')
    .option('--json', 'one JSON trace per line')
    .action(async (options, command: Command) => {
      const loupe = client(command)
      await loupe.health() // a wrong --url or a stopped server is an error now, not silence
      const width = io.stdout.isTTY && io.stdout.columns ? io.stdout.columns : 160
      const subscription = loupe.subscribe(
        (trace) => out(options.json ? `${JSON.stringify(trace)}\n` : traceLine(trace, paint, width)),
        {
          projectId: options.project,
          onStatus: (status) => {
            if (status.state === 'open') {
              const scope = options.project ? `project ${options.project}` : 'every project'
              err(paintErr('dim', `Following ${scope} on ${status.url} (Ctrl-C to stop)\n`))
            } else if (status.state === 'reconnecting' && status.attempt === 1) {
              err(paintErr('yellow', `Connection lost (${status.reason}); reconnecting…\n`))
            }
          },
        },
      )
      await io.interrupted()
      subscription.close()
    })

  addExportCommand(program, { io, err })
  addDeleteCommands(traces, projects, { io, out, json })
  addRetentionCommand(projects, { out, json })
  addAlertCommands(program, { io, out, json })

  // loupe seed (npm run seed runs this too)
  program
    .command('seed')
    .description('fill a SQLite database with realistic synthetic traces, and print the demo projects’ keys')
    .option('-n, --traces <n>', 'how many traces', integer('--traces', 1), 10_000)
    .option('--days <d>', 'spread them over the last d days', positive('--days'), 7)
    .option('--projects <p>', 'how many projects', integer('--projects', 1, 1000), 5)
    .option('-d, --database <path>', 'SQLite path or file: URL (default: $DATABASE_URL, else ./data/loupe.db)')
    .option(
      '--seed <s>',
      'integer seed: the same data set (relative to now) every time; keys stay random',
      integer('--seed', 0),
    )
    .option('--force', 'add traces even when the database already holds some')
    .option('--json', 'print the demo projects and keys as JSON')
    .action(async (options) => {
      const { runSeed, describeSeed } = await import('./seed.js')
      const database = options.database ?? loadConfig(io.env).databaseUrl
      const report = await runSeed({ ...options, database }, io.stderr)
      if (options.json) return json(report)
      out(describeSeed(report, options.traces))
    })

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
