// Datasets (/ui/datasets): the list and a new one; a dataset (/ui/datasets/:id): its items, their export and import,
// and its experiments, any two or three of which open side by side (/ui/experiments?ids=…).
import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Link, useLocation } from 'wouter'
import { credential } from '../../api/client.js'
import { keys, useDataset, useDatasets, useDatasetWrites } from '../../api/queries.js'
import { formatCount, formatTime, formatValue } from '../../ui/format.js'
import { ErrorBox } from '../../ui/parts.js'

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

/** An export link: the API's own answer (a download sends no credential: open mode only, else use the API). */
const exportHref = (id: string, format: 'jsonl' | 'csv') =>
  `/datasets/${encodeURIComponent(id)}/items/export?format=${format}`

export function DatasetDetail({ id }: { id: string }) {
  const query = useDataset(id)
  const client = useQueryClient()
  const [, navigate] = useLocation()
  const [picked, setPicked] = useState<string[]>([])
  const [importError, setImportError] = useState<string | null>(null)
  if (query.isError) return <ErrorBox error={query.error} />
  if (!query.data) return <p className="muted">Loading…</p>
  const { dataset, items, experiments } = query.data
  const upload = async (file: File) => {
    setImportError(null)
    const token = credential.get()
    const res = await fetch(`/datasets/${encodeURIComponent(id)}/items/import`, {
      method: 'POST',
      headers: {
        'content-type': file.name.endsWith('.csv') ? 'text/csv' : 'application/x-ndjson',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: await file.text(),
    })
    if (!res.ok) setImportError(((await res.json()) as { message?: string }).message ?? res.statusText)
    void client.invalidateQueries({ queryKey: keys.dataset(id) })
  }
  return (
    <div className="page">
      <div className="header">
        <h1>{dataset.name}</h1>
        <span className="muted">
          {dataset.project_id} · {formatCount(dataset.item_count)} items
        </span>
        <span className="spacer" />
        <a href={exportHref(id, 'jsonl')}>Export JSONL</a> <a href={exportHref(id, 'csv')}>Export CSV</a>{' '}
        <label>
          Import{' '}
          <input
            type="file"
            accept=".jsonl,.ndjson,.csv"
            aria-label="Import items"
            onChange={(e) => {
              const file = e.target.files?.[0]
              if (file) void upload(file)
            }}
          />
        </label>
      </div>
      {importError && <div className="block error">{importError}</div>}
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
                <td className="muted">{formatTime(e.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section aria-label="Items">
        <h3>Items</h3>
        <table className="plain" data-testid="dataset-items">
          <thead>
            <tr>
              <th>Input</th>
              <th>Expected output</th>
              <th>Version</th>
              <th>Source</th>
            </tr>
          </thead>
          <tbody>
            {items.items.map((item) => (
              <tr key={item.dataset_item_id}>
                <td>{formatValue(item.input).slice(0, 200)}</td>
                <td>{formatValue(item.expected_output).slice(0, 200)}</td>
                <td>{item.version}</td>
                <td>
                  {item.source_trace_id && (
                    <Link href={`/traces/${encodeURIComponent(item.source_trace_id)}`}>trace</Link>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
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
