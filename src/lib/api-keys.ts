// API key secrets (CONTRACT §3): `loupe_sk_` + 32 characters of [A-Za-z0-9] from a CSPRNG.
// The service keeps only the SHA-256 hex hash and the masked preview, never the secret.
import { createHash, randomInt } from 'node:crypto'
import { KEY_PREFIX, KEY_RANDOM_LENGTH } from '../../schemas/index.js'

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** A new secret: `loupe_sk_` + 32 uniformly chosen characters of [A-Za-z0-9] (crypto.randomInt, no modulo bias). */
export function generateApiKey(): string {
  let body = ''
  for (let i = 0; i < KEY_RANDOM_LENGTH; i++) body += ALPHABET[randomInt(ALPHABET.length)]
  return KEY_PREFIX + body
}

/** SHA-256 of the whole key (prefix included), lower-case hex: what the store looks keys up by. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex')
}

/** `loupe_sk_` + first 4 + `…` + last 4 random characters, e.g. `loupe_sk_Ab3x…9QzK`. */
export function previewApiKey(key: string): string {
  const body = key.startsWith(KEY_PREFIX) ? key.slice(KEY_PREFIX.length) : key
  return `${KEY_PREFIX}${body.slice(0, 4)}…${body.slice(-4)}`
}
