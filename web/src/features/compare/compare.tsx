// Two traces side by side (/ui/compare?a=…&b=…): their figures and scores with the differences, the prompt and the
// response as a text diff, and their steps aligned (added, missing and changed steps marked), each aligned pair's
// input and output diffed when opened. Or one trace against what its dataset item expected
// (/ui/compare?a=…&dataset=…&item=…[&as_of=…]): the item's input and expected output diffed with its prompt and response.
import { useMemo, useState } from 'react'
import { Link } from 'wouter'
import { type AlignedRow, alignSteps, asText, type DiffPart, delta, diffText } from '../../../../schemas/align.js'
import type { Score, Trace } from '../../../../schemas/index.js'
import { useDatasetItem, useTrace } from '../../api/queries.js'
import { formatCost, formatCount, formatMs } from '../../ui/format.js'
import { ErrorBox, StatusBadge } from '../../ui/parts.js'
import { useSearchParam } from '../../ui/url.js'

/** Characters of a diff shown before the rest is folded away. */
const FOLD = 4000

function Diff({ a, b, label }: { a: string; b: string; label: string }) {
  const [open, setOpen] = useState(false)
  const parts = useMemo(() => diffText(a, b), [a, b])
  let shown = 0
  // Each part keyed by where it starts in the diff.
  const visible: (DiffPart & { at: number })[] = []
  for (const part of parts) {
    if (!open && shown >= FOLD) break
    const text = open ? part.text : part.text.slice(0, FOLD - shown)
    visible.push({ op: part.op, text, at: shown })
    shown += text.length
  }
  const folded = !open && parts.reduce((n, p) => n + p.text.length, 0) > FOLD
  return (
    <section aria-label={label}>
      <h3>{label}</h3>
      <pre className="block diff" data-testid={`diff-${label.toLowerCase()}`}>
        {visible.map((p) =>
          p.op === 'same' ? (
            <span key={p.at}>{p.text}</span>
          ) : p.op === 'add' ? (
            <ins key={p.at}>{p.text}</ins>
          ) : (
            <del key={p.at}>{p.text}</del>
          ),
        )}
      </pre>
      {folded && (
        <button type="button" onClick={() => setOpen(true)}>
          Show all
        </button>
      )}
    </section>
  )
}

const signed = (n: number | null, format: (n: number) => string) =>
  n === null ? '—' : n === 0 ? '±0' : `${n > 0 ? '+' : '−'}${format(Math.abs(n))}`

/** Each score name's mean, of one trace. */
function means(scores: Score[] | undefined): Map<string, number> {
  const sums = new Map<string, { sum: number; n: number }>()
  for (const s of scores ?? []) {
    if (s.step_index !== null) continue
    const e = sums.get(s.name) ?? { sum: 0, n: 0 }
    e.sum += s.value
    e.n++
    sums.set(s.name, e)
  }
  return new Map([...sums].map(([name, e]) => [name, e.sum / e.n]))
}

