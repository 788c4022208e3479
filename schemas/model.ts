// Model prices: operators' overrides of the price database, per model-name pattern, and re-pricing stored traces.
import { type Static, Type } from '@sinclair/typebox'
import { BOUNDS, Page, Ref, TimestampQuery, UtcTimestamp } from './common.js'
import {
  listModelPricesExample,
  modelPriceExample,
  putModelPriceExample,
  recomputeCostsBodyExample,
  recomputeCostsResponseExample,
} from './examples.js'

const PricePerMillion = (description: string) =>
  Type.Number({
    minimum: 0,
    maximum: BOUNDS.pricePerMillion,
    description: `${description} USD per million tokens, 0 to ${BOUNDS.pricePerMillion}.`,
  })

export const MODEL_PATTERN = '^(?=.*[^*])[^\\s]{1,256}$'
export const ModelPatternSchema = Type.String({
  pattern: MODEL_PATTERN,
  minLength: 1,
  maxLength: 256,
  description:
    'A model name, or a pattern where `*` matches any run of characters (`gpt-4o*`, `*/llama-3*`); case-insensitive. ' +
    'The most specific match wins: an exact name, then the pattern with the most literal characters.',
})

export const ModelPriceSchema = Type.Object(
  {
    pattern: ModelPatternSchema,
    input_price: PricePerMillion('Price of input (prompt) tokens.'),
    output_price: PricePerMillion('Price of output (completion) tokens.'),
    cached_input_price: Type.Union([PricePerMillion('Price of cached input tokens.'), Type.Null()], {
      description: 'Price of input tokens read from the prompt cache; null: the input price.',
    }),
    updated_at: UtcTimestamp,
  },
  {
    $id: 'ModelPriceSchema',
    additionalProperties: false,
    examples: [modelPriceExample],
    description: 'A price override: traces of matching models stored after it are priced with it.',
  },
)
export type ModelPrice = Static<typeof ModelPriceSchema>

// GET /models
export const ListModelPricesResponse = Page(
  Ref(ModelPriceSchema),
  { items: 'Pattern ascending.' },
  { examples: [listModelPricesExample] },
)
export type ListModelPricesResponse = Static<typeof ListModelPricesResponse>

// GET, PUT and DELETE /models/{pattern}
export const ModelPriceParams = Type.Object({ pattern: ModelPatternSchema })
export type ModelPriceParams = Static<typeof ModelPriceParams>

export const PutModelPriceBody = Type.Object(
  {
    input_price: PricePerMillion('Price of input (prompt) tokens.'),
    output_price: PricePerMillion('Price of output (completion) tokens.'),
    cached_input_price: Type.Optional(
      Type.Union([PricePerMillion('Price of cached input tokens.'), Type.Null()], {
        description: 'Price of input tokens read from the prompt cache; absent or null: the input price.',
      }),
    ),
  },
  { additionalProperties: false, examples: [putModelPriceExample] },
)
export type PutModelPriceBody = Static<typeof PutModelPriceBody>

// POST /costs/recompute
export const RecomputeCostsBody = Type.Object(
  { since: Type.Optional(TimestampQuery('Only traces with created_at ≥ since (default: every trace).')) },
  { additionalProperties: false, examples: [recomputeCostsBodyExample] },
)
export type RecomputeCostsBody = Static<typeof RecomputeCostsBody>

export const RecomputeCostsResponse = Type.Object(
  {
    scanned: Type.Integer({ description: 'Traces priced again.' }),
    changed: Type.Integer({ description: 'Of them, traces whose cost (or a step’s) changed.' }),
  },
  { examples: [recomputeCostsResponseExample] },
)
export type RecomputeCostsResponse = Static<typeof RecomputeCostsResponse>
