// A trace's scores, and the form a person scores it with: pick a score config (↑/↓), a value with a number key (or
// typed, for a number), a comment, Enter to save — without a reload. A selected step is scored instead of the trace.
// Saving again under the same name replaces the person's own score (useSaveScore).
import { useLayoutEffect, useState } from 'react'
import { Link } from 'wouter'
import type { Score, ScoreConfig, Trace } from '../../../../schemas/index.js'
import { useSaveScore, useScoreConfigs } from '../../api/queries.js'
import { formatTime } from '../../ui/format.js'
import { ErrorBox } from '../../ui/parts.js'
import { annotator, useAnnotator } from './annotator.js'
import { type KeyValue, keyHints, ownScore, scoreText, valueForKey } from './score-keys.js'

/** Asks the person's name once (kept in this browser). */
export function AnnotatorPrompt() {
  const [name, setName] = useState('')
  return (
    <form
      className="annotator-prompt"
      aria-label="Your name"
      onSubmit={(event) => {
        event.preventDefault()
        annotator.set(name)
      }}
    >
      <label>
        Your name, as the author of your scores{' '}
        <input value={name} onChange={(e) => setName(e.target.value)} name="annotator" autoComplete="name" />
      </label>{' '}
      <button type="submit" disabled={name.trim() === ''}>
        Save
      </button>
    </form>
  )
}

/** A table's header row: each column's title (a `num:` prefix right-aligns it). */
export function TableHead({ columns }: { columns: readonly string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c) =>
          c.startsWith('num:') ? (
            <th key={c} className="num">
              {c.slice(4)}
            </th>
          ) : (
            <th key={c}>{c}</th>
          ),
        )}
      </tr>
    </thead>
  )
}

