// Datasets: a project's named collections of cases — an input, the output expected of it — to run experiments over.
// Items are versioned: an edit or an archive makes a new version, and the dataset can be read as it was at any time.
import { type Static, Type } from '@sinclair/typebox'
import { Literals, Nullable, Page, Ref, TimestampQuery, TraceIdSchema, UtcTimestamp } from './common.js'
import {
  addDatasetItemsExample,
  datasetCsvExample,
  datasetExample,
  datasetInputExample,
  datasetItemExample,
  datasetItemInputExample,
  datasetJsonlExample,
  fromTracesBodyExample,
  listDatasetItemsExample,
  listDatasetsExample,
} from './examples.js'
import { TraceFilterQuery } from './trace.js'

export const DATASET_LIMITS = {
  /** Items one request adds (a batch, an import's chunk). */
  batch: 1000,
  /** Traces one from-traces request adds. */
  fromTraces: 10_000,
  /** An item's serialized input, expected output or metadata, in bytes. */
  valueBytes: 256 * 1024,
  /** Rows one import takes. */
  importRows: 100_000,
} as const

export const DATASET_ITEM_STATUSES = ['active', 'archived'] as const
export type DatasetItemStatus = (typeof DATASET_ITEM_STATUSES)[number]

const DatasetName = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^\\S(.*\\S)?$',
  description: 'Unique in its project, 1–128 characters, no leading or trailing space.',
})
const Description = Type.String({ maxLength: 2000, description: 'What the dataset holds.' })
const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'Free JSON object.' })

export const DatasetSchema = Type.Object(
  {
    dataset_id: Type.String(),
    project_id: Type.String({ description: 'The project the dataset belongs to.' }),
    name: DatasetName,
    description: Type.String({ description: 'What the dataset holds (may be empty).' }),
    metadata: Metadata,
    item_count: Type.Integer({ minimum: 0, description: 'Items of the dataset now, archived ones left out.' }),
    created_at: UtcTimestamp,
    updated_at: UtcTimestamp,
  },
  {
    $id: 'DatasetSchema',
    additionalProperties: false,
    description: 'A named collection of cases (input, expected output) of one project.',
    examples: [datasetExample],
  },
)
export type Dataset = Static<typeof DatasetSchema>

// POST /datasets
export const DatasetInput = Type.Object(
  {
    name: DatasetName,
    project_id: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Required with the admin token or in open mode; a project key: its own.',
      }),
    ),
    description: Type.Optional(Description),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false, examples: [datasetInputExample] },
)
export type DatasetInput = Static<typeof DatasetInput>

// PUT /datasets/{dataset_id}
export const PutDatasetBody = Type.Omit(DatasetInput, ['project_id'], {
  additionalProperties: false,
  examples: [{ name: 'support-regressions', description: 'Answers that went wrong, with the right answer.' }],
})
export type PutDatasetBody = Static<typeof PutDatasetBody>

export const DatasetParams = Type.Object({ dataset_id: Type.String({ minLength: 1, maxLength: 128 }) })
export const DatasetItemParams = Type.Object({
  dataset_id: Type.String({ minLength: 1, maxLength: 128 }),
  item_id: Type.String({ minLength: 1, maxLength: 128 }),
})

// GET /datasets
export const ListDatasetsQuery = Type.Object({
  project_id: Type.Optional(Type.String({ description: 'Only this project’s datasets.' })),
  name: Type.Optional(Type.String({ minLength: 1, description: 'Only the dataset of this name.' })),
})
export type ListDatasetsQuery = Static<typeof ListDatasetsQuery>

export const ListDatasetsResponse = Page(
  Ref(DatasetSchema),
  { items: 'Name ascending.' },
  { examples: [listDatasetsExample] },
)
export type ListDatasetsResponse = Static<typeof ListDatasetsResponse>

