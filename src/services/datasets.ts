// Datasets within the caller's scope (another project's dataset is answered as unknown, 404), their items checked and
// versioned (an edit or an archive is a new version, nothing is lost), items made from stored traces (a selection or
// every trace of a GET /traces filter), and the items as JSONL or CSV: exported a page at a time, imported whole.
import { setImmediate as nextTurn } from 'node:timers/promises'
import { uuidv7 } from 'uuidv7'
import {
  type AddDatasetItemsResponse,
  DATASET_CSV_COLUMNS,
  DATASET_LIMITS,
  type Dataset,
  type DatasetFormat,
  type DatasetInput,
  type DatasetItem,
  type DatasetItemInput,
  DatasetItemInputSchema,
  type FromTracesBody,
  type FromTracesResponse,
  type ListDatasetItemsQuery,
  type ListDatasetItemsResponse,
  type ListDatasetsQuery,
  type ListDatasetsResponse,
  type PutDatasetBody,
  type Trace,
  type TraceFilterQuery,
} from '../../schemas/index.js'
import {
  DatasetExists,
  DatasetItemChanged,
  DatasetItemNotFound,
  DatasetNotFound,
  InvalidInput,
  ProjectNotFound,
  TraceNotFound,
} from '../errors.js'
import { inScope } from '../lib/access-policy.js'
import { parseCsv } from '../lib/csv.js'
import { parseTimestamp } from '../lib/time.js'
import { describeErrors, type Validators } from '../lib/validation.js'
import type { DatasetItemRecord, DatasetRecord, Store } from '../store/types.js'
import { csvRow } from './export.js'
import { traceFilter } from './traces.js'

/** Items read from the store at a time (an export, an experiment's items). */
export const ITEMS_CHUNK = 1000

export interface DatasetService {
  create(input: DatasetInput, scope: string | null): Promise<Dataset>
  list(query: ListDatasetsQuery, scope: string | null): Promise<ListDatasetsResponse>
  get(datasetId: string, scope: string | null): Promise<Dataset>
  update(datasetId: string, body: PutDatasetBody, scope: string | null): Promise<Dataset>
  remove(datasetId: string, scope: string | null): Promise<void>
  /** One item, or `{"items": [...]}`: each checked, all added in one transaction or none. */
  addItems(datasetId: string, body: unknown, scope: string | null): Promise<AddDatasetItemsResponse>
  listItems(datasetId: string, query: ListDatasetItemsQuery, scope: string | null): Promise<ListDatasetItemsResponse>
  getItem(datasetId: string, itemId: string, asOf: string | undefined, scope: string | null): Promise<DatasetItem>
  itemVersions(datasetId: string, itemId: string, scope: string | null): Promise<DatasetItem[]>
  /** A new version with this content (active again if it was archived); the same content changes nothing. */
  updateItem(datasetId: string, itemId: string, input: DatasetItemInput, scope: string | null): Promise<DatasetItem>
  /** A new version, archived: left out of the dataset from now on, every version kept. */
  archiveItem(datasetId: string, itemId: string, scope: string | null): Promise<DatasetItem>
  fromTraces(datasetId: string, body: FromTracesBody, scope: string | null): Promise<FromTracesResponse>
  /** The items (as of a time) as JSONL or CSV lines, a page at a time. */
  exportItems(
    datasetId: string,
    format: DatasetFormat,
    asOf: string | undefined,
    scope: string | null,
  ): Promise<AsyncIterable<string>>
  importItems(datasetId: string, format: DatasetFormat, text: string, scope: string | null): Promise<{ added: number }>
  /** The dataset, when the scope may see it; 404 as if unknown otherwise. */
  visible(datasetId: string, scope: string | null): Promise<DatasetRecord>
  /** Every item of a dataset as of a time, in order. */
  allItems(datasetId: string, asOf: number): Promise<DatasetItemRecord[]>
}

export interface DatasetDeps {
  store: Store
  validators: Validators
  now?: () => number
  newId?: () => string
}

const iso = (ms: number) => new Date(ms).toISOString()

