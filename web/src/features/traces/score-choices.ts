// The score names the trace list can be filtered and ordered by, from what the viewer already reads: the score
// configs and the scores /analytics counts. Pure, so which control each name gets is tested without a browser.
import type { ScoreAnalytics, ScoreConfig, ScoreDataType } from '../../../../schemas/index.js'

/** A score name as the filter bar offers it: its data type when known, and the labels it can be filtered by. */
export interface ScoreChoice {
  name: string
  data_type: ScoreDataType | null
  labels: string[]
}

const BOOLEAN_LABELS = ['true', 'false']

/**
 * Every score name configured or given, name ascending, each once. A config says the data type and the categories
 * (in its order); labels given but not in it follow. `chosen` (a name from the URL) is offered even when neither
 * knows it, its data type unknown.
 */
export function scoreChoices(
  given: readonly ScoreAnalytics[],
  configs: readonly ScoreConfig[],
  chosen?: string,
): ScoreChoice[] {
  const choices = new Map<string, ScoreChoice>()
  for (const c of configs) {
    const labels =
      c.data_type === 'boolean' ? BOOLEAN_LABELS : c.data_type === 'categorical' ? (c.categories ?? []) : []
    choices.set(c.name, { name: c.name, data_type: c.data_type, labels: [...labels] })
  }
  for (const g of given) {
    const choice = choices.get(g.name) ?? { name: g.name, data_type: g.data_type, labels: [] }
    choices.set(g.name, choice)
    // A name given with another type than its config's says nothing of the config's labels.
    if (choice.data_type !== g.data_type) continue
    if (g.data_type === 'boolean') choice.labels = [...BOOLEAN_LABELS]
    for (const { label } of g.labels) if (!choice.labels.includes(label)) choice.labels.push(label)
  }
  if (chosen !== undefined && !choices.has(chosen)) choices.set(chosen, { name: chosen, data_type: null, labels: [] })
  return [...choices.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/**
 * How a score name is filtered: a numeric one by a range of values, a categorical or boolean one by a label; a name
 * of unknown type (not configured, not given) by either.
 */
export function scoreControl(choice: ScoreChoice | undefined): { range: boolean; label: boolean } {
  const type = choice?.data_type ?? null
  return { range: type === null || type === 'numeric', label: type !== 'numeric' }
}
