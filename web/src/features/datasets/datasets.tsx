// Datasets (/ui/datasets): the list and a new one; a dataset (/ui/datasets/:id): its items — edited (each edit a new
// version), archived and brought back, each one's history —, the dataset read as it was at a time (`?as_of=`), its
// export and import, and its experiments, any two or three of which open side by side (/ui/experiments?ids=…).
import { useState } from 'react'
import { Link, useLocation } from 'wouter'
import type { DatasetItem, DatasetItemInput } from '../../../../schemas/index.js'
import { download } from '../../api/client.js'
import { useDataset, useDatasets, useDatasetWrites, useItemVersions } from '../../api/queries.js'
import { formatCount, formatTime, formatValue } from '../../ui/format.js'
import { ErrorBox } from '../../ui/parts.js'
import { useSearchParam } from '../../ui/url.js'
import { editable, parseEditable } from './item-content.js'

export function Datasets() {
  const list = useDatasets()
  const { create } = useDatasetWrites()
  const [name, setName] = useState('')
  const [project, setProject] = useState('')
  return (
    <div className="page">
      <div className="header">
        <h1>Datasets</h1>
      </div>
      <form
        className="panel"
        aria-label="New dataset"
        onSubmit={(event) => {
          event.preventDefault()
          create.mutate({ name, project_id: project })
        }}
      >
        <input aria-label="Dataset name" placeholder="name" value={name} onChange={(e) => setName(e.target.value)} />{' '}
        <input
          aria-label="Project"
          placeholder="project_id"
          value={project}
          onChange={(e) => setProject(e.target.value)}
        />{' '}
        <button type="submit" className="primary">
          Create
        </button>
        {create.isError && <ErrorBox error={create.error} />}
      </form>
      {list.isError && <ErrorBox error={list.error} />}
      <table className="plain" aria-label="Datasets">
        <thead>
          <tr>
            <th>Name</th>
            <th>Project</th>
            <th>Items</th>
            <th>Updated</th>
          </tr>
        </thead>
        <tbody>
          {list.data?.items.map((d) => (
            <tr key={d.dataset_id} data-dataset={d.name}>
              <td>
                <Link href={`/datasets/${encodeURIComponent(d.dataset_id)}`}>{d.name}</Link>
              </td>
              <td>{d.project_id}</td>
              <td>{formatCount(d.item_count)}</td>
              <td>{formatTime(d.updated_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** An item's content, for a PUT: what it holds now, with the changes given. */
const contentOf = (item: DatasetItem, change: Partial<DatasetItemInput> = {}): DatasetItemInput => ({
  input: item.input,
  expected_output: item.expected_output,
  metadata: item.metadata,
  source_trace_id: item.source_trace_id,
  ...change,
})

/** The link to a trace beside what its dataset item expected of it. */
export const expectedCompareHref = (
  traceId: string,
  item: Pick<DatasetItem, 'dataset_id' | 'dataset_item_id'>,
  asOf?: string | null,
) =>
  `/compare?a=${encodeURIComponent(traceId)}&dataset=${encodeURIComponent(item.dataset_id)}&item=${encodeURIComponent(
    item.dataset_item_id,
  )}${asOf ? `&as_of=${encodeURIComponent(asOf)}` : ''}`

function ItemEditor({ item, onDone }: { item: DatasetItem; onDone: () => void }) {
  const { editItem } = useDatasetWrites()
  const [input, setInput] = useState(editable(item.input))
  const [expected, setExpected] = useState(editable(item.expected_output))
  return (
    <form
      aria-label="Edit item"
      onSubmit={(event) => {
        event.preventDefault()
        // A box left as it was keeps its value as it was (a number stays a number).
        const content = contentOf(item, {
          input: input === editable(item.input) ? item.input : parseEditable(input),
          expected_output:
            expected === editable(item.expected_output)
              ? item.expected_output
              : expected.trim() === ''
                ? null
                : parseEditable(expected),
        })
        editItem.mutate({ item, content }, { onSuccess: onDone })
      }}
    >
      <label>
        Input
        <textarea aria-label="Item input" rows={3} value={input} onChange={(e) => setInput(e.target.value)} />
      </label>
      <label>
        Expected output
        <textarea
          aria-label="Item expected output"
          rows={3}
          value={expected}
          onChange={(e) => setExpected(e.target.value)}
        />
      </label>
      <button type="submit" className="primary" disabled={editItem.isPending}>
        Save as a new version
      </button>{' '}
      <button type="button" onClick={onDone}>
        Cancel
      </button>
      {editItem.isError && <ErrorBox error={editItem.error} />}
    </form>
  )
}

/** An item's history: every version, oldest first; each can be the time the dataset is read as of. */
function ItemVersions({
  datasetId,
  itemId,
  onAsOf,
}: {
  datasetId: string
  itemId: string
  onAsOf: (at: string) => void
}) {
  const versions = useItemVersions(datasetId, itemId)
  return (
    <section aria-label="Versions">
      <h3>
        Versions of item <code>{itemId}</code>
      </h3>
      {versions.isError && <ErrorBox error={versions.error} />}
      <table className="plain" data-testid="item-versions">
        <thead>
          <tr>
            <th>Version</th>
            <th>Made</th>
            <th>Status</th>
            <th>Input</th>
            <th>Expected output</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {versions.data?.items.map((v, i, all) => {
            const before = all[i - 1]
            const changed = (field: 'input' | 'expected_output') =>
              before !== undefined && JSON.stringify(before[field]) !== JSON.stringify(v[field]) ? 'changed' : undefined
            return (
              <tr key={v.version} data-version={v.version}>
                <td>{v.version}</td>
                <td>{formatTime(v.updated_at)}</td>
                <td>{v.status}</td>
                <td className={changed('input')}>{formatValue(v.input).slice(0, 200)}</td>
                <td className={changed('expected_output')}>{formatValue(v.expected_output).slice(0, 200)}</td>
                <td>
                  <button type="button" onClick={() => onAsOf(v.updated_at)}>
                    Dataset as of then
                  </button>
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </section>
  )
}

/** The time the dataset is read as of: an ISO 8601 time typed in, or now. */
function AsOfForm({ asOf, onChange }: { asOf: string | null; onChange: (at: string | null) => void }) {
  const [text, setText] = useState(asOf ?? '')
  return (
    <form
      aria-label="As of"
      onSubmit={(event) => {
        event.preventDefault()
        onChange(text.trim() === '' ? null : text.trim())
      }}
    >
      <input
        aria-label="As of"
        placeholder="as of (ISO 8601, e.g. 2026-11-28T10:00:00Z)"
        value={text}
        onChange={(e) => setText(e.target.value)}
      />{' '}
      <button type="submit">Read as of</button>{' '}
      <button
        type="button"
        disabled={asOf === null}
        onClick={() => {
          setText('')
          onChange(null)
        }}
      >
        Now
      </button>
    </form>
  )
}

function ItemRow({
  item,
  readOnly,
  asOf,
  onHistory,
}: {
  item: DatasetItem
  readOnly: boolean
  asOf: string | null
  onHistory: () => void
}) {
  const { editItem, archiveItem } = useDatasetWrites()
  const [editing, setEditing] = useState(false)
  const archived = item.status === 'archived'
  const error = editItem.error ?? archiveItem.error
  return (
    <>
      <tr data-item={item.dataset_item_id} data-status={item.status} className={archived ? 'muted' : undefined}>
        <td>{formatValue(item.input).slice(0, 200)}</td>
        <td>{formatValue(item.expected_output).slice(0, 200)}</td>
        <td>{item.version}</td>
        <td>{item.status}</td>
        <td>
          {item.source_trace_id && (
            <>
              <Link href={`/traces/${encodeURIComponent(item.source_trace_id)}`}>trace</Link>{' '}
              <Link href={expectedCompareHref(item.source_trace_id, item, asOf)}>vs expected</Link>
            </>
          )}
        </td>
        <td>
          <button type="button" onClick={onHistory}>
            History
          </button>
          {!readOnly && (
            <>
              {' '}
              <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
                Edit
              </button>{' '}
              {archived ? (
                <button
                  type="button"
                  disabled={editItem.isPending}
                  onClick={() => editItem.mutate({ item, content: contentOf(item) })}
                >
                  Unarchive
                </button>
              ) : (
                <button type="button" disabled={archiveItem.isPending} onClick={() => archiveItem.mutate(item)}>
                  Archive
                </button>
              )}
            </>
          )}
          {error && <ErrorBox error={error} />}
        </td>
      </tr>
      {editing && (
        <tr>
          <td colSpan={6}>
            <ItemEditor item={item} onDone={() => setEditing(false)} />
          </td>
        </tr>
      )}
    </>
  )
}

export function DatasetDetail({ id }: { id: string }) {
  const [asOf, setAsOf] = useSearchParam('as_of')
  const [archivedParam, setArchived] = useSearchParam('archived')
  const [itemId, setItemId] = useSearchParam('item')
  const archived = archivedParam === '1'
  const query = useDataset(id, { asOf: asOf ?? undefined, archived })
  const { importItems } = useDatasetWrites()
  const [, navigate] = useLocation()
  const [picked, setPicked] = useState<string[]>([])
  const [exportError, setExportError] = useState<unknown>(null)
  if (!query.data) return query.isError ? <ErrorBox error={query.error} /> : <p className="muted">Loading…</p>
  const { dataset, items, experiments } = query.data
  const exportAs = (format: 'jsonl' | 'csv') => {
    setExportError(null)
    download(
      `/datasets/${encodeURIComponent(id)}/items/export`,
      { format, as_of: asOf },
      `${dataset.name}.${format}`,
    ).catch(setExportError)
  }
  return (
    <div className="page">
      <div className="header">
        <h1>{dataset.name}</h1>
        <span className="muted">
          {dataset.project_id} · {formatCount(dataset.item_count)} items
        </span>
        <span className="spacer" />
        <button type="button" onClick={() => exportAs('jsonl')}>
          Export JSONL
        </button>{' '}
        <button type="button" onClick={() => exportAs('csv')}>
          Export CSV
        </button>{' '}
        <label>
          Import{' '}
          <input
            type="file"
            accept=".jsonl,.ndjson,.csv"
            aria-label="Import items"
            onChange={(e) => {
              const file = e.target.files?.[0]
              if (file) importItems.mutate({ datasetId: id, file })
              e.target.value = ''
            }}
          />
        </label>
        {importItems.data && (
          <span className="muted" data-testid="imported">
            {importItems.data.added} imported
          </span>
        )}
      </div>
      {query.isError && <ErrorBox error={query.error} />}
      {importItems.isError && <ErrorBox error={importItems.error} />}
      {exportError !== null && <ErrorBox error={exportError} />}
      <section aria-label="Experiments">
        <h3>
          Experiments{' '}
          <button
            type="button"
            disabled={picked.length < 1 || picked.length > 3}
            onClick={() => navigate(`/experiments?ids=${picked.map(encodeURIComponent).join(',')}`)}
          >
            {picked.length > 1 ? 'Compare' : 'Open'}
          </button>
        </h3>
        <table className="plain">
          <tbody>
            {experiments.items.map((e) => (
              <tr key={e.experiment_id} data-experiment={e.name}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Pick ${e.name}`}
                    checked={picked.includes(e.experiment_id)}
                    onChange={() =>
                      setPicked((now) =>
                        now.includes(e.experiment_id)
                          ? now.filter((x) => x !== e.experiment_id)
                          : [...now, e.experiment_id],
                      )
                    }
                  />
                </td>
                <td>
                  <Link href={`/experiments?ids=${encodeURIComponent(e.experiment_id)}`}>{e.name}</Link>
                </td>
                <td className="muted">
                  {formatTime(e.created_at)} · ran on the dataset as of{' '}
                  <button type="button" className="link" onClick={() => setAsOf(e.as_of)}>
                    {formatTime(e.as_of)}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section aria-label="Items">
        <h3>
          Items{' '}
          <span className="muted" data-testid="items-shown">
            {asOf ? `as it was at ${asOf}` : 'now'} · {formatCount(items.total)}
          </span>
        </h3>
        <AsOfForm key={asOf ?? ''} asOf={asOf} onChange={setAsOf} />
        <label>
          <input type="checkbox" checked={archived} onChange={(e) => setArchived(e.target.checked ? '1' : null)} /> Show
          archived
        </label>
        <table className="plain" data-testid="dataset-items">
          <thead>
            <tr>
              <th>Input</th>
              <th>Expected output</th>
              <th>Version</th>
              <th>Status</th>
              <th>Source</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.items.map((item) => (
              <ItemRow
                key={`${item.dataset_item_id}:${item.version}`}
                item={item}
                readOnly={asOf !== null}
                asOf={asOf}
                onHistory={() => setItemId(item.dataset_item_id)}
              />
            ))}
          </tbody>
        </table>
      </section>
      {itemId && <ItemVersions datasetId={id} itemId={itemId} onAsOf={setAsOf} />}
    </div>
  )
}

/** The selection of the trace list added to a dataset: pick one, add. */
export function AddToDataset({ traceIds }: { traceIds: string[] }) {
  const list = useDatasets()
  const { fromTraces } = useDatasetWrites()
  const [target, setTarget] = useState('')
  return (
    <>
      <select aria-label="Dataset" value={target} onChange={(e) => setTarget(e.target.value)}>
        <option value="">Add to dataset…</option>
        {list.data?.items.map((d) => (
          <option key={d.dataset_id} value={d.dataset_id}>
            {d.name}
          </option>
        ))}
      </select>
      <button
        type="button"
        disabled={target === '' || fromTraces.isPending}
        onClick={() => fromTraces.mutate({ datasetId: target, traceIds })}
      >
        Add
      </button>
      {fromTraces.data && (
        <span className="muted" data-testid="added-to-dataset">
          {fromTraces.data.added} added
        </span>
      )}
    </>
  )
}
