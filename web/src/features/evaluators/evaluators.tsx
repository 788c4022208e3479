// Evaluators: the rules with their figures (read again while the page is open), and one rule's page — its figures,
// its latest scores (each a link to its trace), its errors, its cost, and its backfills with their progress.
import { useState } from 'react'
import { Link, useLocation } from 'wouter'
import type { Evaluator, EvaluatorRun, EvaluatorStats } from '../../../../schemas/index.js'
import {
  useCancelEvaluatorRun,
  useDeleteEvaluator,
  useEvaluator,
  useEvaluatorRuns,
  useEvaluatorScores,
  useEvaluators,
  useStartEvaluatorRun,
} from '../../api/queries.js'
import { formatCost, formatCount, formatTime } from '../../ui/format.js'
import { ErrorBox } from '../../ui/parts.js'
import { scoreText } from '../annotation/score-keys.js'
import { TableHead } from '../annotation/scores-panel.js'
import { ruleHref } from './rule-editor.js'
import { KIND_LABELS, localToIso, runProgress } from './rule-form.js'

const percent = (rate: number) => `${Math.round(rate * 1000) / 10}%`

/** A rule's errors in short: how many, and the last one with its time. */
function ErrorsCell({ stats }: { stats: EvaluatorStats }) {
  if (stats.errors === 0) return <span>0</span>
  return (
    <span title={stats.last_error ?? undefined}>
      <span className="bad">{formatCount(stats.errors)}</span>
      {stats.last_error && (
        <div className="muted small" data-last-error>
          {stats.last_error.length > 80 ? `${stats.last_error.slice(0, 80)}…` : stats.last_error}
          {stats.last_error_at ? ` · ${formatTime(stats.last_error_at)}` : ''}
        </div>
      )}
    </span>
  )
}

