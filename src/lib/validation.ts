// The validators: one ajv for bodies (no type coercion: a string is not a number) and one for query strings and
// params (which arrive as text and are coerced). Both know the named components and Loupe's timestamp format, and
// every check they compile also refuses text that is not valid Unicode, in any string or key of the data: the one
// place that covers every route's body, query string and path, and each trace of a batch on its own.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import formatsPlugin from 'ajv-formats'
import { componentSchemas, TIMESTAMP_FORMAT } from '../../schemas/index.js'
import { parseTimestamp } from './time.js'
import { illFormedMessage, illFormedText } from './well-formed.js'

/** Compiles a schema into a check of data against it. */
export interface Compiler {
  /** The schema, and every string and key in the data valid Unicode text (`…/user_id must be valid Unicode text`). */
  compile(schema: object): ValidateFunction
  /**
   * The schema only: for an envelope whose items are each checked later, text included, so that one bad item
   * rejects itself and not the whole request (a batch's traces, an OTLP export's spans).
   */
  compileEnvelope(schema: object): ValidateFunction
}

export interface Validators {
  body: Compiler
  query: Compiler
}

function createAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: coerce,
    allErrors: false,
    strict: true,
    // The schemas are TypeBox's, checked once by the tests (the OpenAPI lint and the schema tests); checking each
    // against the JSON Schema meta-schema again at every start cost a third of the start-up time.
    validateSchema: false,
  })
  // ajv-formats is CommonJS: its default export arrives wrapped under ESM.
  const addFormats = ((formatsPlugin as unknown as { default?: unknown }).default ?? formatsPlugin) as (a: Ajv) => Ajv
  addFormats(ajv)
  ajv.addFormat(TIMESTAMP_FORMAT, { type: 'string', validate: (text: string) => parseTimestamp(text) !== null })
  for (const schema of componentSchemas) ajv.addSchema(schema)
  return ajv
}

/**
 * A check that, once the schema holds, refuses the first string or key that is not well-formed (a lone UTF-16
 * surrogate), naming where it is as ajv names a field.
 */
function wellFormedToo(validate: ValidateFunction): ValidateFunction {
  const checked = ((data: unknown) => {
    if (!validate(data)) {
      checked.errors = validate.errors
      return false
    }
    const found = illFormedText(data)
    checked.errors = found && [
      {
        instancePath: found.path,
        schemaPath: '#',
        keyword: 'wellFormed',
        params: {},
        message: illFormedMessage(found),
      },
    ]
    return found === null
  }) as ValidateFunction
  return checked
}

function compilerOf(ajv: Ajv, wrap: (validate: ValidateFunction) => ValidateFunction = (v) => v): Compiler {
  return {
    compile: (schema) => wellFormedToo(wrap(ajv.compile(schema))),
    compileEnvelope: (schema) => wrap(ajv.compile(schema)),
  }
}

export function createValidators(): Validators {
  return { body: compilerOf(createAjv(false)), query: compilerOf(createAjv(true), finiteOnly) }
}

/**
 * ajv coerces the text `Infinity` of a query string to the number and then skips `minimum`/`maximum` for it (they
 * apply to finite numbers only): a coerced value that is not a finite number is refused here instead.
 */
function finiteOnly(validate: ValidateFunction): ValidateFunction {
  const checked = ((data: unknown) => {
    if (!validate(data)) {
      checked.errors = validate.errors
      return false
    }
    checked.errors = null
    if (typeof data !== 'object' || data === null) return true
    for (const [key, value] of Object.entries(data)) {
      if (typeof value === 'number' && !Number.isFinite(value)) {
        checked.errors = [
          { instancePath: `/${key}`, schemaPath: '#', keyword: 'type', params: {}, message: 'must be a finite number' },
        ]
        return false
      }
    }
    return true
  }) as ValidateFunction
  return checked
}

/** The validator compiler Fastify uses: bodies on the strict ajv, everything else on the coercing one. */
export function validatorCompiler(validators: Validators) {
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    (httpPart === 'body' ? validators.body : validators.query).compile(schema)
}

/**
 * One clear sentence naming the field, e.g. `body/steps/3/latency must be >= 0`. TypeBox writes enums and nullable
 * fields as `anyOf`, for which ajv reports every branch; those are folded into `must be one of: a, b` or
 * `must be string or null`, and a deeper error inside a branch is preferred because it names the real field.
 */
export function describeErrors(errors: readonly ErrorObject[], prefix: string): string {
  const anyOf = errors.find((e) => e.keyword === 'anyOf')
  const first = errors[0]
  if (!first) return `${prefix} is invalid`
  if (!anyOf) return `${prefix}${first.instancePath} ${messageOf(first)}`
  const path = anyOf.instancePath
  const deeper = errors.find((e) => e.instancePath.length > path.length && e.instancePath.startsWith(path))
  if (deeper) return `${prefix}${deeper.instancePath} ${deeper.message ?? 'is invalid'}`
  const here = errors.filter((e) => e.instancePath === path && e.keyword !== 'anyOf')
  // A branch of the right type failed a constraint (minimum, maxItems, format, …): that is what is wrong, not the
  // other branches' types (a negative latency is not "must be null").
  const constraint = here.find((e) => e.keyword !== 'type' && e.keyword !== 'const')
  if (constraint) return `${prefix}${path} ${messageOf(constraint)}`
  const allowed = here.filter((e) => e.keyword === 'const').map((e) => JSON.stringify(e.params.allowedValue))
  const types = here.filter((e) => e.keyword === 'type').map((e) => String(e.params.type))
  const choices = [...allowed, ...types]
  if (choices.length === 0) return `${prefix}${path} ${(here[0] ?? anyOf).message ?? 'is invalid'}`
  return allowed.length > 0
    ? `${prefix}${path} must be one of: ${choices.join(', ')}`
    : `${prefix}${path} must be ${choices.join(' or ')}`
}

/** ajv's message, except for our timestamp format, whose internal name means nothing to a client. */
function messageOf(error: ErrorObject): string {
  if (error.keyword === 'format' && error.params.format === TIMESTAMP_FORMAT) {
    return 'must be an ISO 8601 timestamp (no offset = UTC) or an epoch number (seconds or milliseconds)'
  }
  return error.message ?? 'is invalid'
}

export function firstError(validate: ValidateFunction, prefix: string): string | null {
  return validate.errors?.length ? describeErrors(validate.errors, prefix) : null
}
