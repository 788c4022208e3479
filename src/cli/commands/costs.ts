// loupe costs list | set | remove | recompute: model prices (overrides of the price database) and re-pricing.
import type { Command } from 'commander'
import type { ModelPrice } from '../../client/index.js'
import type { CliContext } from '../context.js'
import { formatTimestamp } from '../format.js'
import { nonNegative } from '../options.js'

export function addCostsCommand(program: Command, { out, json, client, printList }: CliContext): void {
  // loupe costs …
  const costs = program.command('costs').description('model prices and re-pricing stored traces (admin)')
  costs
    .command('list')
    .description('list the price overrides (other models are priced from the price database)')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (options, command: Command) => {
      const perMillion = (usd: number | null) => (usd === null ? '-' : `$${usd}`)
      printList(
        options,
        await client(command).costs.list(),
        [
          { header: 'PATTERN', value: (p: ModelPrice) => p.pattern, style: () => 'cyan' },
          { header: 'INPUT /1M', value: (p) => perMillion(p.input_price), align: 'right' },
          { header: 'OUTPUT /1M', value: (p) => perMillion(p.output_price), align: 'right' },
          { header: 'CACHED /1M', value: (p) => perMillion(p.cached_input_price), align: 'right' },
          { header: 'UPDATED (UTC)', value: (p) => formatTimestamp(p.updated_at), flex: true },
        ],
        'No price overrides: every model is priced from the price database.\n',
      )
    })
  costs
    .command('set')
    .description('price the models matching a pattern (`*` matches anything), in USD per million tokens')
    .argument('<pattern>', 'a model name, or a pattern such as gpt-4o* (quote it in a shell)')
    .requiredOption('--input <usd>', 'USD per million input tokens', nonNegative('--input'))
    .requiredOption('--output <usd>', 'USD per million output tokens', nonNegative('--output'))
    .option('--cached <usd>', 'USD per million cached input tokens (default: the input price)', nonNegative('--cached'))
    .option('--json', 'print the server’s answer as JSON')
    .action(async (pattern: string, options, command: Command) => {
      const price = await client(command).costs.set(pattern, {
        input_price: options.input,
        output_price: options.output,
        cached_input_price: options.cached ?? null,
      })
      if (options.json) return json(price)
      out(
        `${price.pattern}: $${price.input_price} input, $${price.output_price} output per million tokens. ` +
          'Traces stored from now on use it; `loupe costs recompute` prices stored ones again.\n',
      )
    })
  costs
    .command('remove')
    .description('remove a price override (matching models fall back to the price database)')
    .argument('<pattern>')
    .action(async (pattern: string, _options, command: Command) => {
      await client(command).costs.remove(pattern)
      out(`Removed the price of ${pattern}.\n`)
    })
  costs
    .command('recompute')
    .description('price stored traces again with the prices in force (reported costs are kept)')
    .option('--since <time>', 'only traces created at or after (ISO 8601 or epoch)')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (options, command: Command) => {
      const done = await client(command).costs.recompute(options.since === undefined ? {} : { since: options.since })
      if (options.json) return json(done)
      out(`${done.scanned} trace(s) priced again; ${done.changed} changed.\n`)
    })
}
