// Shared building blocks of the contract: nullable fields, references, timestamps, errors.
import {
  type ObjectOptions,
  type SchemaOptions,
  type Static,
  type TProperties,
  type TSchema,
  Type,
} from '@sinclair/typebox'
import { errorExample } from './examples.js'

/** A field that may be null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

/** One of a list of strings: the list (an `as const` array beside the schema) is the one place the values are written. */
export const Literals = <V extends string>(values: readonly V[], options?: SchemaOptions) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  )

/** What the docs say of a list answer's `total` and `items`. */
export interface PageDocs {
  total?: string
  items?: string
}

/**
 * A list answer: how many items match in all (`total`, not just this page), the items of this page, then what else
 * the list carries (a `next_cursor`). Every list envelope of the API is one.
 */
export const Page = <T extends TSchema, More extends TProperties = Record<never, never>>(
  item: T,
  docs: PageDocs = {},
  options: ObjectOptions = {},
  more: More = {} as More,
) =>
  Type.Object(
    {
      total: Type.Integer(docs.total === undefined ? undefined : { description: docs.total }),
      items: Type.Array(item, docs.items === undefined ? undefined : { description: docs.items }),
      ...more,
    },
    options,
  )

/**
 * A `$ref` to a named component, typed as the schema it points to. Route schemas use this so
 * the OpenAPI document shows `TraceSchema`, `StepSchema`, … as components instead of inlining them.
 */
export const Ref = <T extends TSchema>(schema: T) => {
  if (!schema.$id) throw new Error('Ref() needs a schema with an $id')
  return Type.Unsafe<Static<T>>(Type.Ref(schema.$id))
}

/**
 * The largest values a real call can have. Anything beyond is refused with a 400 naming the field (OTLP: the span is
 * counted as rejected), so that no figure of the analytics can be pushed to Infinity, lose integer precision or turn
 * into null, whatever a client sends (docs/api.md, "Numbers").
 */
export const BOUNDS = {
  /** A week, in ms: no call, step or trace runs longer. */
  latencyMs: 604_800_000,
  /** Tokens of one step (one model call): beyond the context of any model. */
  stepTokens: 100_000_000,
  /** Tokens of a whole trace: the steps allowed (1000) times what one step may use. */
  traceTokens: 100_000_000_000,
  /** A retry count a client reports for a trace without steps. */
  retryCount: 1_000_000,
  /** `offset` of a list. */
  offset: 1_000_000_000,
  /** USD of one trace or step: beyond any real bill for one call. */
  costUsd: 1_000_000,
  /** USD per million tokens of a price. */
  pricePerMillion: 1_000_000,
} as const

/** A duration in milliseconds: 0 to a week, microseconds kept (3 decimals; finer digits are rounded at ingest). */
export const LatencyMs = (description: string) =>
  Type.Number({ minimum: 0, maximum: BOUNDS.latencyMs, description: `${description} At most a week (604800000).` })

/** A cost in USD: 0 to a million, nano-dollars kept (9 decimals; finer digits are rounded at ingest). */
export const CostUsd = (description: string) =>
  Type.Number({ minimum: 0, maximum: BOUNDS.costUsd, description: `${description} USD, at most ${BOUNDS.costUsd}.` })

/** A token count from 0 to `max`. */
export const TokenCount = (max: number, description: string) =>
  Type.Integer({ minimum: 0, maximum: max, description: `${description} At most ${max}.` })

/** Name of the ajv format every incoming timestamp is checked with (see src/lib/time.ts). */
export const TIMESTAMP_FORMAT = 'loupe-timestamp'

export const UtcTimestamp = Type.String({
  description: 'ISO 8601 timestamp in UTC with milliseconds and a `Z`, e.g. `2026-11-21T13:45:00.123Z`.',
  examples: ['2026-11-21T13:45:00.123Z'],
})

