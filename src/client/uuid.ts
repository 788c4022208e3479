// UUIDv7 from node:crypto alone: the SDK names each trace itself, so a batch re-sent after a lost answer is
// recognised by the server (idempotent on trace_id) instead of being stored twice.
import { randomFillSync } from 'node:crypto'

// Ids made in the same millisecond count up in their 12 `rand_a` bits (RFC 9562 §6.2, method 1), so traces
// recorded one after another sort in that order (the server lists by created_at, then trace_id). This is the one
// piece of module state in the SDK: every client in the process must draw from the same sequence.
let lastMs = -1
let counter = 0

/** A RFC 9562 version 7 UUID: 48 bits of Unix milliseconds, a 12-bit sequence, then 62 random bits. */
export function uuidv7(now: number = Date.now()): string {
  const bytes = randomFillSync(Buffer.alloc(16))
  if (now > lastMs) {
    lastMs = now
    counter = bytes.readUInt16BE(6) & 0x7ff // a random start that leaves room to count up
  } else if (++counter > 0xfff) {
    lastMs++ // the sequence ran out: borrow the next millisecond
    counter = 0
  }
  bytes.writeUIntBE(lastMs, 0, 6)
  bytes.writeUInt16BE(0x7000 | counter, 6)
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