function Figures({ a, b }: { a: Trace; b: Trace }) {
  const rows: [string, number | null, number | null, (n: number) => string][] = [
    ['Latency', a.latency, b.latency, formatMs],
    ['Tokens', a.token_count, b.token_count, (n) => formatCount(n)],
    ['Cost', a.cost, b.cost, (n) => formatCost(n)],
  ]
  const sa = means(a.scores)
  const sb = means(b.scores)
  for (const name of new Set([...sa.keys(), ...sb.keys()])) {
    rows.push([`Score ${name}`, sa.get(name) ?? null, sb.get(name) ?? null, (n) => String(Math.round(n * 1000) / 1000)])
  }
  return (
    <table className="plain" aria-label="Figures">
      <thead>
        <tr>
          <th />
          <th>
            <Link href={`/traces/${encodeURIComponent(a.trace_id)}`}>A</Link> <StatusBadge status={a.status} />
          </th>
          <th>
            <Link href={`/traces/${encodeURIComponent(b.trace_id)}`}>B</Link> <StatusBadge status={b.status} />
          </th>
          <th>B − A</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([label, x, y, format]) => (
          <tr key={label}>
            <th>{label}</th>
            <td>{x === null ? '—' : format(x)}</td>
            <td>{y === null ? '—' : format(y)}</td>
            <td data-testid={`delta-${label}`}>{signed(delta(x, y), format)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

const KIND_LABEL: Record<AlignedRow['kind'], string> = {
  same: '',
  changed: 'changed',
  added: 'added in B',
  missing: 'missing in B',
}

function StepRow({ row }: { row: AlignedRow }) {
  const [open, setOpen] = useState(false)
  const name = row.a?.name ?? row.b?.name ?? ''
  return (
    <>
      <tr className={`step-${row.kind}`} data-kind={row.kind} onClick={() => setOpen(!open)}>
        <td>{KIND_LABEL[row.kind]}</td>
        <td>{row.a ? `${row.a.index}. ${name}` : ''}</td>
        <td>{row.b ? `${row.b.index}. ${name}` : ''}</td>
        <td>{formatMs(row.a?.latency ?? null)}</td>
        <td>{formatMs(row.b?.latency ?? null)}</td>
        <td>{signed(delta(row.a?.latency, row.b?.latency), formatMs)}</td>
        <td>{signed(delta(row.a?.token_count, row.b?.token_count), (n) => formatCount(n))}</td>
      </tr>
      {open && (
        <tr>
          <td colSpan={7}>
            <Diff label="Input" a={asText(row.a?.input)} b={asText(row.b?.input)} />
            <Diff label="Output" a={asText(row.a?.output)} b={asText(row.b?.output)} />
            {(row.a?.error || row.b?.error) && <Diff label="Error" a={row.a?.error ?? ''} b={row.b?.error ?? ''} />}
          </td>
        </tr>
      )}
    </>
  )
}

function Steps({ a, b }: { a: Trace; b: Trace }) {
  const rows = useMemo(() => alignSteps(a.steps, b.steps), [a, b])
  const count = (kind: AlignedRow['kind']) => rows.filter((r) => r.kind === kind).length
  return (
    <section aria-label="Steps">
      <h3>
        Steps{' '}
        <span className="muted">
          {count('same')} same · {count('changed')} changed · {count('added')} added · {count('missing')} missing
        </span>
      </h3>
      <table className="plain" data-testid="aligned-steps">
        <thead>
          <tr>
            <th />
            <th>A</th>
            <th>B</th>
            <th>A latency</th>
            <th>B latency</th>
            <th>Δ latency</th>
            <th>Δ tokens</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <StepRow key={`${row.a?.index ?? '-'}:${row.b?.index ?? '-'}`} row={row} />
          ))}
        </tbody>
      </table>
    </section>
  )
}

/** A trace (`?a=`) against what its dataset item (`?dataset=&item=`, in its version `?as_of=`) expected of it. */
function AgainstExpected({
  traceId,
  datasetId,
  itemId,
  asOf,
}: {
  traceId: string
  datasetId: string
  itemId: string
  asOf?: string
}) {
  const trace = useTrace(traceId)
  const item = useDatasetItem(datasetId, itemId, asOf)
  const error = trace.error ?? item.error
  return (
    <div className="page">
      <h1>Trace against the expected output</h1>
      <p className="muted">
        A: the item&apos;s expected output (version {item.data?.version ?? '…'} of{' '}
        <Link href={`/datasets/${encodeURIComponent(datasetId)}?item=${encodeURIComponent(itemId)}`}>the item</Link>
        ); B: the response of <Link href={`/traces/${encodeURIComponent(traceId)}`}>the trace</Link>{' '}
        {trace.data && <StatusBadge status={trace.data.status} />}
      </p>
      {error && <ErrorBox error={error} />}
      {trace.data && item.data && (
        <>
          <Diff label="Input" a={asText(item.data.input)} b={trace.data.prompt} />
          <Diff label="Response" a={asText(item.data.expected_output)} b={trace.data.response ?? ''} />
          <table className="plain" aria-label="Figures">
            <tbody>
              <tr>
                <th>Latency</th>
                <td>{formatMs(trace.data.latency)}</td>
              </tr>
              <tr>
                <th>Tokens</th>
                <td>{formatCount(trace.data.token_count)}</td>
              </tr>
              <tr>
                <th>Cost</th>
                <td>{trace.data.cost === null ? '—' : formatCost(trace.data.cost)}</td>
              </tr>
              {[...means(trace.data.scores)].map(([name, mean]) => (
                <tr key={name}>
                  <th>Score {name}</th>
                  <td>{Math.round(mean * 1000) / 1000}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  )
}

/** The comparison of the traces `?a=` and `?b=`, or of the trace `?a=` against its dataset item's expected output. */
export function TraceCompare() {
  const [aId] = useSearchParam('a')
  const [bId] = useSearchParam('b')
  const [datasetId] = useSearchParam('dataset')
  const [itemId] = useSearchParam('item')
  const [asOf] = useSearchParam('as_of')
  if (aId && datasetId && itemId) {
    return <AgainstExpected traceId={aId} datasetId={datasetId} itemId={itemId} asOf={asOf ?? undefined} />
  }
  return <TwoTraces aId={aId} bId={bId} />
}

function TwoTraces({ aId, bId }: { aId: string | null; bId: string | null }) {
  const a = useTrace(aId ?? '')
  const b = useTrace(bId ?? '')
  if (!aId || !bId) {
    return (
      <div className="page">
        <h1>Compare traces</h1>
        <p className="muted">
          Select two traces in the list and choose Compare, or open /ui/compare?a=…&amp;b=… (or
          ?a=…&amp;dataset=…&amp;item=… for a trace against its dataset item&apos;s expected output).
        </p>
      </div>
    )
  }
  const error = a.error ?? b.error
  return (
    <div className="page">
      <h1>Compare traces</h1>
      {error && <ErrorBox error={error} />}
      {a.data && b.data && (
        <>
          <Figures a={a.data} b={b.data} />
          <Diff label="Prompt" a={a.data.prompt} b={b.data.prompt} />
          <Diff label="Response" a={a.data.response ?? ''} b={b.data.response ?? ''} />
          <Steps a={a.data} b={b.data} />
        </>
      )}
    </div>
  )
}
