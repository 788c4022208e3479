// The entry point: reads the configuration, builds the app, listens, and shuts down gracefully on SIGTERM/SIGINT.
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { loadConfig } from './config.js'

let config: ReturnType<typeof loadConfig>
try {
  config = loadConfig(process.env)
} catch (err) {
  console.error(`loupe: ${(err as Error).message}`)
  process.exit(1)
}

const app = await buildApp(config)

closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'shutting down after an error')
  else app.log.info({ signal }, 'shutting down')
  // Stops accepting, lets in-flight requests finish, closes sockets and the database.
  await app.close()
})

try {
  await app.listen({ port: config.port, host: config.host })
} catch (err) {
  app.log.error({ err }, 'could not start')
  await app.close()
  process.exit(1)
}
