// Group commit, on the store under test: concurrent writes share transactions (counted at the store's write API),
// each is answered with its own outcome only after the commit, a trace the store refuses fails its own request and no
// other, and the events and rollups are what one transaction per request would have given.
import t from 'tap'
import type { Trace } from '../../schemas/index.js'
import { createGroupCommit } from '../../src/ingest/group-commit.js'
import { type PricedTrace, unreported } from '../../src/store/reported-cost.js'
import type { InsertOutcome, Store, TraceStore } from '../../src/store/types.js'
import { buildTestApp, countRows, createProject, createTestStore, postBatch, postTrace } from '../helper.js'

/** The store under test, with its trace inserts (one transaction each) recorded, and a trace it refuses. */
async function countingStore(t: Parameters<typeof createTestStore>[0], refuse?: string) {
  const store = await createTestStore(t)
  const calls: number[] = []
  const insert = store.traces.insert.bind(store.traces)
  const traces: TraceStore = Object.create(store.traces, {
    insert: {
      value: async (batch: PricedTrace[]): Promise<InsertOutcome[]> => {
        calls.push(batch.length)
        if (refuse !== undefined && batch.some(({ trace }) => trace.name === refuse)) {
          throw new Error(`the store refuses ${refuse}`)
        }
        return insert(batch)
      },
    },
  })
  const counted: Store = Object.create(store, { traces: { value: traces } })
  return { store: counted, raw: store, calls }
}

/** An app on the counting store, and the ids of the traces its hub announces, in order. */
async function countingApp(t: Parameters<typeof createTestStore>[0], refuse?: string) {
  const { store, raw, calls } = await countingStore(t, refuse)
  const app = await buildTestApp(t, { store })
  const events: string[] = []
  app.hub.subscribe((traces) => {
    for (const trace of traces) events.push(trace.trace_id)
  })
  return { app, store, raw, calls, events }
}

const REQUESTS = 20

t.test('concurrent single POST /traces share transactions, each answered with its own trace', async (t) => {
  const { app, raw, calls, events } = await countingApp(t)
  const { key } = await createProject(app, 'Acme')
  const replies = await Promise.all(
    Array.from({ length: REQUESTS }, (_, i) =>
      postTrace(app, key, { trace_id: `t-${i}`, prompt: `p ${i}`, model: i % 2 ? 'gpt-4o' : 'claude', latency: i }),
    ),
  )
  t.same(
    replies.map((r) => r.statusCode),
    Array(REQUESTS).fill(201),
  )
  t.same(
    replies.map((r) => r.json().trace_id),
    Array.from({ length: REQUESTS }, (_, i) => `t-${i}`),
    'each request is answered with its own trace',
  )
  t.ok(calls.length < REQUESTS, `${REQUESTS} requests took ${calls.length} transactions`)
  t.equal(
    calls.reduce((a, b) => a + b, 0),
    REQUESTS,
    'every trace went to the store once',
  )
  t.equal(await countRows(raw, 'traces'), REQUESTS)
  t.same([...events].sort(), replies.map((r) => r.json().trace_id).sort(), 'one event per stored trace')
  const { summary, model_breakdown } = await raw.traces.analytics({ now: Date.now(), slowThresholdMs: 5000 })
  t.equal(summary.total_traces, REQUESTS, 'the rollups count every trace once')
  t.same(
    model_breakdown.map((m) => [m.key, m.count]).sort(),
    [
      ['claude', REQUESTS / 2],
      ['gpt-4o', REQUESTS / 2],
    ],
    'per model, as a recount',
  )
})

