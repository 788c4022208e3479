// The docs stay a true map: every repository path the README and docs/*.md name exists, and every link between them
// lands on a heading or anchor that is there.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const root = fileURLToPath(new URL('../', import.meta.url))

/** Where a repository path may start; what a run makes (dist/, web/dist, the bench's data) is not committed. */
const TOP = ['src', 'schemas', 'web', 'test', 'scripts', 'docs', 'drizzle', 'bench', 'examples', '.ci']
const BUILT = /^(dist|web\/dist|bench\/data)(\/|$)/

const docs = ['README.md', ...readdirSync(join(root, 'docs')).map((name) => `docs/${name}`)].filter((f) =>
  f.endsWith('.md'),
)

/** The anchors a Markdown file offers: its headings as GitHub slugs them, and its `<a id>`s. */
function anchors(file: string): Set<string> {
  const text = readFileSync(join(root, file), 'utf8')
  const out = new Set<string>()
  for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = (m[1] as string)
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-')
    out.add(slug)
  }
  for (const m of text.matchAll(/<a id="([^"]+)"/g)) out.add(m[1] as string)
  return out
}

/** Repository paths a document names: link targets (relative to the document), and paths written out in its text. */
export function namedPaths(file: string, text: string): { path: string; anchor?: string }[] {
  const out: { path: string; anchor?: string }[] = []
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1] as string
    if (/^[a-z]+:/i.test(target)) continue
    const [path = '', anchor] = target.split('#')
    const resolved = path === '' ? file : normalize(join(dirname(file), path))
    out.push({ path: relative('.', resolved), anchor })
  }
  const written = new RegExp(`(?<![\\w./-])((?:${TOP.map((d) => d.replace('.', '\\.')).join('|')})/[\\w./-]*)`, 'g')
  for (const m of text.matchAll(written)) {
    const path = (m[1] as string).replace(/[.,:;]+$/, '')
    // A placeholder or a pattern (`python-*`, `<id>`, `…`) names no single file.
    const next = text.slice((m.index ?? 0) + (m[1] as string).length, (m.index ?? 0) + (m[1] as string).length + 1)
    if (next === '*' || next === '<' || next === '…' || next === '{') continue
    out.push({ path })
  }
  return out
}

t.test('every repository path the README and docs/*.md name exists', async (t) => {
  t.ok(docs.includes('docs/architecture.md'), 'the architecture page is there')
  for (const doc of docs) {
    const text = readFileSync(join(root, doc), 'utf8')
    const named = namedPaths(doc, text)
    t.ok(named.length > 0, `${doc} names paths`)
    for (const { path, anchor } of named) {
      if (BUILT.test(path)) continue
      t.ok(existsSync(join(root, path)), `${doc} names ${path}`)
      if (anchor && path.endsWith('.md') && existsSync(join(root, path))) {
        t.ok(anchors(path).has(anchor), `${doc} links ${path}#${anchor}`)
      }
    }
  }
})

t.test('a path that is not there is caught, a pattern or a link outside is not taken for one', async (t) => {
  const named = namedPaths(
    'docs/x.md',
    'See `src/nowhere.ts`, [the API](api.md#errors), [up](../README.md), test/fixtures/python-*, <https://e.x/src/a>',
  ).map((n) => `${n.path}${n.anchor ? `#${n.anchor}` : ''}`)
  t.same(named, ['docs/api.md#errors', 'README.md', 'src/nowhere.ts'])
})
