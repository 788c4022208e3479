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

/**
 * A streamed answer written to `output` (a new file: refused when it exists) or to stdout, never held in memory; on
 * stdout it is decoded as a stream, so a character split between two chunks is written whole, and stdout's
 * backpressure is kept.
 */
export async function streamOut(
  stream: ReadableStream<Uint8Array>,
  output: string | undefined,
  { io, err }: CliContext,
) {
  const body = Readable.fromWeb(stream as never)
  if (output) {
    try {
      await pipeline(body, createWriteStream(output, { flags: 'wx' }))
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new CliError(`${output} exists: not overwritten`)
      throw e
    }
    err(`Exported to ${output}\n`)
    return
  }
  body.setEncoding('utf8')
  for await (const text of body) {
    if (io.stdout.write(text) === false && io.stdout instanceof EventEmitter) await once(io.stdout, 'drain')
  }
}

export function addExportCommand(program: Command, cx: CliContext) {
  // loupe export
  withTraceFilters(program.command('export').description('export every matching trace (NDJSON or CSV), streamed'))
    .addOption(
      new Option('-f, --format <format>', 'ndjson: one trace a line; csv: one row a trace')
        .choices(EXPORT_FORMATS)
        .default('ndjson'),
    )
    .option('-o, --output <file>', 'write to this file (refused when it exists) instead of stdout')
    .action(async (options, command: Command) => {
      const stream = await cx.client(command).exportTraces({ ...traceFilterQuery(options), format: options.format })
      await streamOut(stream, options.output, cx)
    })
}
