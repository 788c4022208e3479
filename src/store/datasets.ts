// Datasets, their versioned items and the experiments run over them, written once for both databases: the reads over
// a dialect's Query, the writes as plans (score-writes.ts) each dialect runs in one of its transactions
// (sqlite/datasets.ts, postgres/datasets.ts). An item is a row per version: a version holds from valid_from until the
// next one's valid_from (valid_to; null on the current one), so "the dataset as of T" is one indexed condition.

import { type Plan, type PlanDialect, run } from './plan.js'
import type { Query } from './read-queries.js'
import type {
  DatasetItemRecord,
  DatasetItemSelection,
  DatasetRecord,
  DatasetStore,
  ExperimentRecord,
  ExperimentTraceRow,
} from './types.js'

/** What differs between the dialects here, beyond the score plans' pieces: a JSON column's value as read. */
export interface DatasetDialect extends PlanDialect {
  /** SQLite hands JSON text over, PostgreSQL the parsed value; SQL null is null. */
  readJson(value: unknown): unknown
}

const DATASET_COLUMNS = 'dataset_id, project_id, name, description, metadata, created_at, updated_at'
const ITEM_COLUMNS =
  'item_id, version, dataset_id, status, input, expected_output, metadata, source_trace_id, created_at, valid_from, ' +
  'valid_to'
const EXPERIMENT_COLUMNS = 'experiment_id, project_id, dataset_id, name, as_of, metadata, created_at'

const epoch = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))

const datasetOf = (d: DatasetDialect, r: Record<string, unknown>): DatasetRecord => ({
  dataset_id: r.dataset_id as string,
  project_id: r.project_id as string,
  name: r.name as string,
  description: r.description as string,
  metadata: d.readJson(r.metadata) as Record<string, unknown>,
  created_at: Number(r.created_at),
  updated_at: Number(r.updated_at),
})

const itemOf = (d: DatasetDialect, r: Record<string, unknown>): DatasetItemRecord => ({
  item_id: r.item_id as string,
  version: Number(r.version),
  dataset_id: r.dataset_id as string,
  status: r.status as DatasetItemRecord['status'],
  input: d.readJson(r.input),
  expected_output: d.readJson(r.expected_output),
  metadata: d.readJson(r.metadata) as Record<string, unknown>,
  source_trace_id: (r.source_trace_id as string | null) ?? null,
  created_at: Number(r.created_at),
  valid_from: Number(r.valid_from),
  valid_to: epoch(r.valid_to),
})

const experimentOf = (d: DatasetDialect, r: Record<string, unknown>): ExperimentRecord => ({
  experiment_id: r.experiment_id as string,
  project_id: r.project_id as string,
  dataset_id: r.dataset_id as string,
  name: r.name as string,
  as_of: Number(r.as_of),
  metadata: d.readJson(r.metadata) as Record<string, unknown>,
  created_at: Number(r.created_at),
})

/** The versions holding at `asOf` (undefined: the current ones). */
const holding = (b: (value: unknown) => string, asOf: number | undefined) =>
  asOf === undefined ? 'valid_to is null' : `valid_from <= ${b(asOf)} and (valid_to is null or valid_to > ${b(asOf)})`

function* createDataset(d: DatasetDialect, x: DatasetRecord): Plan<boolean> {
  const rows = yield* run(
    (b) =>
      `insert into datasets (${DATASET_COLUMNS})
       values (${b(x.dataset_id)}, ${b(x.project_id)}, ${b(x.name)}, ${b(x.description)}, ${d.json(b, x.metadata)},
               ${b(x.created_at)}, ${b(x.updated_at)})
       on conflict (project_id, name) do nothing returning dataset_id`,
  )
  return rows.length > 0
}

function* updateDataset(d: DatasetDialect, x: DatasetRecord): Plan<'updated' | 'missing' | 'name-taken'> {
  const taken = yield* run(
    (b) =>
      `select 1 as found from datasets
       where project_id = ${b(x.project_id)} and name = ${b(x.name)} and dataset_id <> ${b(x.dataset_id)}`,
  )
  if (taken.length > 0) return 'name-taken'
  const rows = yield* run(
    (b) =>
      `update datasets set name = ${b(x.name)}, description = ${b(x.description)},
         metadata = ${d.json(b, x.metadata)}, updated_at = ${b(x.updated_at)}
       where dataset_id = ${b(x.dataset_id)} returning dataset_id`,
  )
  return rows.length > 0 ? 'updated' : 'missing'
}

