// loupe traces list | get: the filters of GET /traces as options (traces delete is in data.ts), a table or the API's JSON.
import { type Command, Option } from 'commander'
import { SORT_ORDERS, TRACE_SORTS } from '../../../schemas/index.js'
import type { Trace } from '../../client/index.js'
import type { CliContext } from '../context.js'
import { formatCost, formatLatency, formatTimestamp, STATUS_STYLE, table } from '../format.js'
import { traceFilterQuery, withPaging, withTraceFilters } from '../options.js'

export function addTracesCommand(program: Command, { io, out, paint, json, client }: CliContext): void {
  // loupe traces …
  const traces = program.command('traces').description('list, get and delete traces')
  withPaging(withTraceFilters(traces.command('list').description('list traces, newest first')), 'traces')
    .addOption(new Option('--sort <field>', 'order by this field').choices(TRACE_SORTS).default('created_at'))
    .addOption(new Option('--order <order>', 'descending or ascending').choices(SORT_ORDERS).default('desc'))
    .option('--cursor <cursor>', 'the page after this one (printed below each page that has more)')
    .action(async (options, command: Command) => {
      const list = await client(command).listTraces({
        ...traceFilterQuery(options),
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
    // `show` too: what a reader of the word "show" would type.
    .alias('show')
    .description('show one trace with its steps, as JSON')
    .argument('<trace_id>')
    .action(async (traceId: string, _options, command: Command) => {
      json(await client(command).getTrace(traceId))
    })
}
