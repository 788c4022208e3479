// What a number key means for a score config: a boolean's 1 (true) or 0 (false), a categorical's category at that
// position (1 the first, 0 the tenth), a numeric's digit as typed when the config allows it.
import type { Score, ScoreConfig } from '../../../../schemas/index.js'

export type KeyValue = number | boolean | string

export function valueForKey(config: ScoreConfig, key: string): KeyValue | null {
  if (!/^[0-9]$/.test(key)) return null
  const digit = Number(key)
  if (config.data_type === 'boolean') return digit === 1 ? true : digit === 0 ? false : null
  if (config.data_type === 'categorical') return config.categories?.[digit === 0 ? 9 : digit - 1] ?? null
  if (config.min !== null && digit < config.min) return null
  if (config.max !== null && digit > config.max) return null
  return digit
}

/** The keys that give a value for a config, with what each gives, for the form's hint. */
export function keyHints(config: ScoreConfig): { key: string; value: KeyValue }[] {
  const out: { key: string; value: KeyValue }[] = []
  for (const key of ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0']) {
    const value = valueForKey(config, key)
    if (value !== null) out.push({ key, value })
  }
  return out
}

/** A score as the viewer shows it: a category or yes/no by its label, a number as it is. */
export const scoreText = (score: Pick<Score, 'data_type' | 'label' | 'value'>): string =>
  score.data_type === 'numeric' ? String(score.value) : (score.label ?? String(score.value))

/** The score this author gave under this name to the trace or step (the one a change replaces). */
export function ownScore(
  scores: readonly Score[],
  name: string,
  author: string | null,
  stepIndex: number | null,
): Score | null {
  if (author === null) return null
  return (
    scores.findLast(
      (s) => s.name === name && s.author === author && s.step_index === stepIndex && s.source === 'annotation',
    ) ?? null
  )
}
