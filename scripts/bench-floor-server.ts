// The bare-Fastify floor of `npm run bench`: one route, no plugins, the smallest JSON answer. Our routes are
// measured as a ratio to this on the same machine in the same run.
import Fastify from 'fastify'

const app = Fastify({ logger: false })
app.get('/floor', async () => ({ message: 'ok' }))
const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' })
process.stdout.write(`${address}\n`)
