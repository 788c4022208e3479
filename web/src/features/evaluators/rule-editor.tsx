// Creating or editing an evaluator rule: its kind (an llm_judge from a shipped template), the kind's settings, the
// traces it takes (the trace list's filters, a project, a sample), and a dry run on one trace before it is saved.
import { cloneElement, type ReactElement, useId, useState } from 'react'
import { Link, useLocation } from 'wouter'
import type { EvaluatedField, Evaluator, EvaluatorKind, TraceStatus } from '../../../../schemas/index.js'
import {
  useEvaluator,
  useJudgeTemplates,
  useLatestTraces,
  useProjects,
  useSaveEvaluator,
  useTestEvaluator,
} from '../../api/queries.js'
import { formatTime } from '../../ui/format.js'
import { ErrorBox, StatusBadge } from '../../ui/parts.js'
import { ProjectOptions } from '../../ui/project-options.js'
import { scoreText } from '../annotation/score-keys.js'
import { ENVIRONMENTS, STATUS_LABELS } from '../traces/filters.js'
import { FILTER_FIELDS } from '../traces/trace-filters.js'
import {
  applyTemplate,
  type ConfigForm,
  draftToInput,
  draftToTry,
  EVALUATOR_KIND_LIST,
  FIELD_LABELS,
  hasField,
  KIND_LABELS,
  newDraft,
  PII_LABELS,
  type PiiDetector,
  RULE_FILTER_KEYS,
  type RuleDraft,
  type RuleFilterKey,
  ruleToDraft,
} from './rule-form.js'

export const ruleHref = (id: string) => `/evaluators/${encodeURIComponent(id)}`

