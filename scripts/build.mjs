// npm run build (and npm install, through prepare): compiles schemas/ and src/ to dist/ and marks the loupe bin
// executable. `--if-stale` (what npm start runs first) skips all of it when nothing it compiles changed since the
// last build, so a start with nothing new takes no compile. Plain JavaScript: it must run before anything is built.
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const stamp = join(root, 'dist', '.built')
const inputs = ['schemas', 'src', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json']

/** The newest modification time (ms) of a file, or of every file below a folder. */
function newest(path) {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return readdirSync(path).reduce((max, name) => Math.max(max, newest(join(path, name))), stat.mtimeMs)
}

const upToDate = () =>
  existsSync(stamp) && statSync(stamp).mtimeMs >= Math.max(...inputs.map((p) => newest(join(root, p))))

if (process.argv.includes('--if-stale') && upToDate()) process.exit(0)

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const built = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' })
if (built.status !== 0) process.exit(built.status ?? 1)
chmodSync(join(root, 'dist', 'src', 'cli', 'index.js'), 0o755)
writeFileSync(stamp, `${new Date().toISOString()}\n`)
