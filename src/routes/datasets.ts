// /datasets: a project's collections of cases, their versioned items (added, edited, archived, read as of a time), items
// made from stored traces, and the items exported and imported as JSONL or CSV.
import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  AddDatasetItemsBody,
  AddDatasetItemsResponse,
  DATASET_FORMATS,
  DATASET_LIMITS,
  DATASET_MEDIA_TYPES,
  type DatasetFormat,
  DatasetInput,
  DatasetItemInputSchema,
  DatasetItemParams,
  DatasetItemSchema,
  DatasetParams,
  DatasetSchema,
  ExportDatasetItemsQuery,
  ExportDatasetItemsResponse,
  errorResponses,
  FromTracesBody,
  FromTracesResponse,
  GetDatasetItemQuery,
  ImportDatasetItemsBody,
  ImportDatasetItemsResponse,
  ListDatasetItemsQuery,
  ListDatasetItemsResponse,
  ListDatasetItemVersionsResponse,
  ListDatasetsQuery,
  ListDatasetsResponse,
  Literals,
  PutDatasetBody,
  Ref,
} from '../../schemas/index.js'
import { LONG_RUNNING_MS } from '../lib/time.js'

/** What POST /datasets/{dataset_id}/items checks before the service checks each item (and names its fields). */
const JsonObject = Type.Object({})

/** The largest import body, in bytes. */
const IMPORT_BODY_LIMIT = 64 * 1024 * 1024

