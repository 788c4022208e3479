// The trace list's filter bar: every filter of GET /traces, written to the URL under the API's names.
import { type FormEvent, useMemo } from 'react'
import { useLocation } from 'wouter'
import type { TraceStatus } from '../../../../schemas/index.js'
import { useAnalytics, useScoreConfigs } from '../../api/queries.js'
import { FilterActions } from '../../ui/parts.js'
import { ProjectFilter } from '../../ui/project-options.js'
import { parseFilter, STATUS_LABELS, type TraceFilter, traceListHref } from './filters.js'
import { scoreChoices, scoreControl } from './score-choices.js'

/** The filter bar's fields beside search, status and project (the evaluator form offers them too). */
export const FILTER_FIELDS: {
  name: keyof TraceFilter
  label: string
  type?: string
  step?: string
  wide?: boolean
  placeholder?: string
}[] = [
  { name: 'model', label: 'Model' },
  { name: 'agent', label: 'Agent' },
  { name: 'min_latency', label: 'Latency ≥ (ms)', type: 'number' },
  { name: 'max_latency', label: 'Latency ≤ (ms)', type: 'number' },
  { name: 'min_tokens', label: 'Tokens ≥', type: 'number' },
  { name: 'max_tokens', label: 'Tokens ≤', type: 'number' },
  { name: 'min_cost', label: 'Cost ≥ ($)', type: 'number', step: 'any' },
  { name: 'max_cost', label: 'Cost ≤ ($)', type: 'number', step: 'any' },
  { name: 'session_id', label: 'Session' },
  { name: 'user_id', label: 'User' },
  { name: 'since', label: 'Since', wide: true, placeholder: '2026-11-21T00:00Z' },
  { name: 'until', label: 'Until', wide: true, placeholder: 'ISO 8601 or epoch' },
]

export function TraceFilters({ search }: { search: string }) {
  const [, navigate] = useLocation()
  const filter = useMemo(() => parseFilter(search), [search])
  // The order is the column headings' business: the filters keep it.
  const apply = (next: TraceFilter) =>
    navigate(traceListHref({ ...next, sort: filter.sort, order: filter.order }), { replace: true })
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const params = new URLSearchParams()
    for (const [key, value] of form) if (typeof value === 'string' && value.trim() !== '') params.set(key, value.trim())
    apply(parseFilter(params.toString()))
  }
  return (
    // Keyed by the URL, so going back and forth restores the fields too.
    <form className="filters" onSubmit={submit} key={search} aria-label="Filters">
      <label className="search">
        Search
        <input
          name="q"
          type="search"
          className="wide"
          maxLength={256}
          placeholder="Words in prompts, responses, steps, errors"
          defaultValue={filter.q ?? ''}
        />
      </label>
      <label>
        Status
        <select
          name="status"
          defaultValue={filter.status ?? ''}
          onChange={(e) => apply({ ...filter, status: (e.target.value || undefined) as TraceStatus | undefined })}
        >
          <option value="">Any</option>
          {Object.entries(STATUS_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <ProjectFilter chosen={filter.project_id} onPick={(project_id) => apply({ ...filter, project_id })} />
      {FILTER_FIELDS.map((f) => (
        <label key={f.name}>
          {f.label}
          <input
            name={f.name}
            type={f.type ?? 'text'}
            min={f.type === 'number' ? 0 : undefined}
            step={f.type === 'number' ? (f.step ?? 'any') : undefined}
            className={f.wide ? 'wide' : undefined}
            placeholder={f.placeholder}
            defaultValue={filter[f.name] === undefined ? '' : String(filter[f.name])}
          />
        </label>
      ))}
      <ScoreFilter filter={filter} apply={apply} />
      <FilterActions onClear={() => apply({})} />
    </form>
  )
}

/**
 * The score filter: a score name (those configured, and those given in the project /analytics counts), then a range
 * of values for a numeric score or a label for a categorical or boolean one. A new name starts without bounds.
 */
function ScoreFilter({ filter, apply }: { filter: TraceFilter; apply: (next: TraceFilter) => void }) {
  const given = useAnalytics(filter.project_id).data?.scores
  const configs = useScoreConfigs().data?.items
  const name = filter.score_name
  const choices = useMemo(() => scoreChoices(given ?? [], configs ?? [], name), [given, configs, name])
  const choice = choices.find((c) => c.name === name)
  const control = scoreControl(choice)
  const { score_name: _n, min_score: _min, max_score: _max, score_label: _l, ...rest } = filter
  return (
    <>
      <label>
        Score
        <select
          name="score_name"
          defaultValue={name ?? ''}
          onChange={(e) => apply({ ...rest, ...(e.target.value ? { score_name: e.target.value } : {}) })}
        >
          <option value="">Any</option>
          {choices.map((c) => (
            <option key={c.name} value={c.name}>
              {c.name}
            </option>
          ))}
        </select>
      </label>
      {name !== undefined && control.range && (
        <>
          <label>
            Score ≥
            <input name="min_score" type="number" step="any" defaultValue={filter.min_score ?? ''} />
          </label>
          <label>
            Score ≤
            <input name="max_score" type="number" step="any" defaultValue={filter.max_score ?? ''} />
          </label>
        </>
      )}
      {name !== undefined &&
        control.label &&
        (choice !== undefined && choice.labels.length > 0 ? (
          <label>
            Label
            <select
              name="score_label"
              defaultValue={filter.score_label ?? ''}
              onChange={(e) => apply({ ...filter, score_label: e.target.value === '' ? undefined : e.target.value })}
            >
              <option value="">Any</option>
              {filter.score_label !== undefined && !choice.labels.includes(filter.score_label) && (
                <option value={filter.score_label}>{filter.score_label}</option>
              )}
              {choice.labels.map((label) => (
                <option key={label} value={label}>
                  {label}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <label>
            Label
            <input name="score_label" maxLength={256} defaultValue={filter.score_label ?? ''} />
          </label>
        ))}
    </>
  )
}
