// A consumer's view of the API: TypeScript types generated from the committed openapi.json with openapi-typescript
// type-check the small client in test/consumer/client.ts — and stop type-checking when an operation or a field it
// uses leaves the document (checked here with one removed from a copy).
import { execFile } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { packageRoot } from '../src/lib/paths.js'

const run = promisify(execFile)
const root = packageRoot()
const bin = (name: string) => join(root, 'node_modules', '.bin', name)

/** Generates types from `doc` into a fresh folder beside a copy of the client, and type-checks the client. */
async function typeCheckClient(doc: unknown): Promise<{ ok: boolean; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-consumer-'))
  try {
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc))
    await run(bin('openapi-typescript'), [join(dir, 'openapi.json'), '-o', join(dir, 'api.d.ts')])
    copyFileSync(join(root, 'test', 'consumer', 'client.ts'), join(dir, 'client.ts'))
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2022', 'DOM'],
          types: [],
        },
        files: ['client.ts'],
      }),
    )
    try {
      await run(bin('tsc'), ['-p', dir])
      return { ok: true, output: '' }
    } catch (err) {
      return { ok: false, output: String((err as { stdout?: string }).stdout ?? err) }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const committed = JSON.parse(readFileSync(join(root, 'openapi.json'), 'utf8'))

t.test('the client uses every operation of the document', async (t) => {
  const client = readFileSync(join(root, 'test', 'consumer', 'client.ts'), 'utf8')
  const ids = Object.values(committed.paths as Record<string, Record<string, { operationId?: string }>>).flatMap(
    (operations) => Object.values(operations).flatMap((op) => (op.operationId ? [op.operationId] : [])),
  )
  t.ok(ids.length > 30, `${ids.length} operations`)
  for (const id of ids) t.ok(client.includes(`'${id}'`), `${id} is used`)
})

t.test('a client written against the generated types type-checks', async (t) => {
  const result = await typeCheckClient(committed)
  t.ok(result.ok, result.output)
})

t.test('…and stops type-checking when an operation or a field disappears from the document', async (t) => {
  const withoutRoute = structuredClone(committed)
  delete withoutRoute.paths['/traces/{trace_id}']
  const route = await typeCheckClient(withoutRoute)
  t.notOk(route.ok, 'GET /traces/{trace_id} removed')
  t.match(route.output, /getTrace/)

  const withoutField = structuredClone(committed)
  delete withoutField.components.schemas.TraceSchema.properties.failure_reason
  const field = await typeCheckClient(withoutField)
  t.notOk(field.ok, 'TraceSchema.failure_reason removed')
  t.match(field.output, /failure_reason/)
})
