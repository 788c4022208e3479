// package.json points `loupe/client`, the root export and the `loupe` bin at files the build emits, so that
// `npm install` (which builds through `prepare`) leaves them working on a fresh clone.
import { existsSync, readFileSync, statSync } from 'node:fs'
import t from 'tap'

const root = new URL('../', import.meta.url)
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'))
const build = JSON.parse(readFileSync(new URL('tsconfig.build.json', root), 'utf8'))

/** dist/src/x.js (what tsc emits from tsconfig.build.json, rootDir ".") → the source file it comes from. */
const sourceOf = (target: string) => new URL(target.replace(/^\.?\/?dist\//, '').replace(/\.d\.ts$|\.js$/, '.ts'), root)

t.test('every export and the bin come from a source file the build compiles', async (t) => {
  t.equal(build.compilerOptions.outDir, 'dist')
  t.equal(build.compilerOptions.rootDir, '.')
  const targets = [
    ...Object.values(pkg.exports as Record<string, string | Record<string, string>>).flatMap((entry) =>
      typeof entry === 'string' ? [] : Object.values(entry),
    ),
    ...Object.values(pkg.bin as Record<string, string>),
  ]
  t.ok(targets.length >= 5)
  for (const target of targets)
    t.ok(existsSync(sourceOf(target)), `${target} is built from ${sourceOf(target).pathname}`)
  t.ok(pkg.exports['./client'], 'the SDK is exported as loupe/client')
  t.equal(pkg.bin.loupe, 'dist/src/cli/index.js')
})

t.test('the bin starts with a node shebang, and npm install builds', async (t) => {
  const source = readFileSync(sourceOf(pkg.bin.loupe), 'utf8')
  t.match(source, /^#!\/usr\/bin\/env node\n/)
  t.match(pkg.scripts.prepare, /npm run build/)
  t.ok(pkg.files.includes('dist/src') && pkg.files.includes('drizzle'), 'a packed tarball carries the build')
})

t.test('the build leaves the bin executable (tsc does not), so npx loupe runs it', async (t) => {
  t.equal(pkg.scripts.build, 'node scripts/build.mjs')
  const script = readFileSync(new URL('scripts/build.mjs', root), 'utf8')
  t.match(script, /chmodSync\(join\(root, 'dist', 'src', 'cli', 'index\.js'\), 0o755\)/)
  const built = new URL(pkg.bin.loupe, root)
  if (!existsSync(built)) {
    t.comment('no build yet (npm install builds it): only the build script was checked')
    return
  }
  t.ok(statSync(built).mode & 0o111, `${pkg.bin.loupe} is executable`)
})

t.test('npm start compiles only when something it compiles changed since the last build', async (t) => {
  t.equal(pkg.scripts.prestart, 'node scripts/build.mjs --if-stale')
  const stamp = new URL('dist/.built', root)
  if (!existsSync(stamp)) {
    t.comment('no build yet (npm install builds it): only the scripts were checked')
    return
  }
  const { spawnSync } = await import('node:child_process')
  const { utimesSync } = await import('node:fs')
  const { fileURLToPath } = await import('node:url')
  // A stamp newer than every source: nothing to do, and nothing is written.
  const was = statSync(stamp)
  t.teardown(() => utimesSync(stamp, was.atime, was.mtime))
  const future = new Date(Date.now() + 60_000)
  utimesSync(stamp, future, future)
  const before = statSync(new URL('dist/src/server.js', root)).mtimeMs
  const run = spawnSync(process.execPath, [fileURLToPath(new URL('scripts/build.mjs', root)), '--if-stale'])
  t.equal(run.status, 0)
  t.equal(statSync(new URL('dist/src/server.js', root)).mtimeMs, before, 'up to date: not compiled again')
})
