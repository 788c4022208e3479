// loupe evaluators list | run | cancel: the rules with their figures; a backfill of one rule over past traces,
// followed with a progress bar until it ends (the exit code says how); a backfill cancelled.
import type { Command } from 'commander'
import type { EvaluatorRun, Loupe } from '../../client/index.js'
import type { CliContext } from '../context.js'
import { CliError } from '../errors.js'
import { formatTimestamp } from '../format.js'
import { progressReporter } from '../progress.js'

/** A rule named by its id or, failing that, by its name (which must then be unique). */
async function findRule(client: Loupe, named: string) {
  const { items } = await client.evaluators.list()
  const byId = items.find((e) => e.evaluator_id === named)
  if (byId) return byId
  const byName = items.filter((e) => e.name === named)
  if (byName.length === 1) return byName[0]!
  if (byName.length > 1) {
    throw new CliError(`${byName.length} evaluators are named '${named}': name one by its id (loupe evaluators list)`)
  }
  throw new CliError(`no evaluator has the id or name '${named}' (loupe evaluators list shows them)`)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export function addEvaluatorsCommand(program: Command, cx: CliContext): void {
  const { out, err, paint, json, client, printList, io } = cx
  // loupe evaluators …
  const evaluators = program.command('evaluators').description('evaluator rules and their backfills')
  evaluators
    .command('list')
    .description('the rules, oldest first, with what each has done')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (options, command: Command) => {
      const list = await client(command).evaluators.list()
      printList(
        options,
        list,
        [
          { header: 'ID', value: (e) => e.evaluator_id, style: () => 'dim' },
          { header: 'NAME', value: (e) => e.name, style: () => 'bold' },
          { header: 'KIND', value: (e) => e.kind },
          { header: 'SCORE', value: (e) => e.score_name },
          { header: 'ON', value: (e) => (e.enabled ? 'yes' : 'no') },
          { header: 'EVALUATED', value: (e) => String(e.stats.evaluated), align: 'right' },
          { header: 'ERRORS', value: (e) => String(e.stats.errors), align: 'right' },
          { header: 'PENDING', value: (e) => String(e.stats.pending), align: 'right' },
          { header: 'JUDGE $', value: (e) => e.stats.judge_cost.toFixed(4), align: 'right' },
        ],
        'No evaluator rules.',
      )
    })

  evaluators
    .command('run <evaluator>')
    .description('evaluate past traces with a rule (its id or name), and follow the run until it ends')
    .option('--since <time>', 'traces created at or after (ISO 8601 or epoch)')
    .option('--until <time>', 'traces created before (ISO 8601 or epoch)')
    .option('--no-wait', 'start the run and print it, without following it')
    .option('--json', 'print the run as JSON (when it ends, or at once with --no-wait)')
    .action(async (named: string, options, command: Command) => {
      const api = client(command)
      const rule = await findRule(api, named)
      let run: EvaluatorRun = await api.evaluators.startRun(rule.evaluator_id, {
        ...(options.since === undefined ? {} : { since: options.since }),
        ...(options.until === undefined ? {} : { until: options.until }),
      })
      if (options.wait) {
        err(`Run ${run.run_id} of '${rule.name}' started; Ctrl-C leaves it running (loupe evaluators cancel).\n`)
        const bar = progressReporter(io.stderr, run.total, 'traces')
        while (run.status === 'running') {
          await sleep(500)
          run = await api.evaluators.getRun(run.run_id)
          bar.update(run.done, run.total)
        }
        bar.stop()
      }
      if (options.json) json(run)
      else {
        const figures = `${run.done}/${run.total} traces evaluated, ${run.errors} errors, judge $${run.cost.toFixed(4)}`
        const color = run.status === 'done' || run.status === 'running' ? 'green' : 'red'
        out(`${paint(color, run.status)} ${run.run_id}: ${figures}\n`)
        if (run.last_error) out(paint('dim', `last error: ${run.last_error}\n`))
        if (run.finished_at) out(paint('dim', `finished ${formatTimestamp(run.finished_at)} UTC\n`))
      }
      if (run.status === 'failed' || run.status === 'cancelled') {
        throw new CliError(`the run ${run.status === 'failed' ? 'failed' : 'was cancelled'}`, 1)
      }
    })

  evaluators
    .command('cancel <run_id>')
    .description('cancel a backfill run (the scores it wrote stay)')
    .action(async (runId: string, _options, command: Command) => {
      const run = await client(command).evaluators.cancelRun(runId)
      out(`${run.status} ${run.run_id}: ${run.done}/${run.total} traces evaluated\n`)
    })
}
