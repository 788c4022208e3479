// loupe datasets list | create | items | add | import | export: a project's datasets from the command line — made,
// listed, read (now or as of a time), filled from stored traces (by id or by the filters of GET /traces), filled from a
// JSONL or CSV file, and written out as JSONL or CSV. A dataset is named by its dataset_id or its name.
import { readFile } from 'node:fs/promises'
import { type Command, Option } from 'commander'
import { DATASET_FORMATS, DATASET_LIMITS, type DatasetFormat, type DatasetItem } from '../../../schemas/index.js'
import type { CliContext } from '../context.js'
import { CliError } from '../errors.js'
import { formatTimestamp, oneLine } from '../format.js'
import { hasTraceFilter, integer, traceFilterQuery, withTraceFilters } from '../options.js'
import { streamOut } from './export.js'

/** A value of an item in one line: text as it is, any other JSON as JSON. */
const shown = (value: unknown) =>
  typeof value === 'string' ? value : value === null || value === undefined ? '-' : JSON.stringify(value)

/** A file's format: `--format`, else its extension (`.csv`: csv; anything else: JSONL). */
export const fileFormat = (path: string, format: DatasetFormat | undefined): DatasetFormat =>
  format ?? (/\.csv$/i.test(path) ? 'csv' : 'jsonl')

const formatOption = (what: string) =>
  new Option('-f, --format <format>', `${what} (default: from the file's extension, else jsonl)`).choices(
    DATASET_FORMATS,
  )