function ScoreTable({ scores }: { scores: readonly Score[] }) {
  if (scores.length === 0) return <p className="muted">No scores yet.</p>
  return (
    <table className="plain" aria-label="Scores">
      <TableHead columns={['Name', 'Value', 'Step', 'Source', 'Author', 'Comment']} />
      <tbody>
        {scores.map((s) => (
          <tr key={s.score_id} data-score={s.name} title={formatTime(s.created_at)}>
            <td>{s.name}</td>
            <td className="num" data-value>
              {scoreText(s)}
            </td>
            <td>{s.step_index === null ? '—' : `#${s.step_index}`}</td>
            <td>{s.source}</td>
            <td data-author>
              {s.source === 'evaluator' && s.author !== null ? (
                <Link href={`/evaluators/named/${encodeURIComponent(s.author)}`} title="The evaluator that wrote it">
                  {s.author}
                </Link>
              ) : (
                (s.author ?? '—')
              )}
            </td>
            <td className={s.source === 'evaluator' ? 'reasoning' : 'muted'} data-comment>
              {s.comment ?? ''}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

const isTyping = (target: EventTarget | null) =>
  target instanceof HTMLElement && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)

export function ScoresPanel({
  trace,
  stepIndex,
  names,
}: {
  trace: Trace
  stepIndex: number | null
  /** Only these configs, in this order (a queue's); every config when absent. */
  names?: readonly string[]
}) {
  const configs = useScoreConfigs()
  const me = useAnnotator()
  const save = useSaveScore()
  const scores = trace.scores ?? []
  const all = configs.data?.items ?? []
  const shown: ScoreConfig[] = names
    ? names.map((n) => all.find((c) => c.name === n)).filter((c): c is ScoreConfig => c !== undefined)
    : all
  const [active, setActive] = useState(0)
  const config = shown[Math.min(active, shown.length - 1)] ?? null
  const own = config ? ownScore(scores, config.name, me, stepIndex) : null
  const [value, setValue] = useState<KeyValue | null>(null)
  const [comment, setComment] = useState(own?.comment ?? '')

  // A new trace, step or config starts from the person's own score of it, if any. Reset while rendering, not in an
  // effect: an effect runs after the page is painted, so a key pressed as a trace appears would be picked, then lost.
  const scoring = `${trace.trace_id}\u0000${stepIndex}\u0000${config?.name}\u0000${own?.score_id}`
  const [scored, setScored] = useState(scoring)
  if (scored !== scoring) {
    setScored(scoring)
    setValue(null)
    setComment(own?.comment ?? '')
  }

  const submit = () => {
    if (!config || value === null || me === null) return
    save.mutate(
      {
        score: {
          trace_id: trace.trace_id,
          step_index: stepIndex,
          name: config.name,
          value,
          comment: comment.trim() === '' ? null : comment,
          author: me,
        },
        replaces: own?.score_id ?? null,
      },
      { onSuccess: () => setValue(null) },
    )
  }

  // Re-bound at each render before the page is painted, so the key that follows a change sees it.
  useLayoutEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (isTyping(event.target) || event.metaKey || event.ctrlKey || event.altKey || !config) return
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault()
        const delta = event.key === 'ArrowDown' ? 1 : -1
        setActive((i) => (Math.min(i, shown.length - 1) + delta + shown.length) % shown.length)
        return
      }
      if (event.key === 'Enter' && value !== null) {
        event.preventDefault()
        submit()
        return
      }
      const picked = valueForKey(config, event.key)
      if (picked !== null) {
        event.preventDefault()
        setValue(picked)
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  })

  return (
    <section className="panel" aria-label="Scores of this trace">
      <div className="header">
        <h3 style={{ margin: 0 }}>Scores</h3>
        <span className="spacer" />
        {me !== null && (
          <span className="muted">
            as <strong data-testid="annotator">{me}</strong>{' '}
            <button type="button" className="link" onClick={() => annotator.set(null)}>
              (change)
            </button>
          </span>
        )}
      </div>
      <ScoreTable scores={scores} />
      {configs.isError && <ErrorBox error={configs.error} />}
      {me === null ? (
        <AnnotatorPrompt />
      ) : shown.length === 0 ? (
        <p className="muted">No score configs: create one (POST /score-configs) to score traces here.</p>
      ) : (
        <form
          className="score-form"
          aria-label="Give a score"
          onSubmit={(event) => {
            event.preventDefault()
            submit()
          }}
        >
          <div className="muted">
            Scoring {stepIndex === null ? 'the trace' : `step #${stepIndex}`} · ↑/↓ picks a score, a number key its
            value, Enter saves
          </div>
          <ul className="score-configs">
            {shown.map((c, i) => {
              const mine = ownScore(scores, c.name, me, stepIndex)
              return (
                <li key={c.name} aria-current={c === config ? 'true' : undefined} data-config={c.name}>
                  <button type="button" className="link" onClick={() => setActive(i)}>
                    {c.name}
                  </button>{' '}
                  <span className="muted">
                    {keyHints(c)
                      .map((h) => `${h.key}: ${String(h.value)}`)
                      .join(' · ')}
                    {mine ? ` — yours: ${scoreText(mine)}` : ''}
                  </span>
                </li>
              )
            })}
          </ul>
          {config && (
            <div className="score-entry">
              <strong>{config.name}</strong>{' '}
              {config.data_type === 'numeric' ? (
                <input
                  type="number"
                  aria-label="Value"
                  min={config.min ?? undefined}
                  max={config.max ?? undefined}
                  step="any"
                  value={typeof value === 'number' ? value : ''}
                  onChange={(e) => setValue(e.target.value === '' ? null : Number(e.target.value))}
                />
              ) : (
                <span data-testid="picked-value">{value === null ? '—' : String(value)}</span>
              )}
              <textarea
                aria-label="Comment"
                placeholder="Comment (optional)"
                value={comment}
                onChange={(e) => setComment(e.target.value)}
                rows={2}
              />
              <button type="submit" disabled={value === null || save.isPending}>
                {own ? 'Change' : 'Save'}
              </button>
            </div>
          )}
          {save.isError && <ErrorBox error={save.error} />}
        </form>
      )}
    </section>
  )
}
