// Opens the store named by the configuration, exposes it as `app.store`, closes it with the app.
import fp from 'fastify-plugin'
import { createStore } from '../store/index.js'
import type { Store } from '../store/types.js'

declare module 'fastify' {
  interface FastifyInstance {
    store: Store
  }
}

export default fp<{ store?: Store }>(
  async (app, opts) => {
    const log = app.log.child({ component: 'store' })
    const store =
      opts.store ?? (await createStore(app.config.databaseUrl, { log, walMaxBytes: app.config.sqliteWalMaxBytes }))
    app.decorate('store', store)
    app.addHook('onClose', async () => {
      await store.close()
    })
  },
  { name: 'loupe-store', dependencies: ['loupe-config'] },
)
