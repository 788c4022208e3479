// loupe traces list | get: the filters of GET /traces as options, a table or the API's JSON.
import { type Command, Option } from 'commander'
import { ENVIRONMENTS, TRACE_SORTS, TRACE_STATUSES } from '../../../schemas/index.js'
import type { Trace } from '../../client/index.js'
import type { CliContext } from '../context.js'
import { formatCost, formatLatency, formatTimestamp, STATUS_STYLE, table } from '../format.js'
import { integer, nonNegative } from '../options.js'

export function addTracesCommand(program: Command, { io, out, paint, json, client }: CliContext): void {
  // loupe traces …
  const traces = program.command('traces').description('list and show traces')
  traces
    .command('list')
    .description('list traces, newest first')
    .option('-p, --project <project_id>', 'only this project')
    .addOption(new Option('-s, --status <status>', 'only this status').choices(TRACE_STATUSES))
    .option('-m, --model <model>', 'only this model')
    .addOption(new Option('-e, --environment <environment>', 'only this environment').choices(ENVIRONMENTS))
    .option('--session <session_id>', 'only this session')
    .option('--user <user_id>', 'only this user')
    .option('--min-latency <ms>', 'latency ≥ this many ms', nonNegative('--min-latency'))
    .option('--max-latency <ms>', 'latency ≤ this many ms', nonNegative('--max-latency'))
    .option('--min-tokens <n>', 'token_count ≥ n', integer('--min-tokens', 0))
    .option('--max-tokens <n>', 'token_count ≤ n', integer('--max-tokens', 0))
    .option('--min-cost <usd>', 'cost ≥ this many USD', nonNegative('--min-cost'))
    .option('--max-cost <usd>', 'cost ≤ this many USD', nonNegative('--max-cost'))
    .option('--since <time>', 'created at or after (ISO 8601 or epoch)')
    .option('--until <time>', 'created before (ISO 8601 or epoch)')
    .option('--q <words>', 'full-text search: every word somewhere in its text, in any language')
    .addOption(new Option('--sort <field>', 'order by this field').choices(TRACE_SORTS).default('created_at'))
    .addOption(new Option('--order <order>', 'descending or ascending').choices(['desc', 'asc']).default('desc'))
    .option('-n, --limit <n>', 'at most n traces (1–1000)', integer('--limit', 1, 1000), 20)
    .option('--offset <n>', 'skip the first n', integer('--offset', 0), 0)
    .option('--cursor <cursor>', 'the page after this one (printed below each page that has more)')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (options, command: Command) => {
      const list = await client(command).listTraces({
        project_id: options.project,
        status: options.status,
        model: options.model,
        environment: options.environment,
        session_id: options.session,
        user_id: options.user,
        min_latency: options.minLatency,
        max_latency: options.maxLatency,
        min_tokens: options.minTokens,
        max_tokens: options.maxTokens,
        min_cost: options.minCost,
        max_cost: options.maxCost,
        since: options.since,
        until: options.until,
        q: options.q,
        sort: options.sort,
        order: options.order,
        cursor: options.cursor,
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
            { header: 'COST', value: (tr) => formatCost(tr.cost), align: 'right' },
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
      const order =
        options.sort === 'created_at'
          ? options.order === 'desc'
            ? 'newest first'
            : 'oldest first'
          : `by ${options.sort} ${options.order}`
      const more = list.next_cursor ? `; next page: --cursor ${list.next_cursor}` : ''
      out(paint('dim', `${list.items.length} of ${list.total} trace(s), ${order}${more}\n`))
    })

  traces
    .command('get')
    .description('show one trace with its steps, as JSON')
    .argument('<trace_id>')
    .action(async (traceId: string, _options, command: Command) => {
      json(await client(command).getTrace(traceId))
    })
}
