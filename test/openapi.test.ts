// The committed openapi.json is what the app serves, and it names the contract's components.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { openapiDocument } from '../scripts/export-openapi.js'
import { version } from '../src/lib/version.js'
import { buildTestApp } from './helper.js'

t.test('openapi.json is up to date (run `npm run generate` after changing a schema or route)', async (t) => {
  const committed = readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')
  t.equal(committed, await openapiDocument())
})

t.test('/docs/json is OpenAPI 3 with the package version and the named schemas as components', async (t) => {
  const app = await buildTestApp(t)
  const res = await app.inject('/docs/json')
  t.equal(res.statusCode, 200)
  const doc = res.json()
  t.match(doc.openapi, /^3\./)
  t.equal(doc.info.version, version)
  for (const name of ['TraceSchema', 'StepSchema', 'ProjectSchema', 'ApiKeySchema', 'AnalyticsSummarySchema']) {
    t.ok(doc.components.schemas[name], `component ${name}`)
  }
  t.same(doc.components.schemas.TraceSchema.properties.steps.items, { $ref: '#/components/schemas/StepSchema' })
  for (const path of ['/', '/traces', '/traces/{trace_id}', '/analytics', '/failures', '/projects', '/api-keys']) {
    t.ok(doc.paths[path], `path ${path}`)
  }
})

t.test('/docs serves the Swagger UI', async (t) => {
  const app = await buildTestApp(t)
  const res = await app.inject('/docs')
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /text\/html/)
  t.match(res.body, /swagger-ui/i)
})
