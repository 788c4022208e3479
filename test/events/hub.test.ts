// The in-process event hub: fan-out to every listener, unsubscribe, and isolation from a throwing listener.
import t from 'tap'
import type { Trace } from '../../schemas/index.js'
import { createEventHub } from '../../src/events/hub.js'

const trace = (id: string) => ({ trace_id: id, project_id: 'p' }) as Trace

t.test('publish delivers the traces to every listener, in subscription order', async (t) => {
  const hub = createEventHub()
  const seen: string[] = []
  hub.subscribe((traces) => seen.push(`a:${traces.map((tr) => tr.trace_id).join(',')}`))
  hub.subscribe((traces) => seen.push(`b:${traces.map((tr) => tr.trace_id).join(',')}`))
  hub.subscribe((traces) => seen.push(`c:${traces.map((tr) => tr.trace_id).join(',')}`))
  t.equal(hub.listenerCount, 3)
  hub.publish([trace('1')])
  hub.publish([trace('2'), trace('3')])
  t.strictSame(seen, ['a:1', 'b:1', 'c:1', 'a:2,3', 'b:2,3', 'c:2,3'])
})

t.test('every listener receives the very same list', async (t) => {
  const hub = createEventHub()
  const lists: (readonly Trace[])[] = []
  hub.subscribe((traces) => lists.push(traces))
  hub.subscribe((traces) => lists.push(traces))
  const published = [trace('x')]
  hub.publish(published)
  t.equal(lists.length, 2)
  t.equal(lists[0], published)
  t.equal(lists[1], published)
})

t.test('publishing nothing calls no listener', async (t) => {
  const hub = createEventHub()
  let calls = 0
  hub.subscribe(() => calls++)
  hub.publish([])
  t.equal(calls, 0)
})

t.test('publish with no listener is harmless', async (t) => {
  const hub = createEventHub()
  t.equal(hub.listenerCount, 0)
  t.doesNotThrow(() => hub.publish([trace('1')]))
})

t.test('the function subscribe returns stops that listener only', async (t) => {
  const hub = createEventHub()
  const seen: string[] = []
  const stopA = hub.subscribe((traces) => seen.push(`a:${traces[0]!.trace_id}`))
  hub.subscribe((traces) => seen.push(`b:${traces[0]!.trace_id}`))
  hub.publish([trace('1')])
  stopA()
  t.equal(hub.listenerCount, 1)
  hub.publish([trace('2')])
  stopA() // a second call changes nothing
  t.equal(hub.listenerCount, 1)
  hub.publish([trace('3')])
  t.strictSame(seen, ['a:1', 'b:1', 'b:2', 'b:3'])
})

t.test('a listener may unsubscribe itself while being called', async (t) => {
  const hub = createEventHub()
  const seen: string[] = []
  const stop = hub.subscribe((traces) => {
    seen.push(`once:${traces[0]!.trace_id}`)
    stop()
  })
  hub.subscribe((traces) => seen.push(`always:${traces[0]!.trace_id}`))
  hub.publish([trace('1')])
  hub.publish([trace('2')])
  t.strictSame(seen, ['once:1', 'always:1', 'always:2'])
  t.equal(hub.listenerCount, 1)
})

t.test('a throwing listener does not stop the others, and its error is reported', async (t) => {
  const errors: unknown[] = []
  const hub = createEventHub((err) => errors.push(err))
  const seen: string[] = []
  hub.subscribe((traces) => seen.push(`before:${traces[0]!.trace_id}`))
  hub.subscribe(() => {
    throw new Error('listener broke')
  })
  hub.subscribe((traces) => seen.push(`after:${traces[0]!.trace_id}`))
  t.doesNotThrow(() => hub.publish([trace('1')]), 'publish itself does not throw')
  t.doesNotThrow(() => hub.publish([trace('2')]))
  t.strictSame(seen, ['before:1', 'after:1', 'before:2', 'after:2'])
  t.equal(errors.length, 2)
  t.match(errors[0], { message: 'listener broke' })
})

t.test('without an error callback a throwing listener is still contained', async (t) => {
  const hub = createEventHub()
  let after = 0
  hub.subscribe(() => {
    throw new Error('boom')
  })
  hub.subscribe(() => after++)
  t.doesNotThrow(() => hub.publish([trace('1')]))
  t.equal(after, 1)
})

t.test('two hubs share nothing', async (t) => {
  const one = createEventHub()
  const two = createEventHub()
  let calls = 0
  one.subscribe(() => calls++)
  two.publish([trace('1')])
  t.equal(calls, 0)
  t.equal(two.listenerCount, 0)
})
