// loupe traces delete, loupe projects delete, loupe projects retention and loupe alerts. A deletion says what they would delete is said first, and asked on a terminal
// unless --yes; without a terminal (a script) --yes is required.
import { type Command, InvalidArgumentError, Option } from 'commander'
import { ALERT_METRICS, type AlertDestinationInput, type AlertRuleInput } from '../../../schemas/index.js'
import type { CliContext, CliIo } from '../context.js'
import { CliError } from '../errors.js'
import { hasTraceFilter, integer, nonNegative, traceFilterQuery, withTraceFilters } from '../options.js'

/** Goes on only when the user agreed: --yes, or yes to the question on a terminal. */
async function confirmed(io: CliIo, yes: boolean | undefined, question: string): Promise<void> {
  if (yes) return
  if (!io.confirm) throw new CliError(`${question} Pass --yes to confirm (no terminal to ask on).`, 2)
  if (!(await io.confirm(question))) throw new CliError('nothing deleted', 1)
}

function addDeleteCommands(traces: Command, projects: Command, { io, out, json, client }: CliContext) {
  // loupe traces delete
  withTraceFilters(
    traces
      .command('delete')
      .description('delete one trace by id, or every trace matching the filters')
      .argument('[trace_id]', 'the trace to delete'),
  )
    .option('--all', 'with no filter: delete every trace the credential can reach')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (traceId: string | undefined, options, command: Command) => {
      const filtered = hasTraceFilter(options)
      if (traceId !== undefined) {
        if (filtered || options.all) throw new CliError('give a trace id or filters, not both', 2)
        await confirmed(io, options.yes, `Delete trace ${traceId}?`)
        await client(command).deleteTrace(traceId)
        return options.json ? json({ deleted: 1 }) : out(`Deleted trace ${traceId}.\n`)
      }
      if (!filtered && !options.all) throw new CliError('give a trace id, filters, or --all to delete every trace', 2)
      const query = { ...traceFilterQuery(options), all: options.all ? true : undefined }
      const count = await client(command).listTraceSummaries({ ...query, limit: 1 })
      await confirmed(io, options.yes, `Delete ${count.total} matching trace(s)?`)
      const res = await client(command).deleteTraces(query)
      return options.json ? json(res) : out(`Deleted ${res.deleted} trace(s).\n`)
    })

  // loupe projects delete
  projects
    .command('delete')
    .description('delete a project with its traces, API keys and pending spans (cannot be undone)')
    .argument('<project_id>')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (projectId: string, options, command: Command) => {
      await confirmed(io, options.yes, `Delete project ${projectId} with all its traces and keys?`)
      const res = await client(command).projects.delete(projectId)
      if (options.json) return json(res)
      out(
        `Deleted project ${res.project_id}: ${res.deleted_traces} trace(s), ${res.deleted_api_keys} key(s), ` +
          `${res.deleted_pending_spans} pending span(s).\n`,
      )
    })
}

/** loupe projects retention: shows a project's retention, or sets it with --days / --max-traces. */
function addRetentionCommand(projects: Command, { out, json, client }: CliContext) {
  // `default` stays text here (commander turns a parsed null into ''); the action reads it as null.
  const setting = (name: string) => (value: string) => {
    if (value === 'default') return value
    if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`${name} must be a whole number ≥ 0, or default.`)
    return Number(value)
  }
  const given = (value: number | 'default' | undefined, current: number | null) =>
    value === undefined ? current : value === 'default' ? null : value
  projects
    .command('retention')
    .description('show a project’s retention, or set it (0: keep everything; default: follow the server)')
    .argument('<project_id>')
    .option('--days <n>', 'delete traces older than n days', setting('--days'))
    .option('--max-traces <n>', 'keep at most n traces, the oldest deleted first', setting('--max-traces'))
    .option('--json', 'print the server’s answer as JSON')
    .action(async (projectId: string, options, command: Command) => {
      const loupe = client(command)
      let current = await loupe.projects.retention(projectId)
      if (options.days !== undefined || options.maxTraces !== undefined) {
        const body = {
          retention_days: given(options.days, current.retention_days),
          retention_max_traces: given(options.maxTraces, current.retention_max_traces),
        }
        current = await loupe.projects.setRetention(projectId, body)
      }
      if (options.json) return json(current)
      const show = (own: number | null, applied: number, unit: string) =>
        `${applied === 0 ? 'no limit' : `${applied} ${unit}`}${own === null ? ' (the server’s)' : ''}`
      out(
        `${current.project_id}: age ${show(current.retention_days, current.effective.retention_days, 'days')}, ` +
          `count ${show(current.retention_max_traces, current.effective.retention_max_traces, 'traces')}\n`,
      )
    })
}