const datasetView = (d: DatasetRecord, itemCount: number): Dataset => ({
  dataset_id: d.dataset_id,
  project_id: d.project_id,
  name: d.name,
  description: d.description,
  metadata: d.metadata,
  item_count: itemCount,
  created_at: iso(d.created_at),
  updated_at: iso(d.updated_at),
})

export const itemView = (i: DatasetItemRecord): DatasetItem => ({
  dataset_item_id: i.item_id,
  dataset_id: i.dataset_id,
  version: i.version,
  status: i.status,
  input: i.input,
  expected_output: i.expected_output,
  metadata: i.metadata,
  source_trace_id: i.source_trace_id,
  created_at: iso(i.created_at),
  updated_at: iso(i.valid_from),
})

/** What a trace gives an item: input from the prompt (else the root step's input), expected output from the response. */
export function itemFromTrace(trace: Trace): DatasetItemInput {
  // The steps are read only when the prompt or the response is missing: a stored trace parses them on first use.
  const root = () => trace.steps.find((s) => s.parent_index === null)
  const metadata: Record<string, unknown> = {}
  if (trace.name !== null) metadata.trace_name = trace.name
  if (trace.model !== null) metadata.model = trace.model
  return {
    input: trace.prompt !== '' ? trace.prompt : (root()?.input ?? ''),
    expected_output: trace.response ?? root()?.output ?? null,
    metadata,
    source_trace_id: trace.trace_id,
  }
}

const encodeCursor = (itemId: string) => Buffer.from(JSON.stringify([itemId])).toString('base64url')
function decodeCursor(cursor: string): string {
  try {
    const [itemId] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as unknown[]
    if (typeof itemId === 'string') return itemId
  } catch {}
  throw new InvalidInput('querystring/cursor is not a cursor this list gave')
}

/** A CSV cell of an import: a JSON object or array when it parses as one, else its text. */
function cellValue(text: string): unknown {
  const trimmed = text.trim()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.parse(trimmed)
    } catch {}
  }
  return text
}

/** A CSV cell of an export: text as it is, anything else as its JSON (csvField quotes what needs it). */
const exportCell = (value: unknown) => (value === null || typeof value === 'string' ? value : JSON.stringify(value))

