// What `loupe.trace()` records, read back from a real server: fields, steps, tokens, response and failures.
import t, { type Test } from 'tap'
import { TraceSchema } from '../../schemas/index.js'
import { Loupe, type Trace } from '../../src/client/index.js'
import { tokenFields } from '../../src/client/recorder.js'
import { createProject, schemaErrors, startTestServer } from '../helper.js'

async function setup(t: Test) {
  const { app, url } = await startTestServer(t)
  const { key, project_id } = await createProject(app, 'Recorder')
  const warnings: string[] = []
  const loupe = new Loupe({ baseUrl: url, apiKey: key, onWarning: (m) => warnings.push(m) })
  t.teardown(() => loupe.shutdown({ timeoutMs: 1000 }))
  const stored = async (id: string): Promise<Trace> => {
    t.equal(await loupe.flush({ timeoutMs: 5000 }), true, 'flushed')
    const res = await app.inject(`/traces/${id}`)
    t.equal(res.statusCode, 200)
    t.same(schemaErrors(TraceSchema, res.json()), [])
    return res.json()
  }
  return { app, loupe, project_id, warnings, stored }
}

t.test('a trace records its options, latency, return value, tokens and steps', async (t) => {
  const { loupe, project_id, stored } = await setup(t)
  let id = ''
  const result = await loupe.trace(
    {
      name: 'answer_question',
      model: 'gpt-4o',
      prompt: 'Where is my order?',
      sessionId: 's-1',
      userId: 'u-1',
      tags: ['support'],
      metadata: { plan: 'pro' },
    },
    async (tr) => {
      id = tr.traceId
      const hits = await tr.step(
        { name: 'lookup', type: 'tool', tool: 'order_lookup', input: { id: 7 } },
        async (s) => {
          await new Promise((resolve) => setTimeout(resolve, 20))
          s.setMetadata({ cache: 'miss' })
          return { status: 'shipped' }
        },
      )
      await tr.step({ name: 'compose', type: 'llm' }, (s) => s.setTokens({ prompt_tokens: 30, completion_tokens: 12 }))
      tr.setTokens({ promptTokens: 42, completionTokens: 12 })
      tr.setMetadata({ region: 'eu' })
      return `It is ${hits.status}.`
    },
  )
  t.equal(result, 'It is shipped.', 'trace() resolves to what the callback returns')
  const trace = await stored(id)
  t.match(trace, {
    trace_id: id,
    project_id,
    name: 'answer_question',
    model: 'gpt-4o',
    prompt: 'Where is my order?',
    response: 'It is shipped.',
    session_id: 's-1',
    user_id: 'u-1',
    tags: ['support'],
    metadata: { plan: 'pro', region: 'eu' },
    prompt_tokens: 42,
    completion_tokens: 12,
    token_count: 54,
    status: 'success',
    failure_reason: null,
    retry_count: 0,
  })
  t.ok(trace.latency >= 20, `latency ${trace.latency} ms covers the awaited step`)
  t.equal(trace.steps.length, 2)
  t.match(trace.steps[0], {
    index: 0,
    name: 'lookup',
    type: 'tool',
    tool: 'order_lookup',
    status: 'success',
    input: { id: 7 },
    output: { status: 'shipped' },
    metadata: { cache: 'miss' },
  })
  t.ok((trace.steps[0]?.latency ?? 0) >= 15, 'the step latency is measured')
  t.match(trace.steps[1], { name: 'compose', type: 'llm', token_count: 42 })
})

t.test('a thrown error is rethrown unchanged and recorded as the failure reason', async (t) => {
  const { loupe, stored } = await setup(t)
  const boom = new Error('the model timed out')
  let id = ''
  await t.rejects(
    loupe.trace({ name: 'fails', prompt: 'p' }, (tr) => {
      id = tr.traceId
      throw boom
    }),
    boom,
  )
  t.match(await stored(id), { status: 'failed', failure_reason: 'the model timed out', response: null })
})

t.test('a failed tool step that is retried makes a warning; setFailure fails without throwing', async (t) => {
  const { loupe, stored } = await setup(t)
  const ids: string[] = []
  await loupe.trace({ prompt: 'retry' }, async (tr) => {
    ids.push(tr.traceId)
    await t.rejects(
      tr.step({ type: 'tool', tool: 'search' }, () => {
        throw new Error('rate limited')
      }),
      /rate limited/,
    )
    await tr.step({ type: 'tool', tool: 'search' }, () => 'found')
  })
  await loupe.trace({ prompt: 'soft failure' }, (tr) => {
    ids.push(tr.traceId)
    tr.setFailure('content filter')
    return 'refused'
  })
  const retried = await stored(ids[0]!)
  t.match(retried, { status: 'warning', retry_count: 1 })
  t.match(retried.steps[0], { status: 'failed', error: 'rate limited', tool: 'search', name: 'search' })
  t.match(await stored(ids[1]!), { status: 'failed', failure_reason: 'content filter', response: 'refused' })
})

t.test('non-string results, setResponse, setModel and odd values are recorded as JSON, never thrown', async (t) => {
  const { loupe, stored, warnings } = await setup(t)
  const ids: string[] = []
  const cyclic: Record<string, unknown> = { answer: 42 }
  cyclic.self = cyclic
  await loupe.trace({ prompt: 'object' }, (tr) => {
    ids.push(tr.traceId)
    return { answer: 42, big: 10n }
  })
  await loupe.trace({ prompt: 'explicit', model: 'draft' }, async (tr) => {
    ids.push(tr.traceId)
    tr.setModel('gpt-4o-mini')
    tr.setResponse('the real answer')
    await tr.step({ name: 'cyclic' }, () => cyclic)
    return { ignored: true }
  })
  t.match(await stored(ids[0]!), { response: '{"answer":42,"big":"10"}' })
  const explicit = await stored(ids[1]!)
  t.match(explicit, { response: 'the real answer', model: 'gpt-4o-mini' })
  t.same(explicit.steps[0]?.output, { answer: 42, self: '[Circular]' })
  t.same(warnings, [])
})

t.test('text over the contract limit is cut rather than rejected; a given traceId is kept', async (t) => {
  const { loupe, stored } = await setup(t)
  await loupe.trace({ traceId: 'my-own-id.1', prompt: 'x'.repeat(300 * 1024), tags: ['t'.repeat(100)] }, () => 'ok')
  const trace = await stored('my-own-id.1')
  t.equal(Buffer.byteLength(trace.prompt), 256 * 1024)
  t.equal(trace.tags[0]?.length, 64)
})

t.test('token counts are read from every common shape', async (t) => {
  t.same(tokenFields(7), { total: 7 })
  t.same(tokenFields({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }), {
    prompt_tokens: 1,
    completion_tokens: 2,
    total: 3,
  })
  t.same(tokenFields({ promptTokens: 4, completionTokens: 5 }), {
    prompt_tokens: 4,
    completion_tokens: 5,
    total: undefined,
  })
  t.same(tokenFields({ input_tokens: 6, output_tokens: 7 }), {
    prompt_tokens: 6,
    completion_tokens: 7,
    total: undefined,
  })
  t.same(tokenFields(-1), { total: undefined }, 'invalid counts are left out, not sent')
})