function* deleteDataset(datasetId: string): Plan<boolean> {
  yield* run((b) => `delete from dataset_items where dataset_id = ${b(datasetId)}`)
  yield* run((b) => `delete from experiments where dataset_id = ${b(datasetId)}`)
  const rows = yield* run((b) => `delete from datasets where dataset_id = ${b(datasetId)} returning dataset_id`)
  return rows.length > 0
}

/** Items written by one statement: a bulk add is a few statements, not one per item. */
const ITEMS_PER_STATEMENT = 100

function* insertItems(d: DatasetDialect, items: readonly DatasetItemRecord[]): Plan<void> {
  for (let at = 0; at < items.length; at += ITEMS_PER_STATEMENT) {
    const chunk = items.slice(at, at + ITEMS_PER_STATEMENT)
    yield* run(
      (b) =>
        `insert into dataset_items (${ITEM_COLUMNS}) values ${chunk
          .map(
            (i) =>
              `(${b(i.item_id)}, ${b(i.version)}, ${b(i.dataset_id)}, ${b(i.status)}, ${d.json(b, i.input)}, ${
                i.expected_output === null || i.expected_output === undefined ? 'null' : d.json(b, i.expected_output)
              }, ${d.json(b, i.metadata)}, ${b(i.source_trace_id)}, ${b(i.created_at)}, ${b(i.valid_from)}, ${b(i.valid_to)})`,
          )
          .join(', ')}`,
    )
  }
}

function* putVersion(d: DatasetDialect, next: DatasetItemRecord): Plan<boolean> {
  const ended = yield* run(
    (b) =>
      `update dataset_items set valid_to = ${b(next.valid_from)}
       where item_id = ${b(next.item_id)} and version = ${b(next.version - 1)} and valid_to is null
       returning item_id`,
  )
  if (ended.length === 0) return false
  yield* insertItems(d, [next])
  return true
}

function* createExperiment(d: DatasetDialect, e: ExperimentRecord): Plan<void> {
  yield* run(
    (b) =>
      `insert into experiments (${EXPERIMENT_COLUMNS})
       values (${b(e.experiment_id)}, ${b(e.project_id)}, ${b(e.dataset_id)}, ${b(e.name)}, ${b(e.as_of)},
               ${d.json(b, e.metadata)}, ${b(e.created_at)})`,
  )
}

