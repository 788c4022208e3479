// The deterministic evaluators: pure checks of one trace, each a pass or a fail with the reason, or no verdict at all
// (an error: the text to check is absent, the trace is unpriced). An evaluator writes a pass as a boolean score of 1.
import { Ajv, type ValidateFunction } from 'ajv'
import formatsPlugin from 'ajv-formats'
import { type DeterministicCheck, type EvaluatedField, PII_DETECTORS, type Trace } from '../../schemas/index.js'
import { detectedIn } from '../ingest/redact.js'

/** A check's verdict: passed (the score's value 1) or not, and why (the score's comment); or why there is none. */
export type Verdict = { passed: boolean; comment: string } | { error: string }

/** How a `json_schema` check's schema is compiled; a schema that does not compile throws. */
export type SchemaCompiler = (schema: object) => ValidateFunction

/**
 * The compiler of the schemas users write: not strict (a `required` property without `properties`, an unknown
 * keyword, are what such schemas hold), with the usual formats; each schema compiled once.
 */
export function createSchemaCompiler(): SchemaCompiler {
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true })
  // ajv-formats is CommonJS: its default export arrives wrapped under ESM.
  const addFormats = ((formatsPlugin as unknown as { default?: unknown }).default ?? formatsPlugin) as (a: Ajv) => Ajv
  addFormats(ajv)
  const compiled = new Map<string, ValidateFunction>()
  return (schema) => {
    const key = JSON.stringify(schema)
    let validate = compiled.get(key)
    if (!validate) {
      validate = ajv.compile(schema)
      compiled.set(key, validate)
    }
    return validate
  }
}

/** A value as text: a string as it is, anything else as its JSON. */
const textOf = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value))

/** The text of a trace a check reads; null when the trace has none there (no response, no steps). */
export function fieldText(trace: Trace, field: EvaluatedField): string | null {
  switch (field) {
    case 'prompt':
      return trace.prompt
    case 'response':
      return trace.response
    case 'step_input':
    case 'step_output': {
      const key = field === 'step_input' ? 'input' : 'output'
      const values = trace.steps.map((s) => s[key]).filter((v) => v !== null && v !== undefined)
      return values.length === 0 ? null : values.map(textOf).join('\n')
    }
  }
}

const FIELD_NAMES: Record<EvaluatedField, string> = {
  prompt: 'the prompt',
  response: 'the response',
  step_input: 'the steps’ inputs',
  step_output: 'the steps’ outputs',
}

/** A short quote of a text for a comment. */
const quote = (text: string, max = 80) => JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text)

/** Runs one deterministic check on a trace. */
export function runCheck(check: DeterministicCheck, trace: Trace, compileSchema: SchemaCompiler): Verdict {
  switch (check.kind) {
    case 'latency': {
      const { max_ms } = check.config
      const passed = trace.latency <= max_ms
      return { passed, comment: `latency ${trace.latency} ms ${passed ? '≤' : '>'} ${max_ms} ms` }
    }
    case 'cost': {
      const { max_usd } = check.config
      if (trace.cost === null) return { error: 'the trace is unpriced: its cost is not known' }
      const passed = trace.cost <= max_usd
      return { passed, comment: `cost ${trace.cost} USD ${passed ? '≤' : '>'} ${max_usd} USD` }
    }
  }
  const { field } = check.config
  const text = fieldText(trace, field)
  const where = FIELD_NAMES[field]
  if (text === null) return { error: `the trace has no ${field === 'prompt' ? 'prompt' : where.slice(4)}` }
  switch (check.kind) {
    case 'regex': {
      const { pattern, flags = '', expect } = check.config
      const found = new RegExp(pattern, flags).exec(text)
      const passed = (found !== null) === (expect === 'match')
      return {
        passed,
        comment: found ? `${where} matches /${pattern}/ at ${quote(found[0])}` : `${where} does not match /${pattern}/`,
      }
    }
    case 'contains': {
      const { words, mode, case_sensitive = false } = check.config
      const haystack = case_sensitive ? text : text.toLowerCase()
      const present = words.filter((w) => haystack.includes(case_sensitive ? w : w.toLowerCase()))
      const passed =
        mode === 'any' ? present.length > 0 : mode === 'all' ? present.length === words.length : present.length === 0
      const missing = words.filter((w) => !present.includes(w))
      return {
        passed,
        comment:
          present.length === 0
            ? `${where} contains none of ${words.map((w) => quote(w)).join(', ')}`
            : `${where} contains ${present.map((w) => quote(w)).join(', ')}${missing.length > 0 ? `, not ${missing.map((w) => quote(w)).join(', ')}` : ''}`,
      }
    }
    case 'json': {
      try {
        JSON.parse(text)
        return { passed: true, comment: `${where} is valid JSON` }
      } catch (err) {
        return { passed: false, comment: `${where} is not valid JSON: ${(err as Error).message}` }
      }
    }
    case 'json_schema': {
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch (err) {
        return { passed: false, comment: `${where} is not valid JSON: ${(err as Error).message}` }
      }
      let validate: ValidateFunction
      try {
        validate = compileSchema(check.config.schema)
      } catch (err) {
        return { error: `the schema does not compile: ${(err as Error).message}` }
      }
      if (validate(value)) return { passed: true, comment: `${where} meets the schema` }
      const [first] = validate.errors ?? []
      return {
        passed: false,
        comment: `${where} does not meet the schema: ${first ? `${first.instancePath || '(the value)'} ${first.message}` : 'invalid'}`,
      }
    }
    case 'length': {
      const { min, max } = check.config
      const length = [...text].length
      const passed = (min === undefined || length >= min) && (max === undefined || length <= max)
      const bounds = [min === undefined ? null : `≥ ${min}`, max === undefined ? null : `≤ ${max}`].filter(Boolean)
      return { passed, comment: `${where} has ${length} characters (${bounds.join(' and ') || 'no bounds'})` }
    }
    case 'pii': {
      const found = detectedIn(text, check.config.detectors ?? PII_DETECTORS)
      return found.length === 0
        ? { passed: true, comment: `no personal data found in ${where}` }
        : { passed: false, comment: `${where} contains personal data: ${found.join(', ')}` }
    }
  }
}
