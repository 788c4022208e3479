// What every command of the CLI works with: the process's streams and environment (CliIo), writers and painters
// over them, and the SDK's read client for the server at --url with --token.
import type { Readable, Writable } from 'node:stream'
import type { Command } from 'commander'
import { Loupe } from '../client/index.js'
import { type Column, type OutputStream, type Paint, painter, table } from './format.js'

export interface CliIo {
  stdout: OutputStream
  stderr: OutputStream
  env: NodeJS.ProcessEnv
  /** Resolves when the user asks a long-running command (`tail`) to stop: Ctrl-C in a terminal. */
  interrupted: () => Promise<void>
  /** Asks the user a yes/no question (a terminal); absent when nobody can answer, so `--yes` is required. */
  confirm?: (question: string) => Promise<boolean>
  /** The process's own stdin and stdout, for a command that speaks a protocol over them (`mcp`). */
  stdio?: { stdin: Readable; stdout: Writable }
}

export interface GlobalOptions {
  url: string
  token?: string
}

export interface CliContext {
  io: CliIo
  out: (text: string) => void
  err: (text: string) => void
  paint: Paint
  paintErr: Paint
  /** Prints a value as indented JSON on stdout. */
  json: (value: unknown) => void
  /** The read client for this command's --url and --token (it records nothing). */
  client: (command: Command) => Loupe
  /** Prints a new key's secret, once, with the warning that it is shown only now. */
  printKey: (key: string, environment: string) => void
  /**
   * Prints a list answer: as JSON with --json; else `empty` when it holds no item, or its items as a table, then
   * `footer` (dimmed) when given.
   */
  printList: <Row>(
    options: { json?: boolean },
    list: { items: Row[]; total: number },
    columns: Column<Row>[],
    empty: string,
    footer?: string,
  ) => void
}

export function createContext(io: CliIo): CliContext {
  const out = (text: string): void => {
    io.stdout.write(text)
  }
  const err = (text: string): void => {
    io.stderr.write(text)
  }
  const paint = painter(io.stdout, io.env)
  const json = (value: unknown) => out(`${JSON.stringify(value, null, 2)}\n`)
  return {
    io,
    out,
    err,
    paint,
    paintErr: painter(io.stderr, io.env),
    json,
    client: (command) => {
      const { url, token } = command.optsWithGlobals<GlobalOptions>()
      return new Loupe({ baseUrl: url, apiKey: token, enabled: false, onWarning: (m) => err(`loupe: ${m}\n`) })
    },
    printKey: (key, environment) => {
      out(`API key (${environment}), shown only this once: store it now.\n`)
      out(`${paint('bold', key)}\n`)
    },
    printList: (options, list, columns, empty, footer) => {
      if (options.json) return json(list)
      if (list.items.length === 0) return out(empty)
      out(table(list.items, columns, io.stdout, paint))
      if (footer !== undefined) out(paint('dim', footer))
    },
  }
}