const datasets: FastifyPluginAsyncTypebox = async (app) => {
  // An import's body is JSONL or CSV text, read whole: each line or row is checked before any item is added.
  app.addContentTypeParser(
    Object.values(DATASET_MEDIA_TYPES),
    { parseAs: 'string', bodyLimit: IMPORT_BODY_LIMIT },
    (_request, body, done) => done(null, body),
  )
  app.removeContentTypeParser('text/plain')

  // POST /datasets
  app.post(
    '/datasets',
    {
      config: { access: 'write' },
      schema: {
        tags: ['datasets'],
        operationId: 'createDataset',
        summary: 'Create a dataset',
        description:
          'A named collection of cases of one project (`name` unique in it: 409 otherwise). A project key creates ' +
          'datasets of its own project only; the admin token (or open mode) names the project.',
        body: DatasetInput,
        response: { 201: Ref(DatasetSchema), ...errorResponses(400, 401, 403, 404, 409, 415) },
      },
    },
    async (request, reply) => {
      if (request.body.project_id !== undefined) app.authorizeTarget(request, { project_id: request.body.project_id })
      return reply.code(201).send(await app.datasets.create(request.body, request.scope))
    },
  )

  // GET /datasets
  app.get(
    '/datasets',
    {
      config: { access: 'read' },
      schema: {
        tags: ['datasets'],
        operationId: 'listDatasets',
        summary: 'Datasets, name ascending, each with its number of items',
        querystring: ListDatasetsQuery,
        response: { 200: ListDatasetsResponse, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => app.datasets.list(request.query, request.scope),
  )

  // GET /datasets/{dataset_id}
  app.get(
    '/datasets/:dataset_id',
    {
      config: { access: 'read' },
      schema: {
        tags: ['datasets'],
        operationId: 'getDataset',
        summary: 'One dataset',
        description: 'Another project’s dataset is answered 404, as an unknown one.',
        params: DatasetParams,
        response: { 200: Ref(DatasetSchema), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => app.datasets.get(request.params.dataset_id, request.scope),
  )

  // PUT /datasets/{dataset_id}
  app.put(
    '/datasets/:dataset_id',
    {
      config: { access: 'write' },
      schema: {
        tags: ['datasets'],
        operationId: 'putDataset',
        summary: 'Rename or describe a dataset',
        description: 'Replaces its name, description and metadata (its items stay). A name taken in the project: 409.',
        params: DatasetParams,
        body: PutDatasetBody,
        response: { 200: Ref(DatasetSchema), ...errorResponses(400, 401, 403, 404, 409, 415) },
      },
    },
    async (request) => app.datasets.update(request.params.dataset_id, request.body, request.scope),
  )

  // DELETE /datasets/{dataset_id}
  app.delete(
    '/datasets/:dataset_id',
    {
      config: { access: 'write' },
      schema: {
        tags: ['datasets'],
        operationId: 'deleteDataset',
        summary: 'Delete a dataset, its items (every version) and its experiments',
        description: 'The traces of its experiments stay, as any trace.',
        params: DatasetParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await app.datasets.remove(request.params.dataset_id, request.scope)
      return reply.code(204).send(null)
    },
  )

  // POST /datasets/{dataset_id}/items
  app.post(
    '/datasets/:dataset_id/items',
    {
      config: { access: 'write' },
      schema: {
        tags: ['datasets'],
        operationId: 'addDatasetItems',
        summary: `Add one item, or up to ${DATASET_LIMITS.batch}`,
        description:
          'One item, or `{"items": [...]}`. Every item is checked first (a 400 names the item and field) and then ' +
          'all are added, each at version 1.',
        params: DatasetParams,
        body: AddDatasetItemsBody,
        response: { 201: AddDatasetItemsResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
      // The documented body is one item or a list; the service checks which, and each item.
      validatorCompiler: () => app.validators.body.compileEnvelope(JsonObject),
    },
    async (request, reply) =>
      reply.code(201).send(await app.datasets.addItems(request.params.dataset_id, request.body, request.scope)),
  )

  // GET /datasets/{dataset_id}/items
  app.get(
    '/datasets/:dataset_id/items',
    {
      config: { access: 'read' },
      schema: {
        tags: ['datasets'],
        operationId: 'listDatasetItems',
        summary: 'A page of a dataset’s items, now or as of a time',
        description:
          'In the order they were added. `as_of`: each item in the version it had then, the items added later left ' +
          'out (what an experiment ran on). Archived items only with `include_archived`.',
        params: DatasetParams,
        querystring: ListDatasetItemsQuery,
        response: { 200: ListDatasetItemsResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => app.datasets.listItems(request.params.dataset_id, request.query, request.scope),
  )

  // GET /datasets/{dataset_id}/items/export
  app.get(
    '/datasets/:dataset_id/items/export',
    {
      handlerTimeout: LONG_RUNNING_MS,
      config: { access: 'read' },
      schema: {
        tags: ['datasets'],
        operationId: 'exportDatasetItems',
        summary: 'Export a dataset’s items as JSONL or CSV, streamed',
        description:
          'Each line or row an item’s `input`, `expected_output`, `metadata` and `source_trace_id`: what the import ' +
          'takes back. In CSV, a value that is not text is its JSON. `as_of` as for the list.',
        params: DatasetParams,
        querystring: ExportDatasetItemsQuery,
        response: { 200: ExportDatasetItemsResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const format = (request.query.format ?? 'jsonl') as DatasetFormat
      const lines = await app.datasets.exportItems(
        request.params.dataset_id,
        format,
        request.query.as_of,
        request.scope,
      )
      const stream = Readable.from(lines, { highWaterMark: 2 })
      stream.on('error', (err) => request.log.error({ err }, 'dataset export failed midway'))
      return reply
        .type(DATASET_MEDIA_TYPES[format])
        .header('content-disposition', `attachment; filename="dataset.${format}"`)
        .send(stream as never) // the typed reply knows the text the stream produces, not the stream
    },
  )

  // POST /datasets/{dataset_id}/items/import
  app.post(
    '/datasets/:dataset_id/items/import',
    {
      handlerTimeout: LONG_RUNNING_MS,
      bodyLimit: IMPORT_BODY_LIMIT,
      config: { access: 'write' },
      schema: {
        tags: ['datasets'],
        operationId: 'importDatasetItems',
        summary: 'Import items from JSONL or CSV',
        description:
          'JSONL (`application/x-ndjson`): one item a line, as `POST /datasets/{dataset_id}/items` takes one. CSV ' +
          '(`text/csv`): a header naming some of `input` (required), `expected_output`, `metadata`, ' +
          '`source_trace_id`; a cell that parses as a JSON object or array is that, any other is its text. Every ' +
          `line is checked before any item is added (a 400 names the line or row). At most ${DATASET_LIMITS.importRows} items.`,
        params: DatasetParams,
        querystring: Type.Object({
          format: Type.Optional(
            Literals(DATASET_FORMATS, { description: 'Default: from the Content-Type (`text/csv`: csv).' }),
          ),
        }),
        body: ImportDatasetItemsBody,
        response: { 200: ImportDatasetItemsResponse, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => {
      const format = request.query.format ?? (request.headers['content-type']?.startsWith('text/csv') ? 'csv' : 'jsonl')
      return app.datasets.importItems(request.params.dataset_id, format, request.body as string, request.scope)
    },
  )

  // POST /datasets/{dataset_id}/items/from-traces
  app.post(
    '/datasets/:dataset_id/items/from-traces',
    {
      handlerTimeout: LONG_RUNNING_MS,
      config: { access: 'write' },
      schema: {
        tags: ['datasets'],
        operationId: 'addDatasetItemsFromTraces',
        summary: 'Add items made from stored traces',
        description:
          'Either `trace_ids` (each a trace of the dataset’s project: 404 otherwise, nothing added) or `filter` (the ' +
          'parameters of `GET /traces`, newest first, at most `limit`). Each trace becomes an item: input from its ' +
          'prompt (or its root step’s input), expected output from its response (or its root step’s output), the ' +
          'trace linked as `source_trace_id`. A trace already the source of an item of the dataset is skipped.',
        params: DatasetParams,
        body: FromTracesBody,
        response: { 200: FromTracesResponse, ...errorResponses(400, 401, 403, 404, 415) },
      },
    },
    async (request) => app.datasets.fromTraces(request.params.dataset_id, request.body, request.scope),
  )

  // GET /datasets/{dataset_id}/items/{item_id}
  app.get(
    '/datasets/:dataset_id/items/:item_id',
    {
      config: { access: 'read' },
      schema: {
        tags: ['datasets'],
        operationId: 'getDatasetItem',
        summary: 'One item, now or as of a time',
        description: 'Its current version (archived or not), or the version it had at `as_of`.',
        params: DatasetItemParams,
        querystring: GetDatasetItemQuery,
        response: { 200: Ref(DatasetItemSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      app.datasets.getItem(request.params.dataset_id, request.params.item_id, request.query.as_of, request.scope),
  )

  // GET /datasets/{dataset_id}/items/{item_id}/versions
  app.get(
    '/datasets/:dataset_id/items/:item_id/versions',
    {
      config: { access: 'read' },
      schema: {
        tags: ['datasets'],
        operationId: 'listDatasetItemVersions',
        summary: 'Every version of an item, oldest first',
        params: DatasetItemParams,
        response: { 200: ListDatasetItemVersionsResponse, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const items = await app.datasets.itemVersions(request.params.dataset_id, request.params.item_id, request.scope)
      return { total: items.length, items }
    },
  )

  // PUT /datasets/{dataset_id}/items/{item_id}
  app.put(
    '/datasets/:dataset_id/items/:item_id',
    {
      config: { access: 'write' },
      schema: {
        tags: ['datasets'],
        operationId: 'putDatasetItem',
        summary: 'Edit an item: a new version',
        description:
          'The item’s new content, as a new version (an archived item is active again); the versions before stay ' +
          'readable with `as_of`. The same content as now changes nothing. 409 when another edit came first.',
        params: DatasetItemParams,
        body: Ref(DatasetItemInputSchema),
        response: { 200: Ref(DatasetItemSchema), ...errorResponses(400, 401, 403, 404, 409, 415) },
      },
    },
    async (request) =>
      app.datasets.updateItem(request.params.dataset_id, request.params.item_id, request.body, request.scope),
  )

  // DELETE /datasets/{dataset_id}/items/{item_id}
  app.delete(
    '/datasets/:dataset_id/items/:item_id',
    {
      config: { access: 'write' },
      schema: {
        tags: ['datasets'],
        operationId: 'archiveDatasetItem',
        summary: 'Archive an item: a new version, left out of the dataset from now on',
        description:
          'Nothing is lost: every version stays, the dataset as of an earlier time still holds it, and a `PUT` ' +
          'makes it active again. Archiving an archived item changes nothing.',
        params: DatasetItemParams,
        response: { 200: Ref(DatasetItemSchema), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => app.datasets.archiveItem(request.params.dataset_id, request.params.item_id, request.scope),
  )
}

export default datasets
