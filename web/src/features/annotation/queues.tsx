// Annotation queues: the list (each with its progress), and the walk through one, trace by trace, by keyboard —
// n: done, next · s: skip (given back, passed over) · p: the previous trace (this browser's history).
import { useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useRef, useState } from 'react'
import { Link } from 'wouter'
import type { AnnotationProgress } from '../../../../schemas/index.js'
import { keys, queueWalk, useAnnotationQueue, useAnnotationQueues } from '../../api/queries.js'
import { formatCount } from '../../ui/format.js'
import { ErrorBox } from '../../ui/parts.js'
import { TraceDetail } from '../traces/trace-detail.js'
import { useAnnotator } from './annotator.js'
import { AnnotatorPrompt, TableHead } from './scores-panel.js'

const queueHref = (id: string) => `/queues/${encodeURIComponent(id)}`

const progressText = (p: AnnotationProgress) => `${formatCount(p.done)} / ${formatCount(p.total)}`

export function Queues() {
  const queues = useAnnotationQueues()
  return (
    <div className="page">
      <div className="header">
        <h1>Annotation queues</h1>
      </div>
      {queues.isError && <ErrorBox error={queues.error} />}
      {queues.isPending && <p className="muted">Loading…</p>}
      {queues.data && queues.data.items.length === 0 && (
        <p className="muted">No queues yet: create one with POST /annotation-queues.</p>
      )}
      {queues.data && queues.data.items.length > 0 && (
        <table className="plain" aria-label="Queues">
          <TableHead columns={['Queue', 'Project', 'Scores', 'num:Done']} />
          <tbody>
            {queues.data.items.map((q) => (
              <tr key={q.queue_id} data-queue={q.name}>
                <td>
                  <Link href={queueHref(q.queue_id)}>{q.name}</Link>
                  {q.description && <div className="muted">{q.description}</div>}
                </td>
                <td>{q.project_id}</td>
                <td>{q.score_names.join(', ')}</td>
                <td className="num">{progressText(q.progress)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}

type Position = { kind: 'loading' } | { kind: 'trace'; trace_id: string } | { kind: 'end' }

export function QueueWalk({ id }: { id: string }) {
  const me = useAnnotator()
  const queue = useAnnotationQueue(id)
  const client = useQueryClient()
  const [position, setPosition] = useState<Position>({ kind: 'loading' })
  const [progress, setProgress] = useState<AnnotationProgress | null>(null)
  const [error, setError] = useState<unknown>(null)
  // The traces this person opened, in order, and those they skipped (passed over by `next`).
  const history = useRef<string[]>([])
  const skipped = useRef<string[]>([])
  const busy = useRef(false)

  const step = useCallback(
    async (work: () => Promise<void>) => {
      if (busy.current || me === null) return
      busy.current = true
      setError(null)
      try {
        await work()
      } catch (err) {
        setError(err)
      } finally {
        busy.current = false
      }
    },
    [me],
  )

  const advance = useCallback(async () => {
    if (me === null) return
    const item = await queueWalk.next(id, me, skipped.current)
    if (item === null) {
      setPosition({ kind: 'end' })
      const fresh = await client.fetchQuery({ queryKey: keys.queue(id), staleTime: 0 })
      setProgress((fresh as { progress: AnnotationProgress }).progress)
      return
    }
    setProgress(item.progress)
    if (history.current.at(-1) !== item.trace_id) history.current.push(item.trace_id)
    setPosition({ kind: 'trace', trace_id: item.trace_id })
  }, [id, me, client])

  useEffect(() => {
    if (me !== null) void step(advance)
  }, [me, step, advance])

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null
      if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return
      if (event.metaKey || event.ctrlKey || event.altKey || me === null) return
      const current = position.kind === 'trace' ? position.trace_id : null
      if (event.key === 'n' && current !== null) {
        event.preventDefault()
        void step(async () => {
          setProgress((await queueWalk.act(id, current, 'done', me)).progress)
          await advance()
        })
      } else if (event.key === 's' && current !== null) {
        event.preventDefault()
        void step(async () => {
          await queueWalk.act(id, current, 'release', me)
          skipped.current.push(current)
          await advance()
        })
      } else if (event.key === 'p') {
        event.preventDefault()
        const at = current === null ? history.current.length : history.current.lastIndexOf(current)
        const previous = history.current[at - 1]
        if (previous !== undefined) setPosition({ kind: 'trace', trace_id: previous })
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [position, me, id, step, advance])

  const shown = progress ?? queue.data?.progress ?? null
  const crumbs = (
    <>
      <Link href="/queues">Queues</Link> / {queue.data?.name ?? id}
    </>
  )
  return (
    <div className="page fill">
      <section className="queue-bar" aria-label="Queue">
        <strong>{queue.data?.name ?? 'Queue'}</strong>{' '}
        {shown && <span data-testid="queue-progress">{progressText(shown)} done</span>}
        <span className="spacer" />
        <span className="muted">
          <span className="kbd">n</span> done, next · <span className="kbd">s</span> skip ·{' '}
          <span className="kbd">p</span> previous
        </span>
      </section>
      {queue.isError && <ErrorBox error={queue.error} />}
      {error !== null && <ErrorBox error={error} />}
      {me === null && <AnnotatorPrompt />}
      {me !== null && position.kind === 'loading' && <p className="muted">Loading…</p>}
      {position.kind === 'end' && (
        <div className="panel" data-testid="queue-end">
          <h2>Nothing left to annotate</h2>
          <p className="muted">
            Every trace of this queue is done or held by someone else. <Link href="/queues">Back to the queues</Link>
          </p>
        </div>
      )}
      {position.kind === 'trace' && (
        <TraceDetail id={position.trace_id} scoreNames={queue.data?.score_names} crumbs={crumbs} />
      )}
    </div>
  )
}
