// API key shapes: the one-time creation form (with the secret) and the listing form (never the secret).
import { type Static, Type } from '@sinclair/typebox'
import { EnvironmentSchema, Literals, Nullable, Page, Ref, ZonelessTimestamp } from './common.js'
import { apiKeyCreatedExample, apiKeyExample, createApiKeyInputExample, listApiKeysExample } from './examples.js'

export const KEY_PREFIX = 'loupe_sk_'
/** A public key's prefix: a key meant to live in a browser or an app, that can only send feedback scores. */
export const PUBLIC_KEY_PREFIX = 'loupe_pk_'

export const API_KEY_KINDS = ['secret', 'public'] as const
export type ApiKeyKind = (typeof API_KEY_KINDS)[number]
export const ApiKeyKindSchema = Literals(API_KEY_KINDS, {
  description:
    '`secret` (`loupe_sk_…`): records and reads its project’s traces. `public` (`loupe_pk_…`): may only send ' +
    'feedback scores on its project’s traces, from a browser or an app; everything else answers 403.',
})
export const KEY_RANDOM_LENGTH = 32

const KeyId = Type.String({ description: 'Public identifier of the key.' })
const KeyPreview = Type.String({
  description: `Masked form: the prefix (\`${KEY_PREFIX}\` or \`${PUBLIC_KEY_PREFIX}\`) + first 4 + \`…\` + last 4 random characters.`,
})

export const ApiKeyCreatedSchema = Type.Object(
  {
    key_id: KeyId,
    key: Type.String({
      pattern: `^(${KEY_PREFIX}|${PUBLIC_KEY_PREFIX})[A-Za-z0-9]{${KEY_RANDOM_LENGTH}}$`,
      description: 'The key. Returned only in this response; the service keeps only its SHA-256 hash.',
    }),
    key_preview: KeyPreview,
    project_id: Type.String(),
    environment: EnvironmentSchema,
    kind: ApiKeyKindSchema,
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
    kind: ApiKeyKindSchema,
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
    kind: Type.Optional(
      Literals(API_KEY_KINDS, {
        default: 'secret',
        description:
          '`secret` (default) or `public`: a key to ship in a browser or an app, that may only send feedback scores.',
      }),
    ),
  },
  { examples: [createApiKeyInputExample] },
)
export type CreateApiKeyInput = Static<typeof CreateApiKeyInput>

// DELETE /api-keys/{key_id}
export const ApiKeyParams = Type.Object({ key_id: Type.String() })
