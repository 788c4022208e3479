// The package version, which is the API version (docs/api.md, Versioning).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from './paths.js'

export const version: string = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).version