t.test('duplicates and conflicts inside one group answer as they would one by one', async (t) => {
  const { app, store, calls, events } = await countingApp(t)
  const acme = await createProject(app, 'Acme')
  const globex = await createProject(app, 'Globex')
  const [first, again, foreign, batch] = await Promise.all([
    postTrace(app, acme.key, { trace_id: 'dup', prompt: 'first' }),
    postTrace(app, acme.key, { trace_id: 'dup', prompt: 'second' }),
    postTrace(app, globex.key, { trace_id: 'dup', prompt: 'globex' }),
    postBatch(app, acme.key, [
      { trace_id: 'b-1', prompt: 'b' },
      { trace_id: 'dup', prompt: 'third' },
    ]),
  ])
  t.ok(calls.length < 4, `4 requests took ${calls.length} transactions`)
  // The requests join the group once their keys are looked up, in an order concurrency does not fix: whichever one
  // stored `dup` owns it, and every other answers as it would have one by one after it.
  const stored = await store.traces.get('dup')
  const owner = stored!.project_id
  for (const [name, reply, project, prompt] of [
    ['first', first!, acme, 'first'],
    ['again', again!, acme, 'second'],
    ['foreign', foreign!, globex, 'globex'],
  ] as const) {
    if (project.project_id !== owner) {
      t.equal(reply.statusCode, 409, `${name}: another project's trace_id is a conflict`)
      continue
    }
    t.equal(reply.statusCode, stored!.prompt === prompt ? 201 : 200, `${name}: stored, or answered as a re-send`)
    t.equal(reply.json().prompt, stored!.prompt, `${name}: with the stored trace`)
  }
  t.equal(batch!.statusCode, 200)
  t.same(
    batch!.json().items,
    owner === acme.project_id
      ? [
          { trace_id: 'b-1', status: 'success' },
          { trace_id: 'dup', status: 'success' },
        ]
      : [{ trace_id: 'b-1', status: 'success' }],
    "the batch's copy of dup is a re-send in its own project, a conflict in another",
  )
  t.same(batch!.json().rejected.length, owner === acme.project_id ? 0 : 1)
  t.same(events.sort(), ['b-1', 'dup'], 'each new trace announced once')
})

t.test('a trace the store refuses fails its own request; the others in its group are stored', async (t) => {
  const { app, raw, calls, events } = await countingApp(t, 'poison')
  const { key } = await createProject(app, 'Acme')
  const replies = await Promise.all(
    Array.from({ length: REQUESTS }, (_, i) =>
      postTrace(app, key, { trace_id: `t-${i}`, name: i === 7 ? 'poison' : 'fine', prompt: `p ${i}` }),
    ),
  )
  t.ok(
    calls.some((n) => n > 1),
    'the poisoned trace was first tried in a group',
  )
  t.equal(replies[7]!.statusCode, 500, 'the refused trace fails')
  t.same(
    replies.filter((_, i) => i !== 7).map((r) => r.statusCode),
    Array(REQUESTS - 1).fill(201),
    'every other request is stored',
  )
  t.equal(await countRows(raw, 'traces'), REQUESTS - 1)
  t.equal((await app.inject('/traces/t-7')).statusCode, 404, 'nothing of the refused trace is stored')
  t.equal(events.length, REQUESTS - 1, 'and only the stored ones are announced')
  const { summary } = await raw.traces.analytics({ now: Date.now(), slowThresholdMs: 5000 })
  t.equal(summary.total_traces, REQUESTS - 1, 'the rollups count the stored traces only')
})

t.test('a group stays within its size; writes keep their order and their own outcomes', async (t) => {
  const calls: string[][] = []
  const store = {
    async insert(batch: PricedTrace[]): Promise<InsertOutcome[]> {
      calls.push(batch.map(({ trace }) => trace.trace_id))
      return batch.map(({ trace }) => ({ kind: 'created', trace }))
    },
  }
  const group = createGroupCommit(store, { maxTraces: 3 })
  const trace = (id: string) => unreported({ trace_id: id } as Trace)
  const results = await Promise.all([
    group.insertTraces([trace('a'), trace('b')]),
    group.insertTraces([trace('c')]),
    group.insertTraces([trace('d'), trace('e')]),
    group.insertTraces([trace('f'), trace('g'), trace('h'), trace('i')]),
    group.insertTraces([]),
  ])
  t.same(
    calls,
    [
      ['a', 'b', 'c'],
      ['d', 'e'],
      ['f', 'g', 'h', 'i'],
    ],
    'a write bigger than a group goes alone',
  )
  t.same(
    results.map((outcomes) => outcomes.map((o) => (o.kind === 'created' ? o.trace.trace_id : o.kind))),
    [['a', 'b'], ['c'], ['d', 'e'], ['f', 'g', 'h', 'i'], []],
  )
})
