// UUIDv7 from node:crypto alone: the SDK names each trace itself, so a batch re-sent after a lost answer is
// recognised by the server (idempotent on trace_id) instead of being stored twice.
import { randomFillSync } from 'node:crypto'

/** A RFC 9562 version 7 UUID: 48 bits of Unix milliseconds, then 74 random bits. */
export function uuidv7(now: number = Date.now()): string {
  const bytes = randomFillSync(Buffer.alloc(16))
  bytes.writeUIntBE(now, 0, 6)
  bytes[6] = (bytes[6]! & 0x0f) | 0x70
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
