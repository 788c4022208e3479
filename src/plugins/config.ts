// What every other plugin starts from: the configuration, the clock and the validators, as `app.config`, `app.now`
// and `app.validators`. The plugins that read them declare `loupe-config` among their dependencies.
import fp from 'fastify-plugin'
import type { Config } from '../config.js'
import type { Validators } from '../lib/validation.js'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    /** The clock: epoch ms (tests pass their own). */
    now: () => number
    /** The ajv instances the routes validate with (and the ingest service validates traces with). */
    validators: Validators
  }
}

export interface ConfigPluginOptions {
  config: Config
  now: () => number
  validators: Validators
}

export default fp<ConfigPluginOptions>(
  async (app, { config, now, validators }) => {
    app.decorate('config', config)
    app.decorate('now', now)
    app.decorate('validators', validators)
  },
  { name: 'loupe-config' },
)
