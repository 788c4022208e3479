// Where the package lives on disk, from source (src/) or from the build (dist/src/) alike.
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

let cached: string | undefined

/** The folder that holds package.json and drizzle/. */
export function packageRoot(): string {
  if (cached) return cached
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'drizzle'))) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error('cannot find the Loupe package root (package.json beside drizzle/)')
    dir = parent
  }
  cached = dir
  return dir
}
