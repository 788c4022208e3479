// `loupe seed`: opens the database and hands it to the seed module (src/seed/seed.ts, the same generator as
// `npm run seed`), refusing a database that already has traces unless --force. Loaded on demand, so the other
// commands never open SQLite.
import { loadConfig } from '../config.js'
import type { Store } from '../store/types.js'
import { CliError } from './errors.js'
import type { OutputStream } from './format.js'

/** The seed module's interface: generates demo projects (with keys) and `traces` traces into `store`. */
export interface SeedModule {
  seed(options: {
    store: Store
    traces: number
    days?: number
    onProgress?: (done: number, total: number) => void
  }): Promise<{ projects: { project_id: string; key: string }[]; traces: number }>
}

export interface SeedResult {
  database: string
  traces: number
  projects: { project_id: string; key: string }[]
}

/** Where the seed module is: resolved at run time, next to this file, from the source tree or dist/ alike. */
const SEED_MODULE = new URL('../seed/seed.js', import.meta.url).href

async function loadSeedModule(): Promise<SeedModule> {
  try {
    return (await import(SEED_MODULE)) as SeedModule
  } catch (err) {
    const { code, message } = err as { code?: string; message?: string }
    const notFound = code === 'ERR_MODULE_NOT_FOUND' || /cannot find module/i.test(message ?? '')
    if (notFound && message?.includes('seed/seed')) {
      throw new CliError('this build has no seed module (src/seed/seed.ts); update Loupe to use `loupe seed`')
    }
    throw err
  }
}

export async function runSeed(options: {
  traces: number
  days?: number
  database?: string
  force?: boolean
  env: NodeJS.ProcessEnv
  progress: OutputStream
}): Promise<SeedResult> {
  const database = options.database ?? loadConfig(options.env).databaseUrl
  const { createStore } = await import('../store/index.js')
  const store = await createStore(database)
  try {
    const existing = await store.listTraces({}, { limit: 1, offset: 0 })
    if (existing.total > 0 && !options.force) {
      throw new CliError(
        `${database} already has ${existing.total} trace(s); add --force to seed it anyway, or use --database`,
      )
    }
    const { seed } = await loadSeedModule()
    const tty = options.progress.isTTY === true
    let shown = -1
    const result = await seed({
      store,
      traces: options.traces,
      days: options.days,
      onProgress: (done, total = options.traces) => {
        const percent = Math.floor((100 * done) / Math.max(1, total))
        if (!tty || !Number.isFinite(percent) || percent === shown) return
        shown = percent
        options.progress.write(`\rseeding… ${percent}% (${done}/${total})${done >= total ? '\n' : ''}`)
      },
    })
    return { database, traces: result.traces, projects: result.projects }
  } finally {
    await store.close()
  }
}