export const DatasetItemSchema = Type.Object(
  {
    dataset_item_id: Type.String(),
    dataset_id: Type.String(),
    version: Type.Integer({ minimum: 1, description: '1 when created; each edit or archive adds one.' }),
    status: Literals(DATASET_ITEM_STATUSES, {
      description: '`archived`: kept (and its versions), but left out of the dataset from then on.',
    }),
    input: Type.Unknown({ description: 'What the task is given: any JSON.' }),
    expected_output: Type.Unknown({ description: 'What the task should answer: any JSON, or null.' }),
    metadata: Metadata,
    source_trace_id: Nullable(Type.String({ description: 'The trace the item was made from.' })),
    created_at: UtcTimestamp,
    updated_at: Type.String({ description: 'When this version was made (UTC).' }),
  },
  {
    $id: 'DatasetItemSchema',
    additionalProperties: false,
    description: 'One case of a dataset, in one of its versions.',
    examples: [datasetItemExample],
  },
)
export type DatasetItem = Static<typeof DatasetItemSchema>

export const DatasetItemInputSchema = Type.Object(
  {
    input: Type.Unknown({ description: 'Required: any JSON (a string, an object of the task’s arguments, …).' }),
    expected_output: Type.Optional(Type.Unknown({ description: 'Any JSON; null or absent: none.' })),
    metadata: Type.Optional(Nullable(Metadata)),
    source_trace_id: Type.Optional(Nullable(TraceIdSchema)),
  },
  {
    $id: 'DatasetItemInputSchema',
    additionalProperties: false,
    description: `An item to add, or an item's new content. Each of input, expected output and metadata at most ${DATASET_LIMITS.valueBytes / 1024} KiB serialized.`,
    examples: [datasetItemInputExample],
  },
)
export type DatasetItemInput = Static<typeof DatasetItemInputSchema>

// POST /datasets/{dataset_id}/items
export const AddDatasetItemsBody = Type.Union(
  [
    Ref(DatasetItemInputSchema),
    Type.Object(
      {
        items: Type.Array(Ref(DatasetItemInputSchema), { minItems: 1, maxItems: DATASET_LIMITS.batch }),
      },
      { additionalProperties: false },
    ),
  ],
  {
    description: `One item, or \`{"items": [...]}\` (1–${DATASET_LIMITS.batch}); every item is checked before any is added.`,
    examples: [{ items: [datasetItemInputExample] }],
  },
)

export const AddDatasetItemsResponse = Type.Object(
  {
    added: Type.Integer({ minimum: 0, description: 'Items added.' }),
    items: Type.Array(Ref(DatasetItemSchema), { description: 'The items added, in request order.' }),
  },
  { examples: [addDatasetItemsExample] },
)
export type AddDatasetItemsResponse = Static<typeof AddDatasetItemsResponse>

const AsOf = TimestampQuery(
  'Read the dataset as it was at this time: each item in the version it then had, items added later left out.',
)

// GET /datasets/{dataset_id}/items
export const ListDatasetItemsQuery = Type.Object({
  as_of: Type.Optional(AsOf),
  include_archived: Type.Optional(Type.Boolean({ default: false, description: 'Also the archived items.' })),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Items of a page (1–1000).' }),
  ),
  cursor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 256, description: 'The `next_cursor` of the previous page.' }),
  ),
})
export type ListDatasetItemsQuery = Static<typeof ListDatasetItemsQuery>

export const ListDatasetItemsResponse = Page(
  Ref(DatasetItemSchema),
  { total: 'Items of the dataset (as of the time asked), not just this page.', items: 'In the order they were added.' },
  { examples: [listDatasetItemsExample] },
  { next_cursor: Nullable(Type.String({ description: 'Pass as `cursor` for the next page; null on the last.' })) },
)
export type ListDatasetItemsResponse = Static<typeof ListDatasetItemsResponse>

// GET /datasets/{dataset_id}/items/{item_id}
export const GetDatasetItemQuery = Type.Object({ as_of: Type.Optional(AsOf) })

