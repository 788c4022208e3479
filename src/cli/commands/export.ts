// loupe export: every trace matching the filters of GET /traces, as NDJSON or CSV, streamed from the server to stdout
// or a file (never held in memory).
import { EventEmitter, once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { type Command, Option } from 'commander'
import { EXPORT_FORMATS } from '../../../schemas/index.js'
import { normalizeBaseUrl } from '../../client/http.js'
import { LoupeError } from '../../client/index.js'
import type { CliContext } from '../context.js'
import { CliError } from '../errors.js'
import { traceFilterQuery, withTraceFilters } from '../options.js'

export interface ServerOptions {
  url: string
  token?: string
}

/** The server URL of a path with a query (absent values left out), for the command's --url. */
export function serverUrl(command: Command, path: string, query: Record<string, unknown> = {}): URL {
  const { url } = command.optsWithGlobals<ServerOptions>()
  const target = new URL(path, normalizeBaseUrl(url))
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) target.searchParams.set(k, String(v))
  return target
}

/** A request to the server with the command's --token; a non-2xx answer throws the server's message. */
export async function send(command: Command, method: string, url: URL, body?: unknown): Promise<Response> {
  const { token } = command.optsWithGlobals<ServerOptions>()
  const headers: Record<string, string> = {}
  if (token) headers.authorization = `Bearer ${token}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  let res: Response
  try {
    res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  } catch (cause) {
    throw new LoupeError(`cannot reach the Loupe server at ${url.origin} (${(cause as Error).message})`, {
      status: null,
      url: url.href,
      cause,
    })
  }
  if (!res.ok) {
    const text = await res.text()
    let message = res.statusText
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message
    } catch {}
    throw new LoupeError(`${res.status} ${message}`, { status: res.status, url: url.href })
  }
  return res
}

export function addExportCommand(program: Command, { io, err }: CliContext) {
  // loupe export
  withTraceFilters(program.command('export').description('export every matching trace (NDJSON or CSV), streamed'))
    .addOption(
      new Option('-f, --format <format>', 'ndjson: one trace a line; csv: one row a trace')
        .choices(EXPORT_FORMATS)
        .default('ndjson'),
    )
    .option('-o, --output <file>', 'write to this file (refused when it exists) instead of stdout')
    .action(async (options, command: Command) => {
      const url = serverUrl(command, 'traces/export', { ...traceFilterQuery(options), format: options.format })
      const res = await send(command, 'GET', url)
      if (!res.body) throw new CliError('the server answered the export with no body')
      const body = Readable.fromWeb(res.body as never)
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
