// loupe tail: one line per trace as it is stored, until Ctrl-C.
import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { traceLine } from '../format.js'

export function addTailCommand(program: Command, { io, out, err, paint, paintErr, client }: CliContext): void {
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
}