function Field({ label, children, wide }: { label: string; children: ReactElement<{ id?: string }>; wide?: boolean }) {
  // The label names its control by id: wrapped, a select's options would be read as part of its name.
  const id = useId()
  return (
    <div className={`field${wide ? ' wide' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, { id })}
    </div>
  )
}

/** The settings of one kind. */
function ConfigFields({
  kind,
  config,
  set,
}: {
  kind: EvaluatorKind
  config: ConfigForm
  set: (patch: Partial<ConfigForm>) => void
}) {
  return (
    <fieldset className="form-grid" aria-label="Settings">
      {hasField(kind) && (
        <Field label="Text checked">
          <select value={config.field} onChange={(e) => set({ field: e.target.value as EvaluatedField })}>
            {Object.entries(FIELD_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
      )}
      {kind === 'regex' && (
        <>
          <Field label="Pattern" wide>
            <input value={config.pattern} onChange={(e) => set({ pattern: e.target.value })} className="mono" />
          </Field>
          <Field label="Flags">
            <input value={config.flags} onChange={(e) => set({ flags: e.target.value })} size={4} placeholder="imsu" />
          </Field>
          <Field label="Passes when the text">
            <select value={config.expect} onChange={(e) => set({ expect: e.target.value as ConfigForm['expect'] })}>
              <option value="match">matches</option>
              <option value="no_match">does not match</option>
            </select>
          </Field>
        </>
      )}
      {kind === 'contains' && (
        <>
          <Field label="Words (one a line)" wide>
            <textarea rows={4} value={config.words} onChange={(e) => set({ words: e.target.value })} />
          </Field>
          <Field label="Passes when">
            <select value={config.mode} onChange={(e) => set({ mode: e.target.value as ConfigForm['mode'] })}>
              <option value="any">any word occurs</option>
              <option value="all">every word occurs</option>
              <option value="none">no word occurs</option>
            </select>
          </Field>
          <label className="check">
            <input
              type="checkbox"
              checked={config.case_sensitive}
              onChange={(e) => set({ case_sensitive: e.target.checked })}
            />{' '}
            Case sensitive
          </label>
        </>
      )}
      {kind === 'json' && <p className="muted">Passes when the text parses as JSON.</p>}
      {kind === 'json_schema' && (
        <Field label="JSON Schema the parsed text must meet" wide>
          <textarea rows={8} className="mono" value={config.schema} onChange={(e) => set({ schema: e.target.value })} />
        </Field>
      )}
      {kind === 'length' && (
        <>
          <Field label="At least (characters)">
            <input type="number" min={0} step={1} value={config.min} onChange={(e) => set({ min: e.target.value })} />
          </Field>
          <Field label="At most (characters)">
            <input type="number" min={0} step={1} value={config.max} onChange={(e) => set({ max: e.target.value })} />
          </Field>
        </>
      )}
      {kind === 'latency' && (
        <Field label="Passes at most (ms)">
          <input
            type="number"
            min={0}
            step="any"
            value={config.max_ms}
            onChange={(e) => set({ max_ms: e.target.value })}
          />
        </Field>
      )}
      {kind === 'cost' && (
        <Field label="Passes at most ($)">
          <input
            type="number"
            min={0}
            step="any"
            value={config.max_usd}
            onChange={(e) => set({ max_usd: e.target.value })}
          />
        </Field>
      )}
      {kind === 'pii' && (
        <fieldset className="checks">
          <legend>Looks for (none ticked: all) — passes when none is found</legend>
          {Object.entries(PII_LABELS).map(([value, label]) => (
            <label key={value} className="check">
              <input
                type="checkbox"
                checked={config.detectors.includes(value as PiiDetector)}
                onChange={(e) =>
                  set({
                    detectors: e.target.checked
                      ? [...config.detectors, value as PiiDetector]
                      : config.detectors.filter((d) => d !== value),
                  })
                }
              />{' '}
              {label}
            </label>
          ))}
        </fieldset>
      )}
      {kind === 'llm_judge' && (
        <>
          <Field label="What the judge is asked" wide>
            <textarea
              rows={10}
              className="mono"
              value={config.template}
              onChange={(e) => set({ template: e.target.value })}
            />
          </Field>
          <p className="muted wide">
            Filled in: <code>{'{{prompt}}'}</code>, <code>{'{{response}}'}</code>, <code>{'{{steps}}'}</code>,{' '}
            <code>{'{{metadata.<key>}}'}</code>, <code>{'{{expected}}'}</code>. The judge answers a score and its
            reasoning, which becomes the score's comment.
          </p>
          <Field label="Model (default: the server's)">
            <input value={config.model} onChange={(e) => set({ model: e.target.value })} />
          </Field>
          <Field label="Base URL (default: the server's)">
            <input value={config.base_url} onChange={(e) => set({ base_url: e.target.value })} placeholder="https://" />
          </Field>
        </>
      )}
    </fieldset>
  )
}

/** The shipped judge templates: one click starts the rule from its text. */
function TemplatePicker({ onPick }: { onPick: (id: string) => void }) {
  const templates = useJudgeTemplates()
  if (templates.isError) return <ErrorBox error={templates.error} />
  return (
    <fieldset className="templates" aria-label="Judge templates">
      <span className="muted">Start from a template:</span>
      {templates.data?.items.map((t) => (
        <button type="button" key={t.id} title={t.description} onClick={() => onPick(t.id)}>
          {t.id}
        </button>
      ))}
    </fieldset>
  )
}

const FILTER_LABELS = new Map(FILTER_FIELDS.map((f) => [f.name as string, f.label]))

/** Which traces: the trace list's filters (status, environment, search, the rest as text or number fields). */
function FilterFields({ draft, set }: { draft: RuleDraft; set: (filter: RuleDraft['filter']) => void }) {
  const value = (key: RuleFilterKey) => draft.filter[key] ?? ''
  const change = (key: RuleFilterKey, next: string) => set({ ...draft.filter, [key]: next })
  const others = Object.keys(draft.otherFilter)
  return (
    <fieldset className="form-grid" aria-label="Traces it takes">
      <Field label="Status">
        <select value={value('status')} onChange={(e) => change('status', e.target.value)}>
          <option value="">Any</option>
          {Object.entries(STATUS_LABELS).map(([status, label]) => (
            <option key={status} value={status as TraceStatus}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Environment">
        <select value={value('environment')} onChange={(e) => change('environment', e.target.value)}>
          <option value="">Any</option>
          {Object.keys(ENVIRONMENTS).map((env) => (
            <option key={env} value={env}>
              {env}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Search">
        <input value={value('q')} onChange={(e) => change('q', e.target.value)} maxLength={256} />
      </Field>
      {RULE_FILTER_KEYS.filter((k) => FILTER_LABELS.has(k)).map((key) => {
        const spec = FILTER_FIELDS.find((f) => f.name === key)
        return (
          <Field key={key} label={FILTER_LABELS.get(key) ?? key}>
            <input
              type={spec?.type ?? 'text'}
              min={spec?.type === 'number' ? 0 : undefined}
              step={spec?.type === 'number' ? 'any' : undefined}
              value={value(key)}
              onChange={(e) => change(key, e.target.value)}
            />
          </Field>
        )
      })}
      {others.length > 0 && (
        <p className="muted wide">
          Also kept from the API: <code>{JSON.stringify(draft.otherFilter)}</code>
        </p>
      )}
    </fieldset>
  )
}

/** The dry run: the unsaved rule on one trace (an id pasted, or one of the latest), and what it would write. */
function TryPanel({ draft }: { draft: RuleDraft }) {
  const [traceId, setTraceId] = useState('')
  const latest = useLatestTraces(draft.project_id === '' ? null : draft.project_id)
  const test = useTestEvaluator()
  const [invalid, setInvalid] = useState<string | null>(null)
  const run = (id: string) => {
    const input = draftToTry(draft)
    if (!input.ok) {
      setInvalid(input.error)
      test.reset()
      return
    }
    setInvalid(null)
    test.mutate({ evaluator: input.value, trace_id: id })
  }
  const result = test.data
  return (
    <section className="panel" aria-label="Try it on a trace">
      <h2>Try it on a trace</h2>
      <p className="muted">Runs the rule as it stands (not saved) on one trace; nothing is stored.</p>
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault()
          if (traceId.trim() !== '') run(traceId.trim())
        }}
      >
        <input
          aria-label="Trace id"
          placeholder="Trace id"
          value={traceId}
          onChange={(e) => setTraceId(e.target.value)}
          className="mono"
        />{' '}
        <button type="submit" disabled={traceId.trim() === '' || test.isPending}>
          Try
        </button>
      </form>
      {latest.data && latest.data.items.length > 0 && (
        <table className="plain" aria-label="Latest traces">
          <tbody>
            {latest.data.items.map((t) => (
              <tr key={t.trace_id} data-trace-id={t.trace_id}>
                <td style={{ whiteSpace: 'nowrap' }}>{formatTime(t.created_at)}</td>
                <td>{t.name ?? t.trace_id}</td>
                <td>
                  <StatusBadge status={t.status} />
                </td>
                <td>
                  <button
                    type="button"
                    onClick={() => {
                      setTraceId(t.trace_id)
                      run(t.trace_id)
                    }}
                    disabled={test.isPending}
                  >
                    Try on this
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {invalid !== null && <ErrorBox error={invalid} />}
      {test.isError && <ErrorBox error={test.error} />}
      {test.isPending && <p className="muted">Running…</p>}
      {result && (
        <div className="try-result" data-testid="try-result">
          {result.score ? (
            <dl className="facts">
              <div>
                <dt>Score</dt>
                <dd data-testid="try-score">
                  {result.score.name} = {scoreText(result.score)}
                </dd>
              </div>
              <div className="wide">
                <dt>Comment</dt>
                <dd className="reasoning" data-testid="try-comment">
                  {result.score.comment ?? '—'}
                </dd>
              </div>
            </dl>
          ) : (
            <p>No verdict: no score would be written.</p>
          )}
          {result.error !== null && (
            <div className="error-box" data-testid="try-error">
              {result.error}
            </div>
          )}
          {result.raw !== null && (
            <>
              <h3>The judge's answer</h3>
              <pre className="block" data-testid="try-raw">
                {result.raw}
              </pre>
            </>
          )}
        </div>
      )}
    </section>
  )
}

function Editor({ rule }: { rule: Evaluator | null }) {
  const [draft, setDraft] = useState<RuleDraft>(() => (rule ? ruleToDraft(rule) : newDraft()))
  const [invalid, setInvalid] = useState<string | null>(null)
  const projects = useProjects()
  const templates = useJudgeTemplates()
  const save = useSaveEvaluator()
  const [, navigate] = useLocation()
  const set = (patch: Partial<RuleDraft>) => setDraft((d) => ({ ...d, ...patch }))
  const setConfig = (patch: Partial<ConfigForm>) => setDraft((d) => ({ ...d, config: { ...d.config, ...patch } }))
  const submit = () => {
    const input = draftToInput(draft)
    if (!input.ok) {
      setInvalid(input.error)
      return
    }
    setInvalid(null)
    save.mutate(
      { id: rule?.evaluator_id ?? null, input: input.value },
      { onSuccess: (saved) => navigate(ruleHref(saved.evaluator_id)) },
    )
  }
  return (
    <div className="page">
      <div className="muted">
        <Link href="/evaluators">Evaluators</Link> /{' '}
        {rule ? <Link href={ruleHref(rule.evaluator_id)}>{rule.name}</Link> : 'New'}
      </div>
      <div className="header">
        <h1>{rule ? `Edit ${rule.name}` : 'New evaluator'}</h1>
      </div>
      <form
        className="panel rule-form"
        aria-label="Evaluator rule"
        onSubmit={(e) => {
          e.preventDefault()
          submit()
        }}
      >
        <div className="form-grid">
          <Field label="Name (the author of its scores)">
            <input value={draft.name} onChange={(e) => set({ name: e.target.value })} maxLength={128} />
          </Field>
          <Field label="Score name">
            <input value={draft.score_name} onChange={(e) => set({ score_name: e.target.value })} />
          </Field>
          <Field label="Kind">
            <select value={draft.kind} onChange={(e) => set({ kind: e.target.value as EvaluatorKind })}>
              {EVALUATOR_KIND_LIST.map((kind) => (
                <option key={kind} value={kind}>
                  {KIND_LABELS[kind]}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Project">
            <select value={draft.project_id} onChange={(e) => set({ project_id: e.target.value })}>
              <ProjectOptions
                projects={projects.data?.items ?? []}
                chosen={draft.project_id || undefined}
                any="Every project"
              />
            </select>
          </Field>
          <Field label="Sample rate (0–1)">
            <input
              type="number"
              min={0}
              max={1}
              step="any"
              value={draft.sample_rate}
              onChange={(e) => set({ sample_rate: e.target.value })}
            />
          </Field>
          <label className="check">
            <input type="checkbox" checked={draft.enabled} onChange={(e) => set({ enabled: e.target.checked })} />{' '}
            Enabled
          </label>
        </div>
        {draft.kind === 'llm_judge' && (
          <TemplatePicker
            onPick={(id) => {
              const template = templates.data?.items.find((t) => t.id === id)
              if (template) setDraft((d) => applyTemplate(d, template))
            }}
          />
        )}
        <h3>Settings</h3>
        <ConfigFields kind={draft.kind} config={draft.config} set={setConfig} />
        <h3>Traces it takes</h3>
        <FilterFields draft={draft} set={(filter) => set({ filter })} />
        {invalid !== null && <ErrorBox error={invalid} />}
        {save.isError && <ErrorBox error={save.error} />}
        <div className="actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            {rule ? 'Save' : 'Create'}
          </button>
          <Link href={rule ? ruleHref(rule.evaluator_id) : '/evaluators'}>Cancel</Link>
        </div>
      </form>
      <TryPanel draft={draft} />
    </div>
  )
}

export function NewEvaluator() {
  return <Editor rule={null} />
}

export function EditEvaluator({ id }: { id: string }) {
  const rule = useEvaluator(id)
  // Keyed by the rule's id: the form starts from the rule once, and background refreshes do not reset what is typed.
  if (!rule.data) {
    return (
      <div className="page">{rule.isError ? <ErrorBox error={rule.error} /> : <p className="muted">Loading…</p>}</div>
    )
  }
  return <Editor key={rule.data.evaluator_id} rule={rule.data} />
}
