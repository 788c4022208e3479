// The viewer: the static app built from web/ (npm run build), served at /ui/ by this same instance. Any /ui/ path
// that is not one of its files answers the app's HTML, so every view is a link that survives a reload; hashed assets
// are cached for good, the HTML never. The files hold no data: they are public in every mode, and outside the
// per-address rate limit (the app's requests for data are counted like any other).
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyPluginAsync } from 'fastify'
import { packageRoot } from '../lib/paths.js'

export interface UiOptions {
  /** The built app (default: web/dist in the package). */
  root?: string
}

const ONE_YEAR_S = 365 * 24 * 3600

function filesBelow(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesBelow(path) : [path]
  })
}

const ui: FastifyPluginAsync<UiOptions> = async (app, options) => {
  const root = options.root ?? join(packageRoot(), 'web', 'dist')
  const built = existsSync(join(root, 'index.html'))
  // The app's own files, as paths below /ui/ (compressed twins are chosen by @fastify/static, not asked for).
  const files = new Set(
    built
      ? filesBelow(root)
          .map((file) => relative(root, file).split(sep).join('/'))
          .filter((file) => !/\.(gz|br)$/.test(file))
      : [],
  )
  if (!built) app.log.warn({ root }, 'the viewer is not built (npm run build): /ui/ answers 404')
  await app.register(fastifyStatic, { root, serve: false, preCompressed: true, decorateReply: true })

  const config = { access: 'public' as const, rateLimit: false as const }
  app.get('/ui', { config, schema: { hide: true } }, (_request, reply) => reply.redirect('/ui/', 301))
  app.get<{ Params: { '*': string } }>('/ui/*', { config, schema: { hide: true } }, (request, reply) => {
    const path = request.params['*']
    if (files.has(path) && path !== 'index.html') {
      return reply.sendFile(path, {
        maxAge: path.startsWith('assets/') ? ONE_YEAR_S * 1000 : 0,
        immutable: path.startsWith('assets/'),
      })
    }
    // A missing asset is a 404, not the app's HTML: a stale page must not parse HTML as its script.
    if (!built || path.startsWith('assets/')) {
      return reply
        .code(404)
        .send({ statusCode: 404, error: 'Not Found', message: `no viewer file ${path}`, code: 'LOUPE_NOT_FOUND' })
    }
    reply.header('cache-control', 'no-cache')
    return reply.sendFile('index.html', { cacheControl: false })
  })

  app.addHook('onListen', async () => {
    const address = app.server.address()
    if (address === null || typeof address === 'string') return
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
    const shown = host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host
    app.log.info({ url: `http://${shown}:${address.port}/ui/` }, `viewer at http://${shown}:${address.port}/ui/`)
  })
}

export default ui