export function Evaluators() {
  const rules = useEvaluators()
  return (
    <div className="page">
      <div className="header">
        <h1>Evaluators</h1>
        <span className="spacer" />
        <Link href="/evaluators/new" className="button primary">
          New evaluator
        </Link>
      </div>
      <p className="muted">
        Checks run on every trace they take as it arrives, each result a score (source <code>evaluator</code>, author
        the rule's name).
      </p>
      {rules.isError && <ErrorBox error={rules.error} />}
      {rules.isPending && <p className="muted">Loading…</p>}
      {rules.data && rules.data.items.length === 0 && <p className="muted">No evaluators yet.</p>}
      {rules.data && rules.data.items.length > 0 && (
        <table className="plain" aria-label="Evaluators">
          <TableHead
            columns={[
              'Name',
              'Kind',
              'Score',
              'Project',
              'Enabled',
              'num:Sample',
              'num:Evaluated',
              'Errors',
              'num:Pending',
              'num:Judge cost',
            ]}
          />
          <tbody>
            {rules.data.items.map((r) => (
              <tr key={r.evaluator_id} data-evaluator={r.name}>
                <td>
                  <Link href={ruleHref(r.evaluator_id)}>{r.name}</Link>
                </td>
                <td>{KIND_LABELS[r.kind]}</td>
                <td>{r.score_name}</td>
                <td>{r.project_id ?? <span className="muted">every project</span>}</td>
                <td>{r.enabled ? 'yes' : <span className="muted">no</span>}</td>
                <td className="num">{percent(r.sample_rate)}</td>
                <td className="num" data-evaluated>
                  {formatCount(r.stats.evaluated)}
                </td>
                <td data-errors>
                  <ErrorsCell stats={r.stats} />
                </td>
                <td className="num" data-pending>
                  {formatCount(r.stats.pending)}
                </td>
                <td className="num">{formatCost(r.stats.judge_cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}

/** A bar of a run's progress, with its figures; an unfinished count is said to be one. */
export function RunProgressBar({ run }: { run: EvaluatorRun }) {
  const { share, text } = runProgress(run)
  return (
    <div className="progress" data-run-progress>
      <div
        className={`progress-track ${run.status}`}
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={run.enumerated ? run.total : undefined}
        aria-valuenow={run.done}
        aria-label="Traces evaluated"
      >
        <div className="progress-fill" style={{ width: `${(share * 100).toFixed(1)}%` }} />
      </div>
      <span className="num">{text}</span>
    </div>
  )
}

function StartRun({ id }: { id: string }) {
  const [since, setSince] = useState('')
  const [until, setUntil] = useState('')
  const [invalid, setInvalid] = useState<string | null>(null)
  const start = useStartEvaluatorRun(id)
  const submit = () => {
    const from = localToIso(since)
    const to = localToIso(until)
    if (!from.ok || !to.ok) {
      setInvalid(!from.ok ? `since: ${from.error}` : !to.ok ? `until: ${to.error}` : null)
      return
    }
    setInvalid(null)
    start.mutate({
      ...(from.value === undefined ? {} : { since: from.value }),
      ...(to.value === undefined ? {} : { until: to.value }),
    })
  }
  return (
    <form
      className="inline"
      aria-label="Run on past traces"
      onSubmit={(e) => {
        e.preventDefault()
        submit()
      }}
    >
      <label>
        Since <input type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} />
      </label>{' '}
      <label>
        Until <input type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
      </label>{' '}
      <button type="submit" disabled={start.isPending}>
        Run on past traces
      </button>
      <span className="muted"> (empty: every trace; a trace it has scored already is skipped)</span>
      {invalid !== null && <ErrorBox error={invalid} />}
      {start.isError && <ErrorBox error={start.error} />}
    </form>
  )
}

function Runs({ id }: { id: string }) {
  const runs = useEvaluatorRuns(id)
  const cancel = useCancelEvaluatorRun(id)
  return (
    <section className="panel" aria-label="Backfills">
      <h2>Backfills</h2>
      <StartRun id={id} />
      {runs.isError && <ErrorBox error={runs.error} />}
      {cancel.isError && <ErrorBox error={cancel.error} />}
      {runs.data && runs.data.items.length === 0 && <p className="muted">No backfill yet.</p>}
      {runs.data && runs.data.items.length > 0 && (
        <table className="plain" aria-label="Runs">
          <TableHead columns={['Started', 'Traces from', 'Status', 'Progress', 'num:Errors', 'num:Cost', '']} />
          <tbody>
            {runs.data.items.map((r) => (
              <tr key={r.run_id} data-run={r.run_id} data-status={r.status}>
                <td style={{ whiteSpace: 'nowrap' }}>{formatTime(r.created_at)}</td>
                <td className="muted">
                  {r.since ? formatTime(r.since) : 'the first'} – {r.until ? formatTime(r.until) : 'now'}
                </td>
                <td title={r.last_error ?? undefined}>
                  {r.status}
                  {r.finished_at && <div className="muted small">{formatTime(r.finished_at)}</div>}
                </td>
                <td style={{ minWidth: 220 }}>
                  <RunProgressBar run={r} />
                </td>
                <td className="num">{formatCount(r.errors)}</td>
                <td className="num">{formatCost(r.cost)}</td>
                <td>
                  {r.status === 'running' && (
                    <button
                      type="button"
                      className="danger"
                      onClick={() => cancel.mutate(r.run_id)}
                      disabled={cancel.isPending}
                    >
                      Cancel
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}

function RecentScores({ rule }: { rule: Evaluator }) {
  const scores = useEvaluatorScores(rule.name, rule.score_name)
  return (
    <section className="panel" aria-label="Recent scores">
      <h2>Recent scores {scores.data && <span className="muted">({formatCount(scores.data.total)} in all)</span>}</h2>
      {scores.isError && <ErrorBox error={scores.error} />}
      {scores.data && scores.data.items.length === 0 && <p className="muted">No score yet.</p>}
      {scores.data && scores.data.items.length > 0 && (
        <table className="plain" aria-label="Scores">
          <TableHead columns={['Time', 'Trace', 'num:Value', 'Reasoning']} />
          <tbody>
            {scores.data.items.map((s) => (
              <tr key={s.score_id} data-score-trace={s.trace_id ?? ''}>
                <td style={{ whiteSpace: 'nowrap' }}>{formatTime(s.created_at)}</td>
                <td>
                  {s.trace_id === null ? (
                    '—'
                  ) : (
                    <Link href={`/traces/${encodeURIComponent(s.trace_id)}`} className="mono">
                      {s.trace_id}
                    </Link>
                  )}
                </td>
                <td className="num" data-value>
                  {scoreText(s)}
                </td>
                <td className="reasoning">{s.comment ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}

/** A rule's figures, as the cards of its page show them. */
const figuresOf = (stats: EvaluatorStats): { label: string; value: string; testId?: string }[] => [
  { label: 'Evaluated', value: formatCount(stats.evaluated), testId: 'evaluated' },
  { label: 'Errors', value: formatCount(stats.errors), testId: 'errors' },
  { label: 'Pending', value: formatCount(stats.pending), testId: 'pending' },
  { label: 'Judge cost', value: formatCost(stats.judge_cost), testId: 'judge-cost' },
  {
    label: 'Judge tokens',
    value: `${formatCount(stats.judge_tokens.prompt)} in · ${formatCount(stats.judge_tokens.completion)} out`,
  },
  { label: 'Last evaluated', value: stats.last_evaluated_at ? formatTime(stats.last_evaluated_at) : '—' },
]

export function EvaluatorPage({ id }: { id: string }) {
  const query = useEvaluator(id)
  const remove = useDeleteEvaluator()
  const [, navigate] = useLocation()
  const rule = query.data
  return (
    <div className="page">
      <div className="muted">
        <Link href="/evaluators">Evaluators</Link> / {rule?.name ?? id}
      </div>
      {query.isError && <ErrorBox error={query.error} />}
      {query.isPending && <p className="muted">Loading…</p>}
      {rule && (
        <>
          <div className="header">
            <h1>{rule.name}</h1>
            <span className="muted">
              {KIND_LABELS[rule.kind]} → <strong>{rule.score_name}</strong> · {rule.project_id ?? 'every project'} ·
              sample {percent(rule.sample_rate)} · {rule.enabled ? 'enabled' : 'disabled'}
            </span>
            <span className="spacer" />
            <Link href={`${ruleHref(id)}/edit`} className="button">
              Edit
            </Link>
            <button
              type="button"
              className="danger"
              disabled={remove.isPending}
              onClick={() => {
                if (window.confirm(`Delete ${rule.name}? The scores it wrote stay.`)) {
                  remove.mutate(id, { onSuccess: () => navigate('/evaluators') })
                }
              }}
            >
              Delete
            </button>
          </div>
          {remove.isError && <ErrorBox error={remove.error} />}
          <section className="cards" aria-label="Figures">
            {figuresOf(rule.stats).map((f) => (
              <div className="card" key={f.label}>
                <div className="label">{f.label}</div>
                <div className="value" data-testid={f.testId}>
                  {f.value}
                </div>
              </div>
            ))}
          </section>
          {rule.stats.last_error && (
            <section className="panel" aria-label="Last error">
              <h2>Last error</h2>
              <div className="error-box" data-testid="last-error">
                {rule.stats.last_error}
              </div>
              {rule.stats.last_error_at && <p className="muted">{formatTime(rule.stats.last_error_at)}</p>}
            </section>
          )}
          <Runs id={id} />
          <RecentScores rule={rule} />
        </>
      )}
    </div>
  )
}

/** A rule named by its name (a score's author): its page, once the list says which rule that is. */
export function EvaluatorByName({ name }: { name: string }) {
  const rules = useEvaluators()
  if (rules.isError) return <ErrorBox error={rules.error} />
  if (!rules.data) return <p className="muted">Loading…</p>
  const rule = rules.data.items.find((r) => r.name === name)
  if (!rule) {
    return (
      <div className="page">
        <p className="muted">
          No evaluator is named {name} now (it may have been deleted; its scores stay).{' '}
          <Link href="/evaluators">Every evaluator</Link>
        </p>
      </div>
    )
  }
  return <EvaluatorPage id={rule.evaluator_id} />
}
