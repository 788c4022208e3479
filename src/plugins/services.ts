// The services routes call: ingest (the one road of a trace) and projects/keys; and the event hub they share, fed by
// this replica's ingest and by the store with what other replicas store.
import fp from 'fastify-plugin'
import { createEventHub, type EventHub } from '../events/hub.js'
import { createIngestService, type IngestService } from '../ingest/service.js'
import type { Validators } from '../lib/validation.js'
import { createProjectService, type ProjectService } from '../services/projects.js'

declare module 'fastify' {
  interface FastifyInstance {
    hub: EventHub
    ingest: IngestService
    projects: ProjectService
    validators: Validators
    now: () => number
  }
}

export default fp(
  async (app) => {
    const hub = createEventHub((err) => app.log.error({ err }, 'event listener failed'))
    app.decorate('hub', hub)
    app.decorate('ingest', createIngestService({ store: app.store, hub, validators: app.validators, now: app.now }))
    app.decorate('projects', createProjectService(app.store, app.now))
    // Replicas on one database: what another replica stores reaches this replica's /ws clients through the hub too.
    const stopFollowing = await app.store.followReplicas((traces) => hub.publish(traces))
    app.addHook('onClose', async () => {
      await stopFollowing()
    })
  },
  { name: 'loupe-services', dependencies: ['loupe-store'] },
)
