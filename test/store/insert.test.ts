// What storing traces answers, entry by entry of one batch: created, exists (the same id again, for its own project)
// or conflict (an id another project holds), whichever entry of the batch names the id first.
import t from 'tap'
import type { Trace } from '../../schemas/trace.js'
import { normalizeTrace } from '../../src/ingest/normalize.js'
import { unreported } from '../../src/store/reported-cost.js'
import { createTestStore } from '../helper.js'

const NOW = Date.parse('2026-11-20T12:00:00.000Z')
const trace = (trace_id: string, project_id: string, prompt: string): Trace =>
  normalizeTrace({ trace_id, prompt }, { project_id, environment: 'production' }, { now: NOW, newId: () => 'unused' })

t.test(
  'an id stored for one project: its entry in a later batch is a re-send even behind another project’s',
  async (t) => {
    const store = await createTestStore(t)
    t.same(
      (await store.traces.insert([unreported(trace('dup', 'acme', 'first'))])).map((o) => o.kind),
      ['created'],
    )
    const outcomes = await store.traces.insert(
      [trace('dup', 'globex', 'globex'), trace('b-1', 'acme', 'b'), trace('dup', 'acme', 'again')].map(unreported),
    )
    t.same(
      outcomes.map((o) => o.kind),
      ['conflict', 'created', 'exists'],
      'another project’s copy is a conflict, the owner’s copy behind it a re-send',
    )
    const again = outcomes[2]
    t.equal(again?.kind === 'exists' ? again.trace.prompt : null, 'first', 'answered with the stored trace')
    t.equal((await store.traces.get('dup'))?.project_id, 'acme')
  },
)

t.test(
  'within one batch, the first entry of an id is stored and the later ones answer as re-sends or conflicts',
  async (t) => {
    const store = await createTestStore(t)
    const outcomes = await store.traces.insert(
      [trace('x', 'globex', 'one'), trace('x', 'acme', 'two'), trace('x', 'globex', 'three')].map(unreported),
    )
    t.same(
      outcomes.map((o) => o.kind),
      ['created', 'conflict', 'exists'],
    )
    const third = outcomes[2]
    t.equal(third?.kind === 'exists' ? third.trace.prompt : null, 'one')
  },
)
