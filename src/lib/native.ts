// A native module that cannot be loaded, said in one sentence with its cause and its fix: a module compiled for
// another Node.js (switching versions with nvm or a system upgrade, without reinstalling) is the common case, and
// its fix is a rebuild, not another database path.

/** A native dependency that failed to load; its message is the one sentence a failed start prints. */
export class NativeModuleError extends Error {
  override readonly name = 'NativeModuleError'
}

/** `NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 137` → [115, 137]. */
const ABI_MISMATCH = /NODE_MODULE_VERSION (\d+)\.[\s\S]*?requires\s+NODE_MODULE_VERSION (\d+)/

/** Whether `err` is a native module failing to load (rather than, say, the database it was asked to open). */
export function isNativeLoadError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  if (code === 'ERR_DLOPEN_FAILED' || code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') return true
  return err instanceof Error && /NODE_MODULE_VERSION|Could not locate the bindings file/.test(err.message)
}

/** The advice every failure ends with: rebuild the package for the Node.js that runs. */
const rebuild = (pkg: string) =>
  `run \`npm rebuild ${pkg}\` (or \`npm ci\`) with this Node.js (${process.version}), then start again`

/** Why `pkg`'s native module did not load (`err`, as require or the module threw it), as a NativeModuleError. */
export function nativeLoadFailure(pkg: string, err: unknown): NativeModuleError {
  const message = err instanceof Error ? err.message : String(err)
  const code = (err as { code?: unknown } | null)?.code
  const abi = ABI_MISMATCH.exec(message)
  if (abi) {
    return new NativeModuleError(
      `The native module of ${pkg} was compiled for another Node.js version (NODE_MODULE_VERSION ${abi[1]}; ` +
        `this Node.js ${process.version} needs ${abi[2]}): ${rebuild(pkg)}.`,
    )
  }
  if (
    code === 'MODULE_NOT_FOUND' ||
    code === 'ERR_MODULE_NOT_FOUND' ||
    /Could not locate the bindings file/.test(message)
  ) {
    return new NativeModuleError(`${pkg} is not installed or its native module was never built: ${rebuild(pkg)}.`)
  }
  const first = message.split('\n')[0]?.trim() ?? message
  return new NativeModuleError(`The native module of ${pkg} cannot be loaded (${first}): ${rebuild(pkg)}.`)
}