export const ZonelessTimestamp = Type.String({
  description: 'ISO 8601 timestamp in UTC without a zone designator, e.g. `2026-11-21T13:45:00.123`.',
  examples: ['2026-11-21T13:45:00.123'],
})

/** A timestamp as a client may send it: ISO 8601 (any offset, or none = UTC) or epoch seconds/milliseconds. */
export const TimestampInput = Type.Union([Type.String({ format: TIMESTAMP_FORMAT }), Type.Number({ minimum: 0 })], {
  description:
    'ISO 8601 with any offset (no offset = UTC), or an epoch number: seconds when < 1e11, otherwise milliseconds.',
})

/** A timestamp in a query string: ISO 8601 (no offset = UTC) or epoch seconds/milliseconds. */
export const TimestampQuery = (description: string) =>
  Type.String({
    format: TIMESTAMP_FORMAT,
    description: `${description} ISO 8601 (no offset = UTC) or epoch seconds/milliseconds.`,
  })

export const TRACE_ID_PATTERN = '^[A-Za-z0-9._:-]{1,128}$'
export const TraceIdSchema = Type.String({
  pattern: TRACE_ID_PATTERN,
  minLength: 1,
  maxLength: 128,
  description: '1–128 characters of `[A-Za-z0-9._:-]`; a UUIDv7 is generated when the client sends none.',
})

export const ENVIRONMENTS = ['development', 'staging', 'production'] as const
export const EnvironmentSchema = Literals(ENVIRONMENTS, {
  description: 'Environment scope of an API key and of the traces sent with it.',
})
export type Environment = Static<typeof EnvironmentSchema>

export const LimitQuery = Type.Integer({
  minimum: 1,
  maximum: 1000,
  default: 50,
  description: 'Maximum number of items returned (1–1000).',
})

/**
 * A query as a route's handler receives it: ajv (`useDefaults`) has filled in every field of `K`, whose schemas have a
 * `default`, so the handler reads them without a fallback of its own (the schema is the one place a default is said).
 */
export type Filled<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: Exclude<T[P], undefined> }

export const OffsetQuery = Type.Integer({
  minimum: 0,
  maximum: BOUNDS.offset,
  default: 0,
  description: 'Items to skip.',
})

/**
 * The answer of a batch (`POST /traces/batch`, `POST /scores/batch`): how many items were accepted, each rejected
 * one's index and reason, and the accepted items in request order.
 */
export const BatchAnswer = <T extends TSchema>(
  field: string,
  noun: string,
  item: T,
  options: ObjectOptions,
  rejected?: string,
) =>
  Type.Object(
    {
      accepted: Type.Integer({ description: `${noun} stored now or already stored (idempotent re-send).` }),
      rejected: Type.Array(
        Type.Object({
          index: Type.Integer({ description: `Position in \`${field}\`.` }),
          message: Type.String({ description: 'Why it was rejected; names the field.' }),
        }),
        rejected === undefined ? {} : { description: rejected },
      ),
      items: Type.Array(item, { description: `The accepted ${noun.toLowerCase()}, in request order.` }),
    },
    options,
  )

export const ErrorSchema = Type.Object(
  {
    statusCode: Type.Integer({ description: 'HTTP status code.' }),
    error: Type.String({ description: 'HTTP status text.' }),
    message: Type.String({ description: 'What went wrong; for invalid input it names the field.' }),
    code: Type.Optional(Type.String({ description: 'Stable machine-readable error code.' })),
  },
  {
    $id: 'ErrorSchema',
    description: 'Every error response has this shape.',
    examples: [errorExample],
  },
)
export type ApiError = Static<typeof ErrorSchema>

/** Error responses a route may document, by status code. */
export const errorResponses = (...codes: number[]) =>
  Object.fromEntries(codes.map((code) => [code, Ref(ErrorSchema)])) as Record<
    number,
    ReturnType<typeof Ref<typeof ErrorSchema>>
  >