// GET /datasets/{dataset_id}/items/{item_id}/versions
export const ListDatasetItemVersionsResponse = Page(
  Ref(DatasetItemSchema),
  { items: 'Oldest version first.' },
  { examples: [{ total: 1, items: [datasetItemExample] }] },
)
export type ListDatasetItemVersionsResponse = Static<typeof ListDatasetItemVersionsResponse>

// POST /datasets/{dataset_id}/items/from-traces
export const FromTracesBody = Type.Object(
  {
    trace_ids: Type.Optional(
      Type.Array(TraceIdSchema, {
        minItems: 1,
        maxItems: DATASET_LIMITS.batch,
        uniqueItems: true,
        description: 'These traces (each must be one of the dataset’s project).',
      }),
    ),
    filter: Type.Optional(
      Type.Omit(TraceFilterQuery, ['project_id'], {
        additionalProperties: false,
        description: 'Or every trace matching these parameters of `GET /traces`, newest first, within the project.',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: DATASET_LIMITS.fromTraces,
        default: 1000,
        description: `With \`filter\`: at most this many traces (1–${DATASET_LIMITS.fromTraces}).`,
      }),
    ),
  },
  { additionalProperties: false, examples: [fromTracesBodyExample] },
)
export type FromTracesBody = Static<typeof FromTracesBody>

export const FromTracesResponse = Type.Object(
  {
    added: Type.Integer({ minimum: 0, description: 'Items made from traces.' }),
    skipped: Type.Integer({
      minimum: 0,
      description: 'Traces passed over: already the source of an item of the dataset.',
    }),
  },
  { examples: [{ added: 42, skipped: 3 }] },
)
export type FromTracesResponse = Static<typeof FromTracesResponse>

// GET /datasets/{dataset_id}/items/export, POST /datasets/{dataset_id}/items/import
export const DATASET_FORMATS = ['jsonl', 'csv'] as const
export type DatasetFormat = (typeof DATASET_FORMATS)[number]
export const DATASET_MEDIA_TYPES: Record<DatasetFormat, string> = {
  jsonl: 'application/x-ndjson',
  csv: 'text/csv',
}
/** The columns of a dataset's CSV, in order. */
export const DATASET_CSV_COLUMNS = ['input', 'expected_output', 'metadata', 'source_trace_id'] as const

export const ExportDatasetItemsQuery = Type.Object({
  format: Type.Optional(Literals(DATASET_FORMATS, { default: 'jsonl' })),
  as_of: Type.Optional(AsOf),
})
export type ExportDatasetItemsQuery = Static<typeof ExportDatasetItemsQuery>

/** The export's answer: one item a line (JSONL) or a row (CSV). */
export const ExportDatasetItemsResponse = {
  description: 'The items, streamed.',
  content: {
    [DATASET_MEDIA_TYPES.jsonl]: {
      schema: Type.String({ description: 'One item a line: input, expected_output, metadata, source_trace_id.' }),
      example: datasetJsonlExample,
    },
    [DATASET_MEDIA_TYPES.csv]: {
      schema: Type.String({ description: `Columns: ${DATASET_CSV_COLUMNS.join(', ')}.` }),
      example: datasetCsvExample,
    },
  },
}

/** The import's body: JSONL or CSV text, as the export writes it. */
export const ImportDatasetItemsBody = {
  content: {
    [DATASET_MEDIA_TYPES.jsonl]: {
      schema: Type.String({
        description: 'One item a line, as `POST /datasets/{dataset_id}/items` takes one.',
        examples: [datasetJsonlExample],
      }),
    },
    [DATASET_MEDIA_TYPES.csv]: {
      schema: Type.String({
        description: `A header naming some of ${DATASET_CSV_COLUMNS.join(', ')}; input is required.`,
        examples: [datasetCsvExample],
      }),
    },
  },
}

export const ImportDatasetItemsResponse = Type.Object(
  { added: Type.Integer({ minimum: 0, description: 'Items added.' }) },
  { examples: [{ added: 120 }] },
)
