// An evaluator rule as the viewer's form holds it (every field as typed) and as the API takes it: a rule read into
// the form, the form turned back into a rule (or the first field that is wrong, named as the API names it), a backfill
// run's progress in figures. Pure functions: test/web/ tests them without a browser.
import type {
  EvaluatedField,
  Evaluator,
  EvaluatorInput,
  EvaluatorKind,
  EvaluatorRun,
  JudgeTemplate,
  PII_DETECTORS,
} from '../../../../schemas/index.js'
import { parseFilter } from '../traces/filters.js'

export type PiiDetector = (typeof PII_DETECTORS)[number]

// Records keyed by the contract's unions: exhaustive by their type, and no schema runtime in the bundle.
export const KIND_LABELS: Record<EvaluatorKind, string> = {
  regex: 'Regex',
  contains: 'Contains words',
  json: 'Valid JSON',
  json_schema: 'JSON Schema',
  length: 'Length',
  latency: 'Latency',
  cost: 'Cost',
  pii: 'Personal data',
  llm_judge: 'LLM judge',
}
export const EVALUATOR_KIND_LIST = Object.keys(KIND_LABELS) as EvaluatorKind[]

export const FIELD_LABELS: Record<EvaluatedField, string> = {
  prompt: 'Prompt',
  response: 'Response',
  step_input: 'Steps’ inputs',
  step_output: 'Steps’ outputs',
}

export const PII_LABELS: Record<PiiDetector, string> = {
  api_key: 'API keys',
  email: 'E-mail addresses',
  card: 'Card numbers',
  phone: 'Phone numbers',
}

/** The kinds whose config names the text they check. */
const FIELD_KINDS: Record<EvaluatorKind, boolean> = {
  regex: true,
  contains: true,
  json: true,
  json_schema: true,
  length: true,
  pii: true,
  latency: false,
  cost: false,
  llm_judge: false,
}
export const hasField = (kind: EvaluatorKind) => FIELD_KINDS[kind]

/** Every kind's settings, as typed: one form keeps them all, so switching kinds loses nothing typed. */
export interface ConfigForm {
  field: EvaluatedField
  pattern: string
  flags: string
  expect: 'match' | 'no_match'
  /** One word (or phrase) a line. */
  words: string
  mode: 'any' | 'all' | 'none'
  case_sensitive: boolean
  min: string
  max: string
  max_ms: string
  max_usd: string
  /** Empty: every detector. */
  detectors: PiiDetector[]
  /** json_schema's schema, as JSON text. */
  schema: string
  template: string
  model: string
  base_url: string
}

export const emptyConfigForm = (): ConfigForm => ({
  field: 'response',
  pattern: '',
  flags: '',
  expect: 'match',
  words: '',
  mode: 'any',
  case_sensitive: false,
  min: '',
  max: '',
  max_ms: '',
  max_usd: '',
  detectors: [],
  schema: '{\n  "type": "object"\n}',
  template: '',
  model: '',
  base_url: '',
})

/** The filters of GET /traces a rule's form offers (the rule's project is a field of its own). */
export const RULE_FILTER_KEYS = [
  'status',
  'environment',
  'q',
  'model',
  'min_latency',
  'max_latency',
  'min_tokens',
  'max_tokens',
  'min_cost',
  'max_cost',
  'session_id',
  'user_id',
] as const
export type RuleFilterKey = (typeof RULE_FILTER_KEYS)[number]

export interface RuleDraft {
  name: string
  /** '' : every project. */
  project_id: string
  score_name: string
  kind: EvaluatorKind
  enabled: boolean
  sample_rate: string
  /** The form's filter fields, as typed. */
  filter: Partial<Record<RuleFilterKey, string>>
  /** Filters of the rule the form has no field for (a score filter set through the API): kept as they are. */
  otherFilter: Record<string, unknown>
  config: ConfigForm
}

export const newDraft = (): RuleDraft => ({
  name: '',
  project_id: '',
  score_name: '',
  kind: 'json',
  enabled: true,
  sample_rate: '1',
  filter: {},
  otherFilter: {},
  config: emptyConfigForm(),
})

const text = (value: unknown) => (value === undefined || value === null ? '' : String(value))

