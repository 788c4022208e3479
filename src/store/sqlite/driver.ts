// Which better-sqlite3 this Node.js runs, and a clear sentence when its native module cannot be loaded.
// better-sqlite3 13 is built on Node-API and ships prebuilt for every platform, so it loads on Node.js 22 and later
// without a compiler; 12 and older (built on V8's own object wrapper) abort the process on Node.js 24 when a statement
// is collected. 13 crashes on Node.js 20, so there the package installed as `better-sqlite3-node20` (12, compiled at
// install for that Node.js) is used instead; it is an optional dependency, to be dropped with Node.js 20.
import { createRequire } from 'node:module'
import type Database from 'better-sqlite3'
import { isNativeLoadError, nativeLoadFailure } from '../../lib/native.js'

/** The Node.js major version below which better-sqlite3 13 cannot run. */
const NODE_API_DRIVER_FROM = 22

const require = createRequire(import.meta.url)

/** The package that opens SQLite databases on this Node.js. */
export const DRIVER_PACKAGE =
  Number(process.versions.node.split('.')[0]) >= NODE_API_DRIVER_FROM ? 'better-sqlite3' : 'better-sqlite3-node20'

/** better-sqlite3's constructor, the one for this Node.js (its JavaScript only: the native module loads at first use). */
export type SqliteDatabase = Database.Database

let loaded: typeof Database | undefined

/** Where the driver package's entry is, for a worker thread that opens its own connection. */
export function driverPath(): string {
  return require.resolve(DRIVER_PACKAGE)
}

/**
 * Opens a SQLite database with the driver for this Node.js. The first open loads the native module: a module built for
 * another Node.js, or never built, is a NativeModuleError naming the cause and the fix, not a failure to open the file.
 */
export function openDatabase(path: string, options?: Database.Options): SqliteDatabase {
  try {
    loaded ??= require(DRIVER_PACKAGE) as typeof Database
    return new loaded(path, options)
  } catch (err) {
    throw isNativeLoadError(err) ? nativeLoadFailure(DRIVER_PACKAGE, err) : err
  }
}
