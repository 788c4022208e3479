// startServer(config): builds the app, listens, and shuts down gracefully on SIGTERM/SIGINT (in-flight requests
// finish, sockets and the database close). `loupe serve` calls it; run as a file (`npm start`), this module reads the
// configuration from the environment and calls it itself.
import { realpathSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import closeWithGrace from 'close-with-grace'
import { type BuildOptions, buildApp, type LoupeApp } from './app.js'
import { type Config, loadConfig } from './config.js'
import { SettingError } from './errors.js'
import { redactPassword } from './lib/credentials.js'
import { boundHeapGrowth } from './lib/heap.js'
import { NativeModuleError } from './lib/native.js'
import { version } from './lib/version.js'
import { sqlitePath } from './store/sqlite/store.js'

export interface StartOptions extends BuildOptions {
  /** Where the banner goes once listening (default: stderr, beside the JSON logs on stdout); null: none. */
  announce?: ((text: string) => void) | null
}

/** Builds Loupe on `config` and listens on its host and port; rejects (the app closed) when it cannot listen. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<LoupeApp> {
  // A long-running server keeps its heap close to what it holds (lib/heap.ts).
  boundHeapGrowth(process.execArgv, process.env.NODE_OPTIONS)
  const app = await buildApp(config, options)
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error')
    else app.log.info({ signal }, 'shutting down')
    await app.close()
  })
  try {
    await app.listen({ port: config.port, host: config.host })
  } catch (err) {
    await app.close()
    throw listenError(err, config)
  }
  const announce = options.announce === undefined ? (text: string) => process.stderr.write(text) : options.announce
  announce?.(banner(app, config))
  return app
}

/** What a person starting Loupe wants to know first: which Loupe, on which database, how protected, and where. */
export function banner(app: LoupeApp, config: Config): string {
  const { port } = app.server.address() as AddressInfo
  const wildcard = config.host === '0.0.0.0' || config.host === '::'
  const host = wildcard ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host
  const base = `http://${host}:${port}`
  const database =
    app.store.dialect === 'sqlite'
      ? `SQLite, ${config.databaseUrl === ':memory:' ? 'in memory (nothing is kept)' : resolve(sqlitePath(config.databaseUrl))}`
      : `PostgreSQL, ${redactPassword(config.databaseUrl)}`
  const mode =
    config.adminToken === null
      ? 'open: reads and management need no credential (set LOUPE_ADMIN_TOKEN to protect them)'
      : 'protected: every data route needs the admin token or a project key'
  const lines = [
    `Loupe ${version} is listening${wildcard ? ` on every interface (${config.host})` : ''}`,
    `  database  ${database}`,
    `  mode      ${mode}`,
    `  API       ${base}/`,
    `  docs      ${base}/docs`,
  ]
  if (app.hasRoute({ method: 'GET', url: '/ui/*' })) lines.push(`  viewer    ${base}/ui/`)
  lines.push(`  live      ws://${host}:${port}/ws`, '')
  return lines.join('\n')
}

/** Why the server cannot listen where the configuration says, as a SettingError; other errors as they are. */
function listenError(err: unknown, { port, host }: Config): unknown {
  const code = (err as { code?: unknown })?.code
  if (code === 'EADDRINUSE') {
    return new SettingError(
      `PORT ${port} on HOST ${host} is already in use: stop what listens there, or set PORT to another port ` +
        '(0 picks a free one).',
    )
  }
  if (code === 'EACCES') {
    return new SettingError(`PORT ${port} needs privileges this process lacks: use a port above 1023.`)
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EINVAL') {
    return new SettingError(
      `HOST '${host}' is not an address of this machine: use 127.0.0.1 (this machine only), 0.0.0.0 (every ` +
        'interface) or the address of one of its interfaces.',
    )
  }
  return err
}

/** The one sentence a failed start prints: a setting's own message, else what went wrong, never a stack. */
export function startupFailure(err: unknown): string {
  if (err instanceof SettingError || err instanceof NativeModuleError) return err.message
  return `could not start: ${err instanceof Error ? err.message : String(err)}`
}

/** Whether this module is the file node was asked to run. */
const runAsFile = (() => {
  const entry = process.argv[1]
  if (entry === undefined) return false
  try {
    return import.meta.url === pathToFileURL(realpathSync(entry)).href
  } catch {
    return false
  }
})()

if (runAsFile) {
  try {
    await startServer(loadConfig(process.env))
  } catch (err) {
    console.error(`loupe: ${startupFailure(err)}`)
    process.exit(1)
  }
}
