// The layers of docs/architecture.md hold: every import (types too) of every source file points down or within its
// layer, the SDK and the viewer reach only the contract, and no files import each other in a circle.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const root = fileURLToPath(new URL('../', import.meta.url))

/** Each layer by the paths it holds (a folder ends in `/`), lowest first: a file may import its own layer and below. */
const LAYERS: [name: string, paths: string[]][] = [
  ['contract', ['schemas/']],
  ['pure pieces', ['src/lib/', 'src/errors.ts', 'src/analytics/', 'src/costs/']],
  ['store', ['src/store/']],
  ['services', ['src/services/', 'src/ingest/', 'src/otlp/', 'src/events/', 'src/seed/', 'src/evaluators/']],
  ['HTTP', ['src/plugins/', 'src/routes/', 'src/mcp/', 'src/app.ts', 'src/server.ts', 'src/config.ts']],
  ['CLI', ['src/cli/']],
]

/** Code that speaks only the contract: it may import `schemas/` and itself, nothing else of the repository. */
const CONTRACT_ONLY = ['src/client/', 'web/src/']

const within = (file: string, paths: readonly string[]) =>
  paths.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p))

export function layerOf(file: string): number {
  const index = LAYERS.findIndex(([, paths]) => within(file, paths))
  if (index < 0) throw new Error(`${file} is in no layer: add it to LAYERS here and to docs/architecture.md`)
  return index
}

/** The repository files a source file imports (relative imports only; packages are not layers). */
export function importsOf(file: string, text: string): string[] {
  const out: string[] = []
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"](\.[^'"]+)['"]/g)) {
    const target = normalize(join(dirname(file), m[1] as string))
    out.push(target.replace(/\.js$/, '.ts'))
  }
  return out
}

function sources(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) out.push(...sources(path))
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

const files = ['schemas', 'src', 'web/src'].flatMap(sources)
const graph = new Map(files.map((file) => [file, importsOf(file, readFileSync(join(root, file), 'utf8'))]))

/** The imports that break the rules, as `from → to (why)`. */
export function violations(edges: ReadonlyMap<string, readonly string[]>): string[] {
  const out: string[] = []
  for (const [from, targets] of edges) {
    for (const raw of targets) {
      const to = relative('.', raw)
      if (within(from, CONTRACT_ONLY)) {
        const home = CONTRACT_ONLY.find((p) => from.startsWith(p)) as string
        if (!to.startsWith('schemas/') && !to.startsWith(home)) out.push(`${from} → ${to} (speaks only the contract)`)
        continue
      }
      if (within(to, CONTRACT_ONLY)) {
        if (!from.startsWith('src/cli/')) out.push(`${from} → ${to} (only the CLI builds on the SDK)`)
        continue
      }
      const [a, b] = [layerOf(from), layerOf(to)]
      if (b > a) out.push(`${from} → ${to} (${LAYERS[a]?.[0]} imports ${LAYERS[b]?.[0]})`)
    }
  }
  return out
}

/** Every circle of imports, each as the files around it. */
export function circles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = []
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (file: string) => {
    state.set(file, 'open')
    stack.push(file)
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next])
      else if (!state.has(next)) visit(next)
    }
    stack.pop()
    state.set(file, 'done')
  }
  for (const file of edges.keys()) if (!state.has(file)) visit(file)
  return found
}

t.test('every import points down a layer or stays within its own', async (t) => {
  t.ok(graph.size > 100, `${graph.size} files read`)
  t.same(violations(graph), [])
})

t.test('no files import each other in a circle', async (t) => {
  t.same(circles(graph), [])
})

t.test('an import up a layer, past the contract, or in a circle is caught', async (t) => {
  const bad = new Map([
    ['src/lib/a.ts', ['src/store/types.ts']],
    ['src/store/types.ts', ['schemas/index.ts']],
    ['web/src/x.ts', ['src/search/text.ts']],
    ['src/client/y.ts', ['src/lib/time.ts']],
    ['src/store/b.ts', ['src/store/c.ts']],
    ['src/store/c.ts', ['src/store/b.ts']],
  ])
  t.equal(violations(bad).length, 3)
  t.same(circles(bad), [['src/store/b.ts', 'src/store/c.ts', 'src/store/b.ts']])
  t.same(importsOf('src/a/b.ts', "import type { X } from '../c/d.js'\nexport { y } from './e.js'"), [
    'src/c/d.ts',
    'src/a/e.ts',
  ])
})
