// Synthetic demo data: a handful of projects with API keys, and realistic LLM traces spread over the last days.
// Every trace is sent through the same normalization as real ingest, so statuses, retry counts,
// failure reasons and inferred totals obey the same rules; only the HTTP layer and the schema check are skipped.
import { randomInt } from 'node:crypto'
import type { Environment, Project, Trace } from '../../schemas/index.js'
import { createPricer, priceTrace } from '../costs/pricing.js'
import { normalizeTrace } from '../ingest/normalize.js'
import { DAY_MS, HOUR_MS, toZonelessIso } from '../lib/time.js'
import { issueKey } from '../services/projects.js'
import { unreported } from '../store/reported-cost.js'
import type { Store } from '../store/types.js'
import { PROFILES, type Profile, profilesFor } from './catalogue.js'
import { TraceFactory } from './factory.js'
import { mulberry32, Rng } from './random.js'

export { SEED_PROJECT_IDS } from './catalogue.js'
export { mulberry32 } from './random.js'

export interface SeedOptions {
  store: Store
  /** Number of traces to generate. */
  traces: number
  /** Window the traces are spread over, ending at `now` (default 7). */
  days?: number
  /** Number of projects (default 5; more than the built-in five get numbered copies). */
  projects?: number
  /** Epoch ms the window ends at (default Date.now()). */
  now?: number
  /** Source of randomness in [0, 1); pass `mulberry32(seed)` for a reproducible data set. Keys are always crypto-random. */
  random?: () => number
  /** Called after each stored chunk with the number of traces generated so far. */
  onProgress?: (done: number) => void
}

export interface SeededKey {
  environment: Environment
  key: string
}

export interface SeededProject {
  project_id: string
  /** The project's main key (production when the project has one); null for a demo project seeded before. */
  key: string | null
  /** Environment of `key`. */
  environment: Environment | null
  /** Every key made for this run, one per environment the project's traces use (`key` is the first). */
  keys: SeededKey[]
  /** False when it is a demo project an earlier seed made: it gets more traces, never new keys. */
  created: boolean
  /** The demo's own id when a project of the user's holds it (the demo went to this project instead). */
  instead_of: string | null
}

export interface SeedResult {
  projects: SeededProject[]
  /** Traces actually stored (an id already present is not stored twice). */
  traces: number
}

/**
 * Traces generated and stored per transaction. A transaction's pages stay in the write-ahead log until it commits,
 * whatever its bound: at a few million traces each trace writes some 50 KB of index pages, so 250 keep one chunk
 * near 12 MB, well inside the log's default bound (SQLITE_WAL_MAX_BYTES), and cost no measurable speed.
 */
const CHUNK = 250

type ProjectWithKeyIds = Omit<SeededProject, 'keys'> & { keys: Array<SeededKey & { key_id: string }> }

/** Marks the projects a seed made, in their description: the only existing projects a seed writes into. */
const DEMO_MARK = '(synthetic demo data)'

/**
 * The demo project of a profile, with one new key per environment. A demo project an earlier seed made is reused
 * without new keys; a project of the user's that holds the demo's id is never touched: the demo goes to
 * `<id>-demo` (then `<id>-demo-2`, …).
 */