/** A stored config read into the form (fields the kind does not have keep their defaults). */
export function configToForm(kind: EvaluatorKind, config: Record<string, unknown>): ConfigForm {
  const form = emptyConfigForm()
  if (typeof config.field === 'string') form.field = config.field as EvaluatedField
  switch (kind) {
    case 'regex':
      form.pattern = text(config.pattern)
      form.flags = text(config.flags)
      form.expect = config.expect === 'no_match' ? 'no_match' : 'match'
      break
    case 'contains':
      form.words = Array.isArray(config.words) ? config.words.map(String).join('\n') : ''
      form.mode = config.mode === 'all' || config.mode === 'none' ? config.mode : 'any'
      form.case_sensitive = config.case_sensitive === true
      break
    case 'json_schema':
      form.schema = JSON.stringify(config.schema ?? {}, null, 2)
      break
    case 'length':
      form.min = text(config.min)
      form.max = text(config.max)
      break
    case 'latency':
      form.max_ms = text(config.max_ms)
      break
    case 'cost':
      form.max_usd = text(config.max_usd)
      break
    case 'pii':
      form.detectors = Array.isArray(config.detectors) ? (config.detectors as PiiDetector[]) : []
      break
    case 'llm_judge':
      form.template = text(config.template)
      form.model = text(config.model)
      form.base_url = text(config.base_url)
      break
    case 'json':
      break
  }
  return form
}

type Checked<T> = { ok: true; value: T } | { ok: false; error: string }
const fail = (error: string): { ok: false; error: string } => ({ ok: false, error })

/** A number field: absent when empty, else a finite number ≥ 0 (an integer where asked). */
function numberField(name: string, value: string, integer: boolean): Checked<number | undefined> {
  if (value.trim() === '') return { ok: true, value: undefined }
  const n = Number(value)
  if (!Number.isFinite(n) || n < 0) return fail(`${name} must be a number ≥ 0`)
  if (integer && !Number.isInteger(n)) return fail(`${name} must be a whole number`)
  return { ok: true, value: n }
}

/** The form's settings as the kind's config, or the first that is wrong (`config/<field> …`). */
export function formToConfig(kind: EvaluatorKind, form: ConfigForm): Checked<Record<string, unknown>> {
  const field = { field: form.field }
  switch (kind) {
    case 'regex': {
      if (form.pattern === '') return fail('config/pattern is required')
      if (!/^[imsu]*$/.test(form.flags)) return fail('config/flags may only hold i, m, s, u')
      try {
        new RegExp(form.pattern, form.flags)
      } catch (err) {
        return fail(`config/pattern is not a usable regex: ${(err as Error).message}`)
      }
      return {
        ok: true,
        value: { ...field, pattern: form.pattern, ...(form.flags ? { flags: form.flags } : {}), expect: form.expect },
      }
    }
    case 'contains': {
      const words = form.words
        .split('\n')
        .map((w) => w.trim())
        .filter((w) => w !== '')
      if (words.length === 0) return fail('config/words needs at least one word')
      return { ok: true, value: { ...field, words, mode: form.mode, case_sensitive: form.case_sensitive } }
    }
    case 'json':
      return { ok: true, value: field }
    case 'json_schema': {
      let schema: unknown
      try {
        schema = JSON.parse(form.schema)
      } catch (err) {
        return fail(`config/schema is not JSON: ${(err as Error).message}`)
      }
      if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
        return fail('config/schema must be a JSON object')
      }
      return { ok: true, value: { ...field, schema } }
    }
    case 'length': {
      const min = numberField('config/min', form.min, true)
      if (!min.ok) return min
      const max = numberField('config/max', form.max, true)
      if (!max.ok) return max
      if (min.value === undefined && max.value === undefined) return fail('config needs a min or a max')
      if (min.value !== undefined && max.value !== undefined && min.value > max.value) {
        return fail('config/min must not be above config/max')
      }
      return {
        ok: true,
        value: {
          ...field,
          ...(min.value === undefined ? {} : { min: min.value }),
          ...(max.value === undefined ? {} : { max: max.value }),
        },
      }
    }
    case 'latency': {
      const max = numberField('config/max_ms', form.max_ms, false)
      if (!max.ok) return max
      if (max.value === undefined) return fail('config/max_ms is required')
      return { ok: true, value: { max_ms: max.value } }
    }
    case 'cost': {
      const max = numberField('config/max_usd', form.max_usd, false)
      if (!max.ok) return max
      if (max.value === undefined) return fail('config/max_usd is required')
      return { ok: true, value: { max_usd: max.value } }
    }
    case 'pii':
      return { ok: true, value: { ...field, ...(form.detectors.length > 0 ? { detectors: form.detectors } : {}) } }
    case 'llm_judge': {
      if (form.template.trim() === '') return fail('config/template is required')
      if (form.base_url !== '' && !/^https?:\/\//.test(form.base_url)) {
        return fail('config/base_url must start with http:// or https://')
      }
      return {
        ok: true,
        value: {
          template: form.template,
          ...(form.model.trim() ? { model: form.model.trim() } : {}),
          ...(form.base_url ? { base_url: form.base_url } : {}),
        },
      }
    }
  }
}

