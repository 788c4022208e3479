// The SQLite driver for this Node.js, and what a start says when its native module cannot be loaded: a module compiled
// for another Node.js (a version switched without reinstalling) or a damaged one stops the process with one sentence
// that names the cause and the fix (npm rebuild), never advice about the database path.
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { isNativeLoadError, NativeModuleError, nativeLoadFailure } from '../../src/lib/native.js'
import { startupFailure } from '../../src/server.js'
import { DRIVER_PACKAGE, driverPath, openDatabase } from '../../src/store/sqlite/driver.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const major = Number(process.versions.node.split('.')[0])
t.setTimeout(300_000)

/** The package directory of an installed package. */
const packageDir = (name: string) => join(root, 'node_modules', name)
/** The Node.js 20 build of better-sqlite3 (compiled at install for the Node.js that installed it). */
const NODE20_ADDON = join(packageDir('better-sqlite3-node20'), 'build', 'Release', 'better_sqlite3.node')

t.test(
  'the driver follows the Node.js line: better-sqlite3 13 from Node.js 22, the Node.js 20 build before',
  async (t) => {
    t.equal(DRIVER_PACKAGE, major >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20')
    t.ok(driverPath().startsWith(realpathSync(packageDir(DRIVER_PACKAGE))), 'the worker thread opens the same package')
    const db = openDatabase(':memory:')
    t.same(db.prepare('select sqlite_version() like ? as ok').get('3.%'), { ok: 1 })
    // Statements collected while the process runs are what aborted better-sqlite3 12 on Node.js 24.
    for (let i = 0; i < 2000; i++) db.prepare(`select ${i} as n`).get()
    db.close()
  },
)

t.test('a damaged native module is reported as such, with npm rebuild', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-native-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const garbage = join(dir, 'broken.node')
  writeFileSync(garbage, 'not a shared object')
  const err = t.throws(() => openDatabase(':memory:', { nativeBinding: garbage })) as NativeModuleError
  t.type(err, NativeModuleError)
  t.match(err.message, new RegExp(`^The native module of ${DRIVER_PACKAGE} cannot be loaded \\(.*broken\\.node`))
  t.match(err.message, /npm rebuild/)
  t.notMatch(err.message, /path Loupe can create/)
  t.equal(startupFailure(err), err.message, 'a start prints the sentence alone')
})

t.test('a path that cannot be opened is still the path’s fault, not the driver’s', async (t) => {
  const err = t.throws(() => openDatabase('/nonexistent-folder/for/loupe.db'))
  t.notOk(isNativeLoadError(err))
  t.notOk(err instanceof NativeModuleError)
})

t.test('a module compiled for another Node.js names both versions and the rebuild', async (t) => {
  if (major < 22) {
    // Here the only build at hand is this Node.js's own; the Node.js 24 run of the suite loads it across versions.
    const err = nativeLoadFailure(
      'better-sqlite3-node20',
      Object.assign(
        new Error(
          "The module '/x/better_sqlite3.node'\nwas compiled against a different Node.js version using\n" +
            'NODE_MODULE_VERSION 137. This version of Node.js requires\nNODE_MODULE_VERSION 115. Please try ' +
            're-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`).',
        ),
        { code: 'ERR_DLOPEN_FAILED' },
      ),
    )
    t.match(
      err.message,
      /compiled for another Node\.js version \(NODE_MODULE_VERSION 137; this Node\.js v20\.\S+ needs 115\)/,
    )
    return
  }
  const err = t.throws(() => openDatabase(':memory:', { nativeBinding: NODE20_ADDON })) as NativeModuleError
  t.type(err, NativeModuleError)
  t.match(err.message, /^The native module of better-sqlite3 was compiled for another Node\.js version/)
  t.match(
    err.message,
    new RegExp(`NODE_MODULE_VERSION \\d+; this Node\\.js ${process.version} needs ${process.versions.modules}\\)`),
  )
  t.match(err.message, /run `npm rebuild better-sqlite3` \(or `npm ci`\)/)
})

/**
 * A copy of the server's sources beside a node_modules of links to the real packages, but with the driver package
 * copied and its native module replaced by `addon`: what a machine whose Node.js changed under an install looks like.
 */
function checkoutWithBrokenDriver(addon: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-native-start-'))
  for (const part of ['src', 'schemas', 'drizzle', 'package.json'])
    cpSync(join(root, part), join(dir, part), { recursive: true })
  mkdirSync(join(dir, 'node_modules'))
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (entry === DRIVER_PACKAGE) continue
    symlinkSync(join(root, 'node_modules', entry), join(dir, 'node_modules', entry))
  }
  const copy = join(dir, 'node_modules', DRIVER_PACKAGE)
  cpSync(packageDir(DRIVER_PACKAGE), copy, { recursive: true })
  const native =
    DRIVER_PACKAGE === 'better-sqlite3'
      ? join(copy, 'prebuilds', `${process.platform}-${process.arch}.node`)
      : join(copy, 'build', 'Release', 'better_sqlite3.node')
  mkdirSync(dirname(native), { recursive: true })
  writeFileSync(native, addon)
  return dir
}

t.test('npm start on a driver built for another Node.js stops with that sentence, exit 1', async (t) => {
  // From Node.js 22 the Node.js 20 build is a real module of another version; before, a damaged file stands in.
  const addon = major >= 22 ? (await import('node:fs')).readFileSync(NODE20_ADDON) : Buffer.from('damaged')
  const dir = checkoutWithBrokenDriver(addon)
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(dir, 'src/server.ts')],
      { cwd: dir, env: { ...process.env, PORT: '0', DATABASE_URL: join(dir, 'loupe.db') }, timeout: 180_000 },
      (error, _stdout, stderr) => resolve({ code: error ? ((error.code as number) ?? null) : 0, stderr }),
    )
  })
  t.equal(result.code, 1)
  const lines = result.stderr.trim().split('\n')
  t.equal(lines.length, 1, 'one line')
  t.match(lines[0], major >= 22 ? /compiled for another Node\.js version/ : /cannot be loaded/)
  t.match(lines[0], /npm rebuild/)
  t.notMatch(lines[0], /DATABASE_URL|path Loupe/)
})
