// npm run generate: writes the OpenAPI document the running app serves at /docs/json to openapi.json (committed;
// test/openapi.test.ts fails when it is stale).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildApp } from '../src/app.js'
import { defaultConfig } from '../src/config.js'
import { packageRoot } from '../src/lib/paths.js'

export async function openapiDocument(): Promise<string> {
  const app = await buildApp({ ...defaultConfig(), databaseUrl: ':memory:' }, { logger: false })
  await app.ready()
  const doc = app.swagger()
  await app.close()
  return `${JSON.stringify(doc, null, 2)}\n`
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const target = join(packageRoot(), 'openapi.json')
  writeFileSync(target, await openapiDocument())
  console.log(`wrote ${target}`)
}