/** loupe alerts list | create | delete | events. */
function addAlertCommands(program: Command, { io, out, json, client }: CliContext) {
  const alerts = program.command('alerts').description('list, create and delete alert rules; list what they fired')
  alerts
    .command('list')
    .description('every alert rule with its state')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (options, command: Command) => {
      const { items } = await client(command).alerts.list()
      if (options.json) return json({ items })
      if (items.length === 0) return out('No alert rules.\n')
      for (const r of items) {
        out(
          `${r.rule_id}  ${r.state === 'firing' ? 'FIRING' : 'ok    '}  ${r.name}: ${r.metric} over ${r.window_minutes} min ` +
            `> ${r.threshold} on ${r.project_id ?? 'every project'} → ${r.destination.type} ${r.destination.url}` +
            `${r.last_value === null ? '' : ` (last ${r.last_value})`}\n`,
        )
      }
    })
  alerts
    .command('create')
    .description('create a rule: it fires when the metric over the window goes above the threshold')
    .requiredOption('--name <name>', 'what the alert says')
    .addOption(new Option('--metric <metric>', 'what to watch').choices(ALERT_METRICS).makeOptionMandatory())
    .requiredOption('--window <minutes>', 'the window, in minutes (1–1440)', integer('--window', 1, 1440))
    .requiredOption('--threshold <n>', 'fires above this', nonNegative('--threshold'))
    .option('-p, --project <project_id>', 'only this project (default: every project)')
    .option('--webhook <url>', 'POST the event as JSON to this URL')
    .option('--slack <url>', 'post a message to this Slack incoming webhook')
    .option('--secret <secret>', 'sign each delivery with HMAC-SHA256 (X-Loupe-Signature)')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (options, command: Command) => {
      if (Boolean(options.webhook) === Boolean(options.slack)) throw new CliError('give one of --webhook or --slack', 2)
      const destination: AlertDestinationInput = {
        type: options.webhook ? 'webhook' : 'slack',
        url: options.webhook ?? options.slack,
        ...(options.secret ? { secret: options.secret } : {}),
      }
      const body: AlertRuleInput = {
        name: options.name,
        project_id: options.project ?? null,
        metric: options.metric,
        window_minutes: options.window,
        threshold: options.threshold,
        destination,
      }
      const rule = await client(command).alerts.create(body)
      return options.json ? json(rule) : out(`Created alert rule ${rule.rule_id} (${rule.name}).\n`)
    })
  alerts
    .command('delete')
    .description('delete an alert rule (its events stay)')
    .argument('<rule_id>')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(async (ruleId: string, options, command: Command) => {
      await confirmed(io, options.yes, `Delete alert rule ${ruleId}?`)
      await client(command).alerts.delete(ruleId)
      out(`Deleted alert rule ${ruleId}.\n`)
    })
  alerts
    .command('events')
    .description('each firing and resolution, newest first')
    .option('--rule <rule_id>', 'only this rule')
    .option('-n, --limit <n>', 'at most n (1–1000)', integer('--limit', 1, 1000), 20)
    .option('--json', 'print the server’s answer as JSON')
    .action(async (options, command: Command) => {
      const { items } = await client(command).alerts.events({ rule_id: options.rule, limit: options.limit })
      if (options.json) return json({ items })
      if (items.length === 0) return out('No alert events.\n')
      for (const e of items) {
        out(
          `${e.at}  ${e.kind.padEnd(8)}  ${e.rule_name}: ${e.metric} ${e.value} (threshold ${e.threshold})  ` +
            `delivery ${e.delivery}${e.attempts > 1 ? ` after ${e.attempts} attempts` : ''}\n`,
        )
      }
    })
}

/** The commands over the data: deleting traces and projects, a project's retention, and alerts. */
export function addDataCommands(program: Command, cx: CliContext) {
  const command = (name: string) => {
    const found = program.commands.find((c) => c.name() === name)
    if (!found) throw new Error(`the ${name} command must be added before the data commands`)
    return found
  }
  addDeleteCommands(command('traces'), command('projects'), cx)
  addRetentionCommand(command('projects'), cx)
  addAlertCommands(program, cx)
}