export function createDatasetService({
  store,
  validators,
  now = Date.now,
  newId = uuidv7,
}: DatasetDeps): DatasetService {
  const checkItem = validators.body.compile(DatasetItemInputSchema)

  async function view(d: DatasetRecord): Promise<Dataset> {
    const counts = await store.datasets.itemCounts([d.dataset_id])
    return datasetView(d, counts.get(d.dataset_id) ?? 0)
  }

  async function visible(datasetId: string, scope: string | null): Promise<DatasetRecord> {
    const d = await store.datasets.get(datasetId)
    if (!d || !inScope(scope, d.project_id)) throw new DatasetNotFound(datasetId)
    return d
  }

  /** An item's input as checked: a 400 naming where it sits when it is not one. */
  function checked(input: unknown, at: string): DatasetItemInput {
    if (!checkItem(input)) throw new InvalidInput(describeErrors(checkItem.errors ?? [], at))
    const item = input as DatasetItemInput
    for (const field of ['input', 'expected_output', 'metadata'] as const) {
      const value = item[field]
      if (value !== undefined && Buffer.byteLength(JSON.stringify(value) ?? '') > DATASET_LIMITS.valueBytes) {
        throw new InvalidInput(`${at}/${field} must be at most ${DATASET_LIMITS.valueBytes / 1024} KiB serialized`)
      }
    }
    return item
  }

  const newItem = (datasetId: string, input: DatasetItemInput, at: number): DatasetItemRecord => ({
    item_id: newId(),
    version: 1,
    dataset_id: datasetId,
    status: 'active',
    input: input.input,
    expected_output: input.expected_output ?? null,
    metadata: input.metadata ?? {},
    source_trace_id: input.source_trace_id ?? null,
    created_at: at,
    valid_from: at,
    valid_to: null,
  })

  async function add(d: DatasetRecord, inputs: readonly DatasetItemInput[]): Promise<DatasetItemRecord[]> {
    const at = now()
    const items = inputs.map((input) => newItem(d.dataset_id, input, at))
    await store.datasets.addItems(items)
    return items
  }

  const timestamp = (value: string | undefined, at: string): number | undefined => {
    if (value === undefined) return undefined
    const ms = parseTimestamp(value)
    if (ms === null) throw new InvalidInput(`${at} must be an ISO 8601 timestamp or an epoch number`)
    return ms
  }

  async function currentItem(d: DatasetRecord, itemId: string): Promise<DatasetItemRecord> {
    const item = await store.datasets.getItem(d.dataset_id, itemId)
    if (!item) throw new DatasetItemNotFound(itemId)
    return item
  }

  async function newVersion(current: DatasetItemRecord, next: Partial<DatasetItemRecord>): Promise<DatasetItemRecord> {
    const record: DatasetItemRecord = {
      ...current,
      ...next,
      version: current.version + 1,
      valid_from: Math.max(now(), current.valid_from),
      valid_to: null,
    }
    if (!(await store.datasets.putVersion(record))) throw new DatasetItemChanged(current.item_id)
    return record
  }

  async function* pages(datasetId: string, asOf: number | undefined): AsyncGenerator<DatasetItemRecord[]> {
    let after: string | undefined
    for (;;) {
      const page = await store.datasets.listItems({
        dataset_id: datasetId,
        as_of: asOf,
        include_archived: false,
        after,
        limit: ITEMS_CHUNK,
      })
      if (page.items.length > 0) yield page.items
      if (!page.more) return
      after = page.items.at(-1)?.item_id
    }
  }

  /** The traces a from-traces request names, each of the dataset's project (404 naming the first that is not). */
  async function namedTraces(d: DatasetRecord, ids: readonly string[]): Promise<Trace[]> {
    const traces: Trace[] = []
    for (const id of ids) {
      const trace = await store.traces.get(id)
      if (trace?.project_id !== d.project_id) throw new TraceNotFound(id)
      traces.push(trace)
    }
    return traces
  }

  /** Up to `limit` traces of a GET /traces filter within the dataset's project, newest first. */
  async function filteredTraces(d: DatasetRecord, filter: object, limit: number): Promise<DatasetItemInput[]> {
    let storeFilter: ReturnType<typeof traceFilter>
    try {
      storeFilter = traceFilter(filter as TraceFilterQuery, d.project_id)
    } catch (err) {
      if (err instanceof InvalidInput) throw new InvalidInput(err.message.replace(/^querystring\//, 'body/filter/'))
      throw err
    }
    const found: DatasetItemInput[] = []
    for await (const chunk of store.traces.walk(storeFilter, Math.min(limit, 500), itemFromTrace)) {
      for (const item of chunk) {
        if (found.length < limit) found.push(item)
      }
      if (found.length >= limit) break
    }
    return found
  }

  function parseImport(format: DatasetFormat, text: string): DatasetItemInput[] {
    if (format === 'jsonl') {
      const items: DatasetItemInput[] = []
      const lines = text.split(/\r?\n/)
      for (const [i, line] of lines.entries()) {
        if (line.trim() === '') continue
        let value: unknown
        try {
          value = JSON.parse(line)
        } catch {
          throw new InvalidInput(`body line ${i + 1} is not JSON`)
        }
        items.push(checked(value, `body line ${i + 1}`))
        if (items.length > DATASET_LIMITS.importRows) {
          throw new InvalidInput(`body holds more than ${DATASET_LIMITS.importRows} items`)
        }
      }
      return items
    }
    let rows: string[][]
    try {
      rows = parseCsv(text)
    } catch (err) {
      throw new InvalidInput(`body is not CSV: ${(err as Error).message}`)
    }
    const [header, ...body] = rows
    if (!header) return []
    const names = header.map((h) => h.trim())
    const unknown = names.find((n) => !(DATASET_CSV_COLUMNS as readonly string[]).includes(n))
    if (unknown !== undefined) {
      throw new InvalidInput(`body: CSV column '${unknown}' is not one of ${DATASET_CSV_COLUMNS.join(', ')}`)
    }
    if (!names.includes('input')) throw new InvalidInput("body: the CSV header must name an 'input' column")
    if (body.length > DATASET_LIMITS.importRows) {
      throw new InvalidInput(`body holds more than ${DATASET_LIMITS.importRows} items`)
    }
    return body
      .filter((cells) => cells.some((c) => c !== ''))
      .map((cells, r) => {
        const at = `body row ${r + 2}`
        if (cells.length !== names.length) {
          throw new InvalidInput(`${at} has ${cells.length} fields; the header has ${names.length}`)
        }
        const item: Record<string, unknown> = {}
        for (const [c, name] of names.entries()) {
          const cell = cells[c] ?? ''
          if (name === 'input') item.input = cellValue(cell)
          else if (cell === '') continue
          else if (name === 'source_trace_id') item.source_trace_id = cell
          else if (name === 'metadata') {
            const value = cellValue(cell)
            if (typeof value !== 'object' || value === null || Array.isArray(value)) {
              throw new InvalidInput(`${at}/metadata must be a JSON object`)
            }
            item.metadata = value
          } else item.expected_output = cellValue(cell)
        }
        return checked(item, at)
      })
  }

  return {
    visible,

    async create(input, scope) {
      const projectId = scope ?? input.project_id
      if (projectId === undefined) throw new InvalidInput("body must have property 'project_id'")
      if (!(await store.projects.get(projectId))) throw new ProjectNotFound(projectId)
      const at = now()
      const d: DatasetRecord = {
        dataset_id: newId(),
        project_id: projectId,
        name: input.name,
        description: input.description ?? '',
        metadata: input.metadata ?? {},
        created_at: at,
        updated_at: at,
      }
      if (!(await store.datasets.create(d))) throw new DatasetExists(input.name)
      return view(d)
    },

    async list(query, scope) {
      const found = await store.datasets.list({ project_id: scope ?? query.project_id, name: query.name })
      const counts = await store.datasets.itemCounts(found.map((d) => d.dataset_id))
      const items = found.map((d) => datasetView(d, counts.get(d.dataset_id) ?? 0))
      return { total: items.length, items }
    },

    async get(datasetId, scope) {
      return view(await visible(datasetId, scope))
    },

    async update(datasetId, body, scope) {
      const d = await visible(datasetId, scope)
      const next: DatasetRecord = {
        ...d,
        name: body.name,
        description: body.description ?? '',
        metadata: body.metadata ?? {},
        updated_at: now(),
      }
      const outcome = await store.datasets.update(next)
      if (outcome === 'name-taken') throw new DatasetExists(body.name)
      if (outcome === 'missing') throw new DatasetNotFound(datasetId)
      return view(next)
    },

    async remove(datasetId, scope) {
      await visible(datasetId, scope)
      if (!(await store.datasets.delete(datasetId))) throw new DatasetNotFound(datasetId)
    },

    async addItems(datasetId, body, scope) {
      const d = await visible(datasetId, scope)
      const many = typeof body === 'object' && body !== null && !Array.isArray(body) && 'items' in body
      let inputs: DatasetItemInput[]
      if (many) {
        const list = (body as { items: unknown }).items
        const extra = Object.keys(body as object).find((k) => k !== 'items')
        if (extra !== undefined) throw new InvalidInput(`body must NOT have additional properties ('${extra}')`)
        if (!Array.isArray(list) || list.length === 0 || list.length > DATASET_LIMITS.batch) {
          throw new InvalidInput(`body/items must be an array of 1 to ${DATASET_LIMITS.batch} items`)
        }
        inputs = list.map((item, i) => checked(item, `body/items/${i}`))
      } else inputs = [checked(body, 'body')]
      const items = await add(d, inputs)
      return { added: items.length, items: items.map(itemView) }
    },

    async listItems(datasetId, query, scope) {
      const d = await visible(datasetId, scope)
      const limit = query.limit ?? 100
      const page = await store.datasets.listItems({
        dataset_id: d.dataset_id,
        as_of: timestamp(query.as_of, 'querystring/as_of'),
        include_archived: query.include_archived ?? false,
        after: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
        limit,
      })
      const last = page.items.at(-1)
      return {
        total: page.total,
        items: page.items.map(itemView),
        next_cursor: page.more && last ? encodeCursor(last.item_id) : null,
      }
    },

    async getItem(datasetId, itemId, asOf, scope) {
      const d = await visible(datasetId, scope)
      const item = await store.datasets.getItem(d.dataset_id, itemId, timestamp(asOf, 'querystring/as_of'))
      if (!item) throw new DatasetItemNotFound(itemId)
      return itemView(item)
    },

    async itemVersions(datasetId, itemId, scope) {
      const d = await visible(datasetId, scope)
      const versions = await store.datasets.itemVersions(d.dataset_id, itemId)
      if (versions.length === 0) throw new DatasetItemNotFound(itemId)
      return versions.map(itemView)
    },

    async updateItem(datasetId, itemId, input, scope) {
      const d = await visible(datasetId, scope)
      const current = await currentItem(d, itemId)
      const item = checked(input, 'body')
      const content = {
        status: 'active' as const,
        input: item.input,
        expected_output: item.expected_output ?? null,
        metadata: item.metadata ?? {},
        source_trace_id: item.source_trace_id ?? null,
      }
      const same = JSON.stringify(Object.keys(content).map((k) => current[k as keyof typeof content]))
      if (same === JSON.stringify(Object.values(content))) return itemView(current)
      return itemView(await newVersion(current, content))
    },

    async archiveItem(datasetId, itemId, scope) {
      const d = await visible(datasetId, scope)
      const current = await currentItem(d, itemId)
      if (current.status === 'archived') return itemView(current)
      return itemView(await newVersion(current, { status: 'archived' }))
    },

    async fromTraces(datasetId, body, scope) {
      const d = await visible(datasetId, scope)
      const named = body.trace_ids !== undefined
      if (named === (body.filter !== undefined)) {
        throw new InvalidInput('body must have exactly one of trace_ids and filter')
      }
      const inputs = named
        ? (await namedTraces(d, body.trace_ids ?? [])).map(itemFromTrace)
        : await filteredTraces(d, body.filter ?? {}, body.limit ?? 1000)
      const known = await store.datasets.sourceTraceIds(d.dataset_id)
      const fresh = inputs.filter((i) => !known.has(i.source_trace_id as string))
      for (let at = 0; at < fresh.length; at += DATASET_LIMITS.batch) {
        await add(d, fresh.slice(at, at + DATASET_LIMITS.batch))
      }
      return { added: fresh.length, skipped: inputs.length - fresh.length }
    },

    async exportItems(datasetId, format, asOf, scope) {
      const d = await visible(datasetId, scope)
      const at = timestamp(asOf, 'querystring/as_of')
      return (async function* () {
        if (format === 'csv') yield csvRow(DATASET_CSV_COLUMNS)
        for await (const items of pages(d.dataset_id, at)) {
          let chunk = ''
          for (const i of items) {
            const fields = {
              input: i.input,
              expected_output: i.expected_output,
              metadata: i.metadata,
              source_trace_id: i.source_trace_id,
            }
            chunk +=
              format === 'jsonl'
                ? `${JSON.stringify(fields)}\n`
                : csvRow(DATASET_CSV_COLUMNS.map((c) => exportCell(fields[c])))
          }
          yield chunk
          await nextTurn()
        }
      })()
    },

    async importItems(datasetId, format, text, scope) {
      const d = await visible(datasetId, scope)
      const inputs = parseImport(format, text)
      for (let at = 0; at < inputs.length; at += DATASET_LIMITS.batch) {
        await add(d, inputs.slice(at, at + DATASET_LIMITS.batch))
      }
      return { added: inputs.length }
    },

    async allItems(datasetId, asOf) {
      const all: DatasetItemRecord[] = []
      for await (const items of pages(datasetId, asOf)) all.push(...items)
      return all
    },
  }
}
