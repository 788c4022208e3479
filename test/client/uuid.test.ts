// The SDK's own UUIDv7: the right version and variant, its time first, and no two alike.
import t from 'tap'
import { TRACE_ID_PATTERN } from '../../schemas/index.js'
import { uuidv7 } from '../../src/client/uuid.js'

t.test('a UUIDv7 has version 7, the RFC variant, and the time in its first 48 bits', async (t) => {
  const now = Date.UTC(2026, 10, 21, 13, 45, 0, 123)
  const id = uuidv7(now)
  t.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  t.equal(Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16), now)
  t.match(id, new RegExp(TRACE_ID_PATTERN), 'a valid trace_id')
})

t.test('ids are unique and sort in the order they were made, within a millisecond too', async (t) => {
  const ids = Array.from({ length: 10_000 }, () => uuidv7())
  t.equal(new Set(ids).size, ids.length)
  t.same([...ids].sort(), ids)
  const sameMs = Array.from({ length: 5000 }, () => uuidv7(Date.now() + 60_000))
  t.same([...sameMs].sort(), sameMs, 'past 4096 in one millisecond it borrows the next one')
  t.equal(new Set(sameMs).size, sameMs.length)
})
