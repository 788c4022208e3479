// Opens the store named by the configuration, exposes it as `app.store` with its writes watched (`app.storeWrites`:
// whether it takes writes, for GET /health and /metrics), closes it with the app.
import fp from 'fastify-plugin'
import { createStore } from '../store/index.js'
import type { Store } from '../store/types.js'
import { type WriteHealth, watchWrites } from '../store/write-health.js'

declare module 'fastify' {
  interface FastifyInstance {
    store: Store
    storeWrites: WriteHealth
  }
}

export default fp<{ store?: Store }>(
  async (app, opts) => {
    const log = app.log.child({ component: 'store' })
    const opened =
      opts.store ?? (await createStore(app.config.databaseUrl, { log, walMaxBytes: app.config.sqliteWalMaxBytes }))
    const { store, health } = watchWrites(opened)
    app.decorate('store', store)
    app.decorate('storeWrites', health)
    app.addHook('onClose', async () => {
      await opened.close()
    })
  },
  { name: 'loupe-store', dependencies: ['loupe-config'] },
)