/** The dataset store of a dialect: `query` reads, `write` runs a plan in one transaction. */
export function createDatasetStore(
  query: Query,
  write: <T>(plan: Plan<T>) => Promise<T>,
  d: DatasetDialect,
): DatasetStore {
  const datasetSelect = `select ${DATASET_COLUMNS} from datasets`
  const itemSelect = `select ${ITEM_COLUMNS} from dataset_items`
  const experimentSelect = `select ${EXPERIMENT_COLUMNS} from experiments`
  const datasetRow = (r: Record<string, unknown>) => datasetOf(d, r)
  const itemRow = (r: Record<string, unknown>) => itemOf(d, r)
  const experimentRow = (r: Record<string, unknown>) => experimentOf(d, r)

  return {
    create: (dataset) => write(createDataset(d, dataset)),

    async list(filter) {
      const rows = await query<Record<string, unknown>>((b) => {
        const where = [
          ...(filter.project_id === undefined ? [] : [`project_id = ${b(filter.project_id)}`]),
          ...(filter.name === undefined ? [] : [`name = ${b(filter.name)}`]),
        ]
        return `${datasetSelect} ${where.length ? `where ${where.join(' and ')}` : ''}
          order by name, project_id, dataset_id`
      })
      return rows.map(datasetRow)
    },

    async get(datasetId) {
      const [row] = await query<Record<string, unknown>>((b) => `${datasetSelect} where dataset_id = ${b(datasetId)}`)
      return row ? datasetRow(row) : null
    },

    update: (dataset) => write(updateDataset(d, dataset)),
    delete: (datasetId) => write(deleteDataset(datasetId)),

    async itemCounts(datasetIds) {
      const counts = new Map<string, number>()
      if (datasetIds.length === 0) return counts
      const rows = await query<{ dataset_id: string; n: number | string }>(
        (b) =>
          `select dataset_id, count(*) as n from dataset_items
           where ${d.inList(b, 'dataset_id', datasetIds)} and valid_to is null and status = 'active'
           group by dataset_id`,
      )
      for (const row of rows) counts.set(row.dataset_id, Number(row.n))
      return counts
    },

    addItems: (items) => write(insertItems(d, items)),

    async listItems(s: DatasetItemSelection) {
      const conditions = (b: (value: unknown) => string) =>
        [
          `dataset_id = ${b(s.dataset_id)}`,
          holding(b, s.as_of),
          ...(s.include_archived ? [] : [`status = 'active'`]),
        ].join(' and ')
      const [rows, [count]] = await Promise.all([
        query<Record<string, unknown>>(
          (b) =>
            `${itemSelect} where ${conditions(b)}
             ${s.after === undefined ? '' : `and item_id > ${b(s.after)}`}
             order by item_id limit ${b(s.limit + 1)}`,
        ),
        query<{ n: number | string }>((b) => `select count(*) as n from dataset_items where ${conditions(b)}`),
      ])
      return {
        total: Number(count?.n ?? 0),
        items: rows.slice(0, s.limit).map(itemRow),
        more: rows.length > s.limit,
      }
    },

    async getItem(datasetId, itemId, asOf) {
      const [row] = await query<Record<string, unknown>>(
        (b) =>
          `${itemSelect} where item_id = ${b(itemId)} and dataset_id = ${b(datasetId)} and ${holding(b, asOf)}
           order by version desc limit 1`,
      )
      return row ? itemRow(row) : null
    },

    async itemVersions(datasetId, itemId) {
      const rows = await query<Record<string, unknown>>(
        (b) => `${itemSelect} where item_id = ${b(itemId)} and dataset_id = ${b(datasetId)} order by version`,
      )
      return rows.map(itemRow)
    },

    putVersion: (next) => write(putVersion(d, next)),

    async sourceTraceIds(datasetId) {
      const rows = await query<{ source_trace_id: string }>(
        (b) =>
          `select source_trace_id from dataset_items
           where dataset_id = ${b(datasetId)} and valid_to is null and source_trace_id is not null`,
      )
      return new Set(rows.map((r) => r.source_trace_id))
    },

    createExperiment: (experiment) => write(createExperiment(d, experiment)),

    async getExperiment(experimentId) {
      const [row] = await query<Record<string, unknown>>(
        (b) => `${experimentSelect} where experiment_id = ${b(experimentId)}`,
      )
      return row ? experimentRow(row) : null
    },

    async listExperiments(filter) {
      const where = (b: (value: unknown) => string) => {
        const all = [
          ...(filter.project_id === undefined ? [] : [`project_id = ${b(filter.project_id)}`]),
          ...(filter.dataset_id === undefined ? [] : [`dataset_id = ${b(filter.dataset_id)}`]),
          ...(filter.name === undefined ? [] : [`name = ${b(filter.name)}`]),
        ]
        return all.length ? `where ${all.join(' and ')}` : ''
      }
      const [rows, [count]] = await Promise.all([
        query<Record<string, unknown>>(
          (b) =>
            `${experimentSelect} ${where(b)} order by created_at desc, experiment_id desc limit ${b(filter.limit)}`,
        ),
        query<{ n: number | string }>((b) => `select count(*) as n from experiments ${where(b)}`),
      ])
      return { total: Number(count?.n ?? 0), items: rows.map(experimentRow) }
    },

    async experimentTraces(experiment) {
      const rows = await query<Record<string, unknown>>(
        (b) =>
          `select trace_id, dataset_item_id, status, response, failure_reason, latency, token_count, cost, created_at
           from traces
           where experiment_id = ${b(experiment.experiment_id)} and project_id = ${b(experiment.project_id)}
           order by created_at, trace_id`,
      )
      return rows.map(
        (r): ExperimentTraceRow => ({
          trace_id: r.trace_id as string,
          dataset_item_id: (r.dataset_item_id as string | null) ?? null,
          status: r.status as ExperimentTraceRow['status'],
          response: (r.response as string | null) ?? null,
          failure_reason: (r.failure_reason as string | null) ?? null,
          latency: Number(r.latency),
          token_count: Number(r.token_count),
          cost: r.cost === null || r.cost === undefined ? null : Number(r.cost),
          created_at: Number(r.created_at),
        }),
      )
    },
  }
}
