// API key shapes: the one-time creation form (with the secret) and the listing form (never the secret).
import { type Static, Type } from '@sinclair/typebox'
import { EnvironmentSchema, Nullable, Page, Ref, ZonelessTimestamp } from './common.js'
import { apiKeyCreatedExample, apiKeyExample, createApiKeyInputExample, listApiKeysExample } from './examples.js'

export const KEY_PREFIX = 'loupe_sk_'
export const KEY_RANDOM_LENGTH = 32

const KeyId = Type.String({ description: 'Public identifier of the key.' })
const KeyPreview = Type.String({
  description: `Masked form: \`${KEY_PREFIX}\` + first 4 + \`…\` + last 4 random characters.`,
})

export const ApiKeyCreatedSchema = Type.Object(
  {
    key_id: KeyId,
    key: Type.String({
      pattern: `^${KEY_PREFIX}[A-Za-z0-9]{${KEY_RANDOM_LENGTH}}$`,
      description: 'The secret. Returned only in this response; the service keeps only its SHA-256 hash.',
    }),
    key_preview: KeyPreview,
    project_id: Type.String(),
    environment: EnvironmentSchema,
    created_at: ZonelessTimestamp,
  },
  {
    $id: 'ApiKeyCreatedSchema',
    additionalProperties: false,
    description: 'A new API key, with its secret.',
    examples: [apiKeyCreatedExample],
  },
)
export type ApiKeyCreated = Static<typeof ApiKeyCreatedSchema>

export const ApiKeySchema = Type.Object(
  {
    key_id: KeyId,
    key_preview: KeyPreview,
    project_id: Type.String(),
    project_name: Type.String(),
    environment: EnvironmentSchema,
    created_at: ZonelessTimestamp,
    last_used_at: Nullable(ZonelessTimestamp),
    revoked_at: Nullable(ZonelessTimestamp),
  },
  {
    $id: 'ApiKeySchema',
    additionalProperties: false,
    description: 'An API key as listed: never the secret.',
    examples: [apiKeyExample],
  },
)
export type ApiKey = Static<typeof ApiKeySchema>

// GET /api-keys
export const ListApiKeysQuery = Type.Object({
  project_id: Type.Optional(Type.String({ description: 'Only keys of this project.' })),
})
export const ListApiKeysResponse = Page(
  Ref(ApiKeySchema),
  { items: 'Oldest first.' },
  { examples: [listApiKeysExample] },
)
export type ListApiKeysResponse = Static<typeof ListApiKeysResponse>

// POST /api-keys (query string or JSON body)
export const CreateApiKeyInput = Type.Object(
  {
    project_id: Type.String({ minLength: 1, description: 'An existing project.' }),
    environment: EnvironmentSchema,
  },
  { examples: [createApiKeyInputExample] },
)
export type CreateApiKeyInput = Static<typeof CreateApiKeyInput>

// DELETE /api-keys/{key_id}
export const ApiKeyParams = Type.Object({ key_id: Type.String() })