async function ensureProject(
  store: Store,
  profile: Profile,
  environments: Environment[],
  createdAt: number,
): Promise<ProjectWithKeyIds> {
  for (let n = 0; ; n++) {
    const project_id = n === 0 ? profile.project_id : `${profile.project_id}-demo${n === 1 ? '' : `-${n}`}`
    const instead_of = n === 0 ? null : profile.project_id
    const existing = await store.projects.get(project_id)
    if (existing?.description.endsWith(DEMO_MARK)) {
      return { project_id, key: null, environment: null, keys: [], created: false, instead_of }
    }
    if (existing) continue
    const issued = environments.map((environment) => issueKey(project_id, environment, createdAt))
    const [first, ...others] = issued
    if (!first) throw new Error(`demo project ${project_id} has no environment`)
    const project: Project = {
      project_id,
      name: n === 0 ? profile.name : `${profile.name} (demo)`,
      description: `${profile.description} ${DEMO_MARK}`,
      created_at: toZonelessIso(createdAt),
    }
    // Taken meanwhile (another process): look again.
    if (!(await store.projects.create(project, first.record))) continue
    for (const { record } of others) await store.projects.createApiKey(record)
    const keys = issued.map(({ record, created }) => ({
      environment: record.environment,
      key: created.key,
      key_id: record.key_id,
    }))
    return {
      project_id,
      key: first.created.key,
      environment: first.record.environment,
      keys,
      created: true,
      instead_of,
    }
  }
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Seeds `store` with demo projects (each with one API key per environment it uses) and `traces` synthetic traces
 * spread over the last `days` days. Deterministic trace data when `random` (and `now`) are given.
 */
export async function seed(options: SeedOptions): Promise<SeedResult> {
  const { store } = options
  const total = Math.max(0, Math.floor(options.traces))
  const days = options.days ?? 7
  if (!(days > 0)) throw new RangeError('days must be > 0')
  const projectCount = Math.max(1, Math.floor(options.projects ?? PROFILES.length))
  const now = Math.floor(options.now ?? Date.now())
  const g = new Rng(options.random ?? mulberry32(randomInt(2 ** 32 - 1)))

  const profiles = profilesFor(projectCount)
  // Production first, so a project's main key is its production key when it has one.
  const order: Environment[] = ['production', 'staging', 'development']
  const environmentsOf = profiles.map((p) => order.filter((e) => p.environments.some(([env]) => env === e)))
  const keyCreatedAt = now - days * DAY_MS - HOUR_MS
  const projects: ProjectWithKeyIds[] = []
  for (const [i, profile] of profiles.entries()) {
    const project = await ensureProject(store, profile, environmentsOf[i] as Environment[], keyCreatedAt)
    projects.push(project)
    profiles[i] = { ...profile, project_id: project.project_id }
  }

  const contexts = profiles.map((p) => ({
    production: { project_id: p.project_id, environment: 'production' as const },
    staging: { project_id: p.project_id, environment: 'staging' as const },
    development: { project_id: p.project_id, environment: 'development' as const },
  }))
  // Ids are always set by the factory; this only satisfies the signature deterministically.
  let fallbackId = 0
  const normalizeOpts = { now, newId: () => `seed-${now}-${fallbackId++}` }
  const factory = new TraceFactory(g, profiles, now, days, total)
  // Newest trace per project and environment: the key that "sent" it was last used then.
  const lastUsed = profiles.map(() => ({ production: -1, staging: -1, development: -1 }))

  // Priced as ingest prices them, with the overrides in force.
  const price = createPricer(await store.prices.list())
  let stored = 0
  for (let done = 0; done < total; ) {
    const n = Math.min(CHUNK, total - done)
    const batch: Trace[] = new Array(n)
    for (let i = 0; i < n; i++) {
      const { input, profile, environment, createdAt } = factory.next()
      const trace = normalizeTrace(input, (contexts[profile] as (typeof contexts)[number])[environment], normalizeOpts)
      batch[i] = priceTrace(trace, null, price)
      const seen = lastUsed[profile] as Record<Environment, number>
      if (createdAt > seen[environment]) seen[environment] = createdAt
    }
    const outcomes = await store.traces.insert(batch.map(unreported))
    for (const outcome of outcomes) if (outcome.kind === 'created') stored++
    done += n
    options.onProgress?.(done)
    // Let timers (a progress bar, signal handlers) run between chunks.
    await yieldToEventLoop()
  }
  for (const [i, project] of projects.entries()) {
    for (const key of project.keys) {
      const at = (lastUsed[i] as Record<Environment, number>)[key.environment]
      if (at >= 0) await store.projects.touchApiKey(key.key_id, at)
    }
  }
  const withoutKeyIds = ({ keys, ...project }: ProjectWithKeyIds): SeededProject => ({
    ...project,
    keys: keys.map(({ environment, key }) => ({ environment, key })),
  })
  return { projects: projects.map(withoutKeyIds), traces: stored }
}
