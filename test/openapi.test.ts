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

t.test('the document passes the Redocly CLI recommended ruleset with no error and no warning', async (t) => {
  const { execFile } = await import('node:child_process')
  const { promisify } = await import('node:util')
  const { join } = await import('node:path')
  const { packageRoot } = await import('../src/lib/paths.js')
  const root = packageRoot()
  const run = promisify(execFile)
  const result = await run(
    join(root, 'node_modules', '.bin', 'redocly'),
    ['lint', join(root, 'openapi.json'), '--format=json'],
    { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }))
  const report = JSON.parse(result.stdout) as { totals: Record<string, number>; problems: { message: string }[] }
  t.same(
    report.problems.map((p) => p.message),
    [],
  )
  t.equal(report.totals.errors, 0)
  t.equal(report.totals.warnings, 0)
})

t.test('every operation has a unique readable operationId, its security and its error answers', async (t) => {
  const doc = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8'))
  const ids: string[] = []
  for (const [path, operations] of Object.entries<Record<string, Record<string, unknown>>>(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      const where = `${method.toUpperCase()} ${path}`
      t.match(op.operationId, /^[a-z][A-Za-z]+$/, `${where} operationId`)
      ids.push(op.operationId as string)
      t.ok(Array.isArray(op.security), `${where} declares its security`)
      t.match(op.description, /Open mode|No credential|both modes/, `${where} says what it needs in each mode`)
      const responses = op.responses as Record<string, { description: string }>
      t.ok(responses['4XX'] && responses['503'], `${where} documents the answers every route can give`)
      for (const [code, response] of Object.entries(responses)) {
        t.not(response.description, 'Default Response', `${where} ${code} is described`)
      }
    }
  }
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique')
  t.ok(doc.info.license?.name, 'info.license')
  t.ok(doc.info.contact?.url, 'info.contact')
})

t.test('every schema of the document has an example, and each example is valid for its schema', async (t) => {
  const { Ajv } = await import('ajv')
  const doc = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8'))
  const ajv = new Ajv({ strict: false, allErrors: true })
  ajv.addSchema(doc, 'openapi')
  const examples: { where: string; pointer: string; example: unknown }[] = []
  for (const [name, schema] of Object.entries<{ example?: unknown }>(doc.components.schemas)) {
    t.not(schema.example, undefined, `component ${name} has an example`)
    examples.push({ where: `component ${name}`, pointer: `#/components/schemas/${name}`, example: schema.example })
  }
  const escapePointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1')
  for (const [path, operations] of Object.entries<Record<string, Record<string, unknown>>>(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      const bodies: [string, Record<string, { schema: { $ref?: string }; example?: unknown }>][] = []
      const requestBody = op.requestBody as { content: Record<string, never> } | undefined
      if (requestBody)
        bodies.push([`#/paths/${escapePointer(path)}/${method}/requestBody/content`, requestBody.content])
      for (const [code, response] of Object.entries(
        op.responses as Record<string, { content?: Record<string, never> }>,
      )) {
        if (code.startsWith('2') && response.content) {
          bodies.push([`#/paths/${escapePointer(path)}/${method}/responses/${code}/content`, response.content])
        }
      }
      for (const [base, content] of bodies) {
        for (const [type, media] of Object.entries(content)) {
          const refName = media.schema.$ref?.replace('#/components/schemas/', '')
          const example = media.example ?? (refName ? doc.components.schemas[refName]?.example : undefined)
          t.not(example, undefined, `${method.toUpperCase()} ${path} ${type} has an example`)
          if (example !== undefined) {
            examples.push({
              where: `${method} ${path} ${type}`,
              pointer: `${base}/${escapePointer(type)}/schema`,
              example,
            })
          }
        }
      }
    }
  }
  for (const { where, pointer, example } of examples) {
    const validate = ajv.compile({ $ref: `openapi${pointer}` })
    t.ok(validate(example), `${where}: the example is valid`, { errors: validate.errors })
  }
})