/** The filter fields as GET /traces parameters, cleaned as the trace list cleans its URL. */
export function filterOf(draft: Pick<RuleDraft, 'filter' | 'otherFilter'>): Record<string, unknown> {
  const params = new URLSearchParams()
  for (const key of RULE_FILTER_KEYS) {
    const value = draft.filter[key]?.trim()
    if (value) params.set(key, value)
  }
  const { sort: _s, order: _o, project_id: _p, since: _from, until: _to, ...parsed } = parseFilter(params.toString())
  return { ...draft.otherFilter, ...parsed }
}

/** The form as the rule the API takes, or the first field that is wrong. */
export function draftToInput(draft: RuleDraft): Checked<EvaluatorInput> {
  if (draft.name.trim() === '') return fail('name is required')
  if (draft.score_name.trim() === '') return fail('score_name is required')
  const rate = draft.sample_rate.trim() === '' ? 1 : Number(draft.sample_rate)
  if (!Number.isFinite(rate) || rate < 0 || rate > 1) return fail('sample_rate must be between 0 and 1')
  const config = formToConfig(draft.kind, draft.config)
  if (!config.ok) return config
  return {
    ok: true,
    value: {
      name: draft.name.trim(),
      project_id: draft.project_id === '' ? null : draft.project_id,
      filter: filterOf(draft),
      sample_rate: rate,
      score_name: draft.score_name.trim(),
      enabled: draft.enabled,
      kind: draft.kind,
      config: config.value,
    },
  }
}

/**
 * The rule a dry run sends: the draft, its names stood in for while they are not typed yet (a rule is tried before
 * it is named), so only what the check needs must be right.
 */
export function draftToTry(draft: RuleDraft): Checked<EvaluatorInput> {
  return draftToInput({
    ...draft,
    name: draft.name.trim() || 'unsaved rule',
    score_name: draft.score_name.trim() || draft.kind,
  })
}

const isFormKey = (key: string): key is RuleFilterKey => (RULE_FILTER_KEYS as readonly string[]).includes(key)

/** A stored rule read into the form. */
export function ruleToDraft(rule: Evaluator): RuleDraft {
  const filter: RuleDraft['filter'] = {}
  const otherFilter: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(rule.filter)) {
    if (isFormKey(key)) filter[key] = text(value)
    else otherFilter[key] = value
  }
  return {
    name: rule.name,
    project_id: rule.project_id ?? '',
    score_name: rule.score_name,
    kind: rule.kind,
    enabled: rule.enabled,
    sample_rate: String(rule.sample_rate),
    filter,
    otherFilter,
    config: configToForm(rule.kind, rule.config),
  }
}

/** A judge template taken as the start of an llm_judge rule: its text, and its id as the names not yet typed. */
export function applyTemplate(draft: RuleDraft, template: JudgeTemplate): RuleDraft {
  return {
    ...draft,
    kind: 'llm_judge',
    name: draft.name.trim() === '' ? template.id : draft.name,
    score_name: draft.score_name.trim() === '' ? template.id : draft.score_name,
    config: { ...draft.config, template: template.template },
  }
}

/** How far a backfill has got: the bar's share (0–1) and the words beside it. */
export function runProgress(run: Pick<EvaluatorRun, 'status' | 'done' | 'total' | 'enumerated'>): {
  share: number
  text: string
} {
  const finished = run.status === 'done'
  const share = run.total === 0 ? (finished ? 1 : 0) : Math.min(1, run.done / run.total)
  const counted = run.enumerated || run.status !== 'running'
  const text = `${run.done.toLocaleString('en-US')} / ${run.total.toLocaleString('en-US')}${counted ? '' : '+ (still counting)'}`
  return { share: counted ? share : Math.min(share, 0.99), text }
}

/** A `datetime-local` field's value (the browser's local time) as a UTC ISO timestamp; '' is no bound. */
export function localToIso(value: string): Checked<string | undefined> {
  if (value.trim() === '') return { ok: true, value: undefined }
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) return fail(`${value} is not a date`)
  return { ok: true, value: date.toISOString() }
}
