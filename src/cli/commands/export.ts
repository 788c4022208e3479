// loupe export: every trace matching the filters of GET /traces, as NDJSON or CSV, streamed from the server to stdout
// or a file (never held in memory).
import { EventEmitter, once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { type Command, Option } from 'commander'
import { EXPORT_FORMATS } from '../../../schemas/index.js'
import type { CliContext } from '../context.js'
import { CliError } from '../errors.js'
import { traceFilterQuery, withTraceFilters } from '../options.js'

export function addExportCommand(program: Command, { io, err, client }: CliContext) {
  // loupe export
  withTraceFilters(program.command('export').description('export every matching trace (NDJSON or CSV), streamed'))
    .addOption(
      new Option('-f, --format <format>', 'ndjson: one trace a line; csv: one row a trace')
        .choices(EXPORT_FORMATS)
        .default('ndjson'),
    )
    .option('-o, --output <file>', 'write to this file (refused when it exists) instead of stdout')
    .action(async (options, command: Command) => {
      const stream = await client(command).exportTraces({ ...traceFilterQuery(options), format: options.format })
      const body = Readable.fromWeb(stream as never)
      if (options.output) {
        try {
          await pipeline(body, createWriteStream(options.output, { flags: 'wx' }))
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'EEXIST')
            throw new CliError(`${options.output} exists: not overwritten`)
          throw e
        }
        err(`Exported to ${options.output}\n`)
        return
      }
      // Decoded as a stream, so a character split between two chunks is written whole; stdout's backpressure is kept.
      body.setEncoding('utf8')
      for await (const text of body) {
        if (io.stdout.write(text) === false && io.stdout instanceof EventEmitter) await once(io.stdout, 'drain')
      }
    })
}
