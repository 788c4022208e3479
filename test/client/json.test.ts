// What the SDK sends is always JSON within the contract's limits, and the SDK needs nothing at run time but Node.
import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { LIMITS } from '../../schemas/index.js'
import { CLIENT_LIMITS, clip, safeStringify } from '../../src/client/json.js'

t.test("the SDK's limits are the contract's", async (t) => {
  t.equal(CLIENT_LIMITS.textBytes, LIMITS.textBytes)
  t.equal(CLIENT_LIMITS.batch, LIMITS.batch)
  t.equal(CLIENT_LIMITS.steps, LIMITS.steps)
  t.equal(CLIENT_LIMITS.tags, LIMITS.tags)
  t.equal(CLIENT_LIMITS.tagLength, LIMITS.tagLength)
})

t.test('safeStringify never throws: cycles, BigInt, errors and functions become JSON', async (t) => {
  const cyclic: Record<string, unknown> = { a: 1 }
  cyclic.self = cyclic
  t.same(JSON.parse(safeStringify(cyclic)), { a: 1, self: '[Circular]' })
  t.same(JSON.parse(safeStringify({ n: 10n, e: new TypeError('bad'), f: () => 1 })), {
    n: '10',
    e: { name: 'TypeError', message: 'bad' },
  })
  t.equal(safeStringify(undefined), 'null')
  const hostile = {
    toJSON() {
      throw new Error('no')
    },
  }
  t.type(safeStringify(hostile), 'string')
})

t.test('clip keeps text within the limit in UTF-8 bytes, never splits a character, and says it was cut', async (t) => {
  t.equal(clip('short', 10), 'short')
  const cut = clip('x'.repeat(100), 50)
  t.equal(Buffer.byteLength(cut), 50)
  t.match(cut, /… \[truncated by loupe\]$/)
  for (const text of ['é'.repeat(100), '€'.repeat(100), '😀'.repeat(100)]) {
    const clipped = clip(text, 64)
    t.ok(Buffer.byteLength(clipped) <= 64, `${text[0]}: ${Buffer.byteLength(clipped)} bytes`)
    t.notOk(clipped.includes('\ufffd'), 'no broken character')
  }
})

t.test('the SDK imports only Node built-ins and its own files at run time (types come from schemas/)', async (t) => {
  const dir = new URL('../../src/client/', import.meta.url)
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const source = readFileSync(new URL(file, dir), 'utf8')
    for (const [, statement, specifier] of source.matchAll(/^(import(?! type)[^'"]*|export[^'"]*from)\s*'([^']+)'/gm)) {
      if (statement?.startsWith('export type')) continue
      t.ok(
        specifier?.startsWith('./') || specifier?.startsWith('node:'),
        `${file}: "${statement?.trim()} '${specifier}'" is a run-time import`,
      )
    }
  }
})
