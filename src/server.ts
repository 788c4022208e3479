// startServer(config): builds the app, listens, and shuts down gracefully on SIGTERM/SIGINT (in-flight requests
// finish, sockets and the database close). `loupe serve` calls it; run as a file (`npm start`), this module reads the
// configuration from the environment and calls it itself.
import { realpathSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import closeWithGrace from 'close-with-grace'
import { type BuildOptions, buildApp, type LoupeApp } from './app.js'
import { type Config, loadConfig } from './config.js'

/** Builds Loupe on `config` and listens on its host and port; rejects (the app closed) when it cannot listen. */
export async function startServer(config: Config, options: BuildOptions = {}): Promise<LoupeApp> {
  const app = await buildApp(config, options)
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error')
    else app.log.info({ signal }, 'shutting down')
    await app.close()
  })
  try {
    await app.listen({ port: config.port, host: config.host })
  } catch (err) {
    app.log.error({ err }, 'could not start')
    await app.close()
    throw err
  }
  return app
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
  let config: Config
  try {
    config = loadConfig(process.env)
  } catch (err) {
    console.error(`loupe: ${(err as Error).message}`)
    process.exit(1)
  }
  await startServer(config).catch(() => process.exit(1))
}
