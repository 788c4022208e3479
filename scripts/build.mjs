// npm run build (and npm install, through prepare): compiles schemas/ and src/ to dist/ (marking the loupe bin
// executable) and builds the viewer (web/ to web/dist/). `--if-stale` (what npm start runs first) builds each part
// only when something it is built from changed since its last build, so a start with nothing new compiles nothing;
// `--check` only says whether a part is stale (the bench's --no-build).
// Plain JavaScript: it must run before anything is built.
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const shared = ['package.json', 'package-lock.json', 'tsconfig.json']

/** The newest modification time (ms) of a file, or of every file below a folder. */
function newest(path) {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return readdirSync(path).reduce((max, name) => Math.max(max, newest(join(path, name))), stat.mtimeMs)
}

const run = (command, args) => {
  const done = spawnSync(command, args, { stdio: 'inherit', cwd: root, shell: process.platform === 'win32' })
  if (done.status !== 0) process.exit(done.status ?? 1)
}
const resolve = (module) => createRequire(import.meta.url).resolve(module)

const parts = [
  {
    stamp: join(root, 'dist', '.built'),
    inputs: ['schemas', 'src', 'tsconfig.build.json', ...shared],
    build() {
      run(process.execPath, [resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')])
      chmodSync(join(root, 'dist', 'src', 'cli', 'index.js'), 0o755)
    },
  },
  {
    stamp: join(root, 'web', 'dist', '.built'),
    inputs: ['web/src', 'web/index.html', 'web/vite.config.ts', 'web/tsconfig.json', 'schemas', ...shared],
    build() {
      run('npm', ['run', 'build:web', '--silent'])
    },
  },
]

const ifStale = process.argv.includes('--if-stale')
// `--check` builds nothing: it fails, naming them, when some parts are older than what they are built from.
const check = process.argv.includes('--check')
const stale = []
for (const part of parts) {
  const upToDate =
    existsSync(part.stamp) && statSync(part.stamp).mtimeMs >= Math.max(...part.inputs.map((p) => newest(join(root, p))))
  if (check) {
    if (!upToDate) stale.push(dirname(part.stamp).slice(root.length + 1))
    continue
  }
  if (ifStale && upToDate) continue
  part.build()
  mkdirSync(dirname(part.stamp), { recursive: true })
  writeFileSync(part.stamp, `${new Date().toISOString()}\n`)
}
if (stale.length > 0) {
  console.error(`${stale.join(' and ')} older than what they are built from: run npm run build`)
  process.exit(1)
}
