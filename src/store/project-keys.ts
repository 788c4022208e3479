// Projects and API keys, the same on every store: which rows a query means (its conditions, order and columns), the
// shapes rows become, and the steps of deleting a project. Each dialect keeps only what really differs: how a query
// runs (better-sqlite3 synchronously inside its transaction, pg asynchronously through a pool) and, on PostgreSQL,
// the NUL-safe encoding of text (postgres/nul.ts).
import { type AnyColumn, and, asc, eq, getTableColumns, isNull, type Placeholder, type Table } from 'drizzle-orm'
import type { Project } from '../../schemas/index.js'
import { toZonelessIso } from '../lib/time.js'
import type { ProjectRemoval } from './types.js'

/** The columns of `projects` the queries name, whichever dialect declares them. */
interface ProjectColumns {
  project_id: AnyColumn
  name: AnyColumn
  created_at: AnyColumn
}

/** The columns of `api_keys` the queries name. */
interface KeyColumns {
  key_id: AnyColumn
  key_hash: AnyColumn
  project_id: AnyColumn
  created_at: AnyColumn
  revoked_at: AnyColumn
}

/** Projects are listed oldest first; the id breaks ties. */
export const projectOrder = (projects: ProjectColumns) => [asc(projects.created_at), asc(projects.project_id)]

/** Keys are listed oldest first; the id breaks ties. */
const keyOrder = (keys: KeyColumns) => [asc(keys.created_at), asc(keys.key_id)]

/** A key row with its project's name: what listing a key and identifying a presented key both read. */
const keyWithProjectColumns = <K extends Table, N extends AnyColumn>(keys: K, projects: { name: N }) => ({
  ...getTableColumns(keys),
  project_name: projects.name,
})

/** The join of a key with its project. */
const keyProjectJoin = (keys: KeyColumns, projects: ProjectColumns) => eq(projects.project_id, keys.project_id)

/** The keys of one project, or every key. */
const keysOf = (keys: KeyColumns, projectId: string | undefined) =>
  projectId === undefined ? undefined : eq(keys.project_id, projectId)

/** A key that is not revoked, by the hash of its secret. */
/** `keyHash` may be a placeholder, for a query prepared once. */
const activeKeyByHash = (keys: KeyColumns, keyHash: string | Placeholder) =>
  and(eq(keys.key_hash, keyHash), isNull(keys.revoked_at))

/** A key that is not revoked yet, by its id: revoking twice keeps the first time. */
const activeKeyById = (keys: KeyColumns, keyId: string) => and(eq(keys.key_id, keyId), isNull(keys.revoked_at))

/**
 * The pieces of the keys' queries, over one dialect's tables: the key columns with the project's name, the join, the
 * order, and the conditions (a project's keys, a live key by hash or by id).
 */
export const keyQueries = <K extends Table & KeyColumns, N extends AnyColumn>(
  keys: K,
  projects: ProjectColumns & { name: N },
) => ({
  columns: keyWithProjectColumns(keys, projects),
  join: keyProjectJoin(keys, projects),
  order: keyOrder(keys),
  of: (projectId: string | undefined) => keysOf(keys, projectId),
  liveByHash: (keyHash: string | Placeholder) => activeKeyByHash(keys, keyHash),
  liveById: (keyId: string) => activeKeyById(keys, keyId),
})

/** A projects row as the API shows it; `decode` undoes a dialect's encoding of text (none on SQLite). */
export const projectFromRow = (
  row: { project_id: string; name: string; description: string; created_at: number },
  decode: (text: string) => string = (text) => text,
): Project => ({
  project_id: row.project_id,
  name: decode(row.name),
  description: decode(row.description),
  created_at: toZonelessIso(row.created_at),
})

/** One statement of a project's deletion: SQL with one `?`, bound to the project id. */
export interface ProjectStep {
  sql: string
  /** A read (its rows are counted); otherwise a delete (the rows it deleted are). */
  read: boolean
  /** A read whose rows the next steps depend on: PostgreSQL locks them (`for update`). */
  lock?: boolean
}

/**
 * Deleting a project, as steps both stores run in one transaction: each step is a statement bound to the project id,
 * and the driver sends back how many rows it read or deleted. `not-found` or `has-traces` end it with nothing
 * deleted; otherwise the project goes with its keys, pending OTLP spans, retention settings and (empty) rollup rows.
 */
export function* projectDeletion(
  rollupTables: readonly string[],
): Generator<ProjectStep, ProjectRemoval | 'not-found' | 'has-traces', number> {
  const read = (sql: string, lock = false): ProjectStep => ({ sql, read: true, lock })
  const remove = (table: string): ProjectStep => ({ sql: `delete from ${table} where project_id = ?`, read: false })
  if ((yield read('select 1 from projects where project_id = ?', true)) === 0) return 'not-found'
  if ((yield read('select 1 from traces where project_id = ? limit 1')) > 0) return 'has-traces'
  const pending = yield remove('otlp_pending_spans')
  const keys = yield remove('api_keys')
  yield remove('project_retention')
  for (const table of rollupTables) yield remove(table)
  // Its scores (those of sessions: its traces' went with them) and their rollups, its annotation queues.
  for (const table of ['scores', 'score_hourly', 'trace_scores', 'score_values']) yield remove(table)
  yield {
    sql: 'delete from annotation_items where queue_id in (select queue_id from annotation_queues where project_id = ?)',
    read: false,
  }
  yield remove('annotation_queues')
  yield remove('projects')
  return { api_keys: keys, pending_spans: pending }
}

/** Runs steps to their end, one at a time, with a synchronous driver. */
export function runSteps<S, R>(steps: Generator<S, R, number>, run: (step: S) => number): R {
  let next = steps.next()
  while (!next.done) next = steps.next(run(next.value))
  return next.value
}

/** Runs steps to their end, one at a time, with an asynchronous driver. */
export async function runStepsAsync<S, R>(
  steps: Generator<S, R, number>,
  run: (step: S) => Promise<number>,
): Promise<R> {
  let next = steps.next()
  while (!next.done) next = steps.next(await run(next.value))
  return next.value
}