export function addDatasetsCommand(program: Command, cx: CliContext): void {
  const { out, paint, json, client, printList } = cx
  const datasets = program
    .command('datasets')
    .description('make datasets, fill them from traces or files, read and export them')

  // loupe datasets list
  datasets
    .command('list')
    .description('list datasets, name ascending, with their number of items')
    .option('-p, --project <project_id>', 'only this project')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (options, command: Command) => {
      const list = await client(command).datasets.list({ project_id: options.project })
      printList(
        options,
        list,
        [
          { header: 'NAME', value: (d) => d.name, style: () => 'bold' },
          { header: 'ITEMS', value: (d) => String(d.item_count), align: 'right' },
          { header: 'PROJECT', value: (d) => d.project_id, style: () => 'cyan' },
          { header: 'UPDATED (UTC)', value: (d) => formatTimestamp(d.updated_at) },
          { header: 'DATASET_ID', value: (d) => d.dataset_id, style: () => 'dim' },
          { header: 'DESCRIPTION', value: (d) => oneLine(d.description), flex: true },
        ],
        'No datasets yet: make one with `loupe datasets create <name> --project <project_id>`.\n',
      )
    })

  // loupe datasets create
  datasets
    .command('create')
    .description('make a dataset (its name unique in its project)')
    .argument('<name>')
    .option('-p, --project <project_id>', 'its project (a project key: its own, when left out)')
    .option('-d, --description <text>', 'what it holds')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (name: string, options, command: Command) => {
      const dataset = await client(command).datasets.create({
        name,
        project_id: options.project,
        description: options.description,
      })
      if (options.json) return json(dataset)
      out(
        `Created dataset ${paint('bold', dataset.name)} in ${dataset.project_id} (dataset_id ${dataset.dataset_id}).\n`,
      )
    })

  // loupe datasets items
  datasets
    .command('items')
    .description('list a dataset’s items, in the order they were added — now, or as it was at a time')
    .argument('<dataset>', 'its name or dataset_id')
    .option('--as-of <time>', 'the dataset as it was then (ISO 8601 or epoch): each item in the version it had')
    .option('--archived', 'also the archived items')
    .option('-n, --limit <n>', 'at most n items (1–1000)', integer('--limit', 1, 1000), 20)
    .option('--cursor <cursor>', 'the page after this one (printed below each page that has more)')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (name: string, options, command: Command) => {
      const loupe = client(command)
      const dataset = await loupe.datasets.find(name)
      const list = await loupe.datasets.items.list(dataset.dataset_id, {
        as_of: options.asOf,
        include_archived: options.archived ? true : undefined,
        limit: options.limit,
        cursor: options.cursor,
      })
      const more = list.next_cursor ? `; next page: --cursor ${list.next_cursor}` : ''
      const when = options.asOf ? `as of ${options.asOf}` : 'now'
      printList<DatasetItem>(
        options,
        list,
        [
          { header: 'ITEM_ID', value: (i) => i.dataset_item_id, style: () => 'dim' },
          { header: 'V', value: (i) => String(i.version), align: 'right' },
          { header: 'STATUS', value: (i) => i.status, style: (i) => (i.status === 'archived' ? 'dim' : undefined) },
          { header: 'INPUT', value: (i) => oneLine(shown(i.input), 60) },
          { header: 'EXPECTED', value: (i) => shown(i.expected_output), flex: true },
          { header: 'SOURCE', value: (i) => i.source_trace_id ?? '-', style: () => 'dim' },
        ],
        `${dataset.name} has no items ${when}.\n`,
        `${list.items.length} of ${list.total} item(s) of ${dataset.name} ${when}${more}\n`,
      )
    })

  // loupe datasets add
  withTraceFilters(
    datasets
      .command('add')
      .description(
        'add items made from stored traces — these trace ids, or every trace matching the filters (newest first) — ' +
          'input from each one’s prompt, expected output from its response',
      )
      .argument('<dataset>', 'its name or dataset_id')
      .argument('[trace_ids...]', `the traces (at most ${DATASET_LIMITS.batch})`),
  )
    .option(
      '-n, --limit <n>',
      `with filters: at most n traces (1–${DATASET_LIMITS.fromTraces}; default 1000)`,
      integer('--limit', 1, DATASET_LIMITS.fromTraces),
    )
    .option('--json', 'print the server’s answer as JSON')
    .action(async (name: string, traceIds: string[], options, command: Command) => {
      if (options.project !== undefined) {
        throw new CliError('datasets add takes traces of the dataset’s own project: leave out --project', 2)
      }
      const filtered = hasTraceFilter(options)
      if (traceIds.length > 0 === filtered) {
        throw new CliError('give trace ids or filters (e.g. --status failed --since 2026-11-21), not both', 2)
      }
      if (traceIds.length > DATASET_LIMITS.batch) {
        throw new CliError(`at most ${DATASET_LIMITS.batch} trace ids at once; use filters for more`, 2)
      }
      if (options.limit !== undefined && !filtered) throw new CliError('--limit goes with filters', 2)
      const loupe = client(command)
      const dataset = await loupe.datasets.find(name)
      const { project_id: _project, ...filter } = traceFilterQuery(options)
      const res = await loupe.datasets.items.fromTraces(
        dataset.dataset_id,
        filtered ? { filter, limit: options.limit } : { trace_ids: [...new Set(traceIds)] },
      )
      if (options.json) return json(res)
      out(
        `Added ${res.added} item(s) to ${paint('bold', dataset.name)}` +
          `${res.skipped > 0 ? ` (${res.skipped} trace(s) already in it, skipped)` : ''}.\n`,
      )
    })

  // loupe datasets import
  datasets
    .command('import')
    .description(
      'add the items of a JSONL file (one item a line) or a CSV file (header: input, expected_output, metadata, ' +
        'source_trace_id); every line is checked before any item is added',
    )
    .argument('<dataset>', 'its name or dataset_id')
    .argument('<file>', 'a .jsonl or .csv file')
    .addOption(formatOption('how the file is written'))
    .option('--json', 'print the server’s answer as JSON')
    .action(async (name: string, file: string, options, command: Command) => {
      let text: string
      try {
        text = await readFile(file, 'utf8')
      } catch (err) {
        throw new CliError(`cannot read ${file}: ${(err as Error).message}`, 2)
      }
      const loupe = client(command)
      const dataset = await loupe.datasets.find(name)
      const res = await loupe.datasets.items.import(dataset.dataset_id, fileFormat(file, options.format), text)
      if (options.json) return json(res)
      out(`Imported ${res.added} item(s) into ${paint('bold', dataset.name)}.\n`)
    })

  // loupe datasets export
  datasets
    .command('export')
    .description('write a dataset’s items as JSONL or CSV (what import takes back), streamed, to stdout or a file')
    .argument('<dataset>', 'its name or dataset_id')
    .addOption(formatOption('jsonl: one item a line; csv: one row an item'))
    .option('--as-of <time>', 'the dataset as it was then (ISO 8601 or epoch)')
    .option('-o, --output <file>', 'write to this file (refused when it exists) instead of stdout')
    .action(async (name: string, options, command: Command) => {
      const loupe = client(command)
      const dataset = await loupe.datasets.find(name)
      const format = options.output ? fileFormat(options.output, options.format) : (options.format ?? 'jsonl')
      const stream = await loupe.datasets.items.export(dataset.dataset_id, { format, as_of: options.asOf })
      await streamOut(stream, options.output, cx)
    })
}
