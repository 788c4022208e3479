// Ingest normalization (docs/api.md, Normalization): aliases, status words, retry and status inference, timestamps, fallbacks.
import t from 'tap'
import type { Step, StepInput } from '../../schemas/step.js'
import type { TraceInput } from '../../schemas/trace.js'
import {
  InvalidTimestampError,
  inferRetryCount,
  inferStatus,
  normalizeStep,
  normalizeTrace,
  stepTreeError,
} from '../../src/ingest/normalize.js'
import { fullStep, fullTrace } from '../fixtures/traces.js'

// 2026-11-21T13:45:00.000Z, worked out independently with `date -u -d '2026-11-21T13:45:00Z' +%s`.
const NOW = 1_795_268_700_000
const NOW_ISO = '2026-11-21T13:45:00.000Z'
const ctx = { project_id: 'acme', environment: 'staging' as const }
const opts = { now: NOW, newId: () => 'generated-id' }
const trace = (input: Partial<TraceInput> & Record<string, unknown>) =>
  normalizeTrace({ prompt: 'hi', ...input } as TraceInput, ctx, opts)

/** A fully normalized step written out by hand, so status/retry tests do not depend on normalizeStep. */
let nextIndex = 0
function step(fields: Partial<Step>): Step {
  return fullStep({ index: nextIndex++, name: fields.tool ?? 'llm', type: fields.tool ? 'tool' : 'llm', ...fields })
}
/** Steps in order, with indexes 0..n-1. */
function steps(...fields: Partial<Step>[]): Step[] {
  nextIndex = 0
  return fields.map(step)
}
const ok = (tool: string): Partial<Step> => ({ tool, status: 'success' })
const bad = (tool: string | null, error: string | null = null): Partial<Step> => ({ tool, status: 'failed', error })

t.test('every step alias folds onto its canonical field', async (t) => {
  const cases: [StepInput, keyof Step, unknown][] = [
    [{ tool_name: 'search' }, 'tool', 'search'],
    [{ duration: 12 }, 'latency', 12],
    [{ duration_ms: 13 }, 'latency', 13],
    [{ latency_ms: 14 }, 'latency', 14],
    [{ tokens: 21 }, 'token_count', 21],
    [{ total_tokens: 22 }, 'token_count', 22],
    [{ tool: 'search' }, 'tool', 'search'],
    [{ latency: 11 }, 'latency', 11],
    [{ token_count: 20 }, 'token_count', 20],
  ]
  for (const [input, field, expected] of cases) {
    t.equal(normalizeStep(input, 0)[field], expected, `${JSON.stringify(input)} → ${field} ${expected}`)
  }
})

t.test('the canonical step field wins over its aliases, and a null canonical falls through', async (t) => {
  const cases: [StepInput, keyof Step, unknown][] = [
    [{ tool: 'canonical', tool_name: 'alias' }, 'tool', 'canonical'],
    [{ tool: null, tool_name: 'alias' }, 'tool', 'alias'],
    [{ tool: '', tool_name: 'alias' }, 'tool', 'alias'],
    [{ latency: 1, duration: 2, duration_ms: 3, latency_ms: 4 }, 'latency', 1],
    [{ duration_ms: 3, latency: 1 }, 'latency', 1],
    [{ latency_ms: 4, latency: 1 }, 'latency', 1],
    [{ latency: null, latency_ms: 4 }, 'latency', 4],
    [{ latency: 0, duration: 9 }, 'latency', 0],
    [{ token_count: 5, tokens: 6, total_tokens: 7 }, 'token_count', 5],
    [{ total_tokens: 7, token_count: 5 }, 'token_count', 5],
    [{ token_count: null, total_tokens: 7 }, 'token_count', 7],
    [{ token_count: 0, tokens: 6 }, 'token_count', 0],
  ]
  for (const [input, field, expected] of cases) {
    t.equal(normalizeStep(input, 0)[field], expected, `${JSON.stringify(input)} → ${field} ${expected}`)
  }
})

t.test('step status words map to success or failed, case-insensitively', async (t) => {
  const cases: [string, Step['status']][] = [
    ['failed', 'failed'],
    ['error', 'failed'],
    ['failure', 'failed'],
    ['fail', 'failed'],
    ['errored', 'failed'],
    ['ERROR', 'failed'],
    ['Failed', 'failed'],
    [' Errored ', 'failed'],
    ['success', 'success'],
    ['ok', 'success'],
    ['completed', 'success'],
    ['done', 'success'],
    ['OK', 'success'],
    ['Completed', 'success'],
    ['DONE', 'success'],
  ]
  for (const [word, expected] of cases) {
    t.equal(normalizeStep({ status: word }, 0).status, expected, `${JSON.stringify(word)} → ${expected}`)
  }
})

t.test('a missing, null or unknown step status is success, or failed when the step has an error', async (t) => {
  const cases: [StepInput, Step['status']][] = [
    [{}, 'success'],
    [{ status: null }, 'success'],
    [{ status: 'weird' }, 'success'],
    [{ status: '' }, 'success'],
    [{ error: 'boom' }, 'failed'],
    [{ status: null, error: 'boom' }, 'failed'],
    [{ status: 'weird', error: 'boom' }, 'failed'],
    [{ error: '' }, 'success'],
    [{ error: '   ' }, 'success'],
    [{ error: null }, 'success'],
    // An explicit word says how the step went, even next to an error message.
    [{ status: 'ok', error: 'retried internally' }, 'success'],
    [{ status: 'fail' }, 'failed'],
  ]
  for (const [input, expected] of cases) {
    t.equal(normalizeStep(input, 0).status, expected, `${JSON.stringify(input)} → ${expected}`)
  }
})

t.test('step type is lower-cased and an unknown type becomes other', async (t) => {
  const cases: [string | undefined, Step['type']][] = [
    ['llm', 'llm'],
    ['LLM', 'llm'],
    ['Tool', 'tool'],
    ['RETRIEVAL', 'retrieval'],
    ['function', 'function'],
    ['other', 'other'],
    ['Agent', 'agent'],
    ['planner', 'other'],
    ['', 'other'],
    [undefined, 'other'],
  ]
  for (const [type, expected] of cases) {
    t.equal(normalizeStep(type === undefined ? {} : { type }, 0).type, expected, `${type} → ${expected}`)
  }
})

t.test('a step without a type that names a tool is a tool call; an explicit type still wins', async (t) => {
  t.equal(normalizeStep({ tool: 'search' }, 0).type, 'tool')
  t.equal(normalizeStep({ tool_name: 'search' }, 0).type, 'tool')
  t.equal(normalizeStep({ tool: 'search', type: 'retrieval' }, 0).type, 'retrieval')
  t.equal(normalizeStep({ tool: 'search', type: 'agent' }, 0).type, 'agent')
  t.equal(normalizeStep({ tool: 'search', type: 'planner' }, 0).type, 'other')
  t.equal(normalizeStep({ tool: '  ' }, 0).type, 'other')
})

t.test('step name defaults to the tool, else the normalized type', async (t) => {
  const cases: [StepInput, string][] = [
    [{ name: 'plan', tool: 'search', type: 'tool' }, 'plan'],
    [{ tool: 'search', type: 'tool' }, 'search'],
    [{ tool_name: 'lookup' }, 'lookup'],
    [{ type: 'LLM' }, 'llm'],
    [{ type: 'agent' }, 'agent'],
    [{ type: 'planner' }, 'other'],
    [{}, 'other'],
    [{ name: '', type: 'retrieval' }, 'retrieval'],
  ]
  for (const [input, expected] of cases) {
    t.equal(normalizeStep(input, 0).name, expected, `${JSON.stringify(input)} → ${expected}`)
  }
})

t.test('a bare step gets every StepSchema field with its default and the given index', async (t) => {
  t.same(normalizeStep({}, 7), fullStep({ index: 7 }))
  t.strictSame(
    normalizeStep(
      {
        name: 'ask',
        type: 'llm',
        status: 'error',
        latency_ms: 5,
        tokens: 3,
        input: { q: 1 },
        output: 'x',
        error: 'rate limited',
        started_at: '2026-11-21T13:45:00.5Z',
        metadata: { a: 1 },
      },
      2,
    ),
    {
      index: 2,
      name: 'ask',
      type: 'llm',
      tool: null,
      status: 'failed',
      latency: 5,
      token_count: 3,
      cost: null,
      input: { q: 1 },
      output: 'x',
      error: 'rate limited',
      started_at: '2026-11-21T13:45:00.500Z',
      metadata: { a: 1 },
      parent_index: null,
    },
  )
  t.strictSame(normalizeStep({ metadata: null, input: null, output: null }, 0), normalizeStep({}, 0), 'nulls = absent')
})

t.test('step index is the position in the trace, whatever the client sent', async (t) => {
  const result = trace({ steps: [{ index: 9 }, { index: 9 }, {}] as StepInput[] })
  t.same(
    result.steps.map((s) => s.index),
    [0, 1, 2],
  )
})

t.test('timestamps in every accepted form become UTC ISO with Z and milliseconds', async (t) => {
  const cases: [string, string | number, string][] = [
    ['offset +02:00', '2026-11-21T15:45:00.123+02:00', '2026-11-21T13:45:00.123Z'],
    ['offset -0530', '2026-11-21T08:15:00-0530', '2026-11-21T13:45:00.000Z'],
    ['Z', '2026-11-21T13:45:00.123Z', '2026-11-21T13:45:00.123Z'],
    ['no zone = UTC', '2026-11-21T13:45:00', '2026-11-21T13:45:00.000Z'],
    ['no zone with ms', '2026-11-21T13:45:00.7', '2026-11-21T13:45:00.700Z'],
    ['epoch seconds', 1_795_268_700, '2026-11-21T13:45:00.000Z'],
    ['epoch seconds (other date)', 1_700_000_000, '2023-11-14T22:13:20.000Z'],
    ['epoch milliseconds', 1_795_268_700_123, '2026-11-21T13:45:00.123Z'],
  ]
  for (const [label, value, expected] of cases) {
    t.equal(trace({ created_at: value }).created_at, expected, `created_at ${label}`)
    t.equal(trace({ steps: [{ started_at: value }] }).steps[0]?.started_at, expected, `started_at ${label}`)
  }
})

t.test('a missing created_at is the server now; a missing started_at stays null', async (t) => {
  t.equal(trace({}).created_at, NOW_ISO)
  t.equal(trace({ created_at: null }).created_at, NOW_ISO)
  t.equal(trace({ steps: [{}] }).steps[0]?.started_at, null)
  t.equal(trace({ steps: [{ started_at: null }] }).steps[0]?.started_at, null)
})

t.test('an unparseable timestamp throws InvalidTimestampError naming the field path', async (t) => {
  const cases: [Partial<TraceInput>, string][] = [
    [{ created_at: 'yesterday' }, 'created_at'],
    [{ created_at: '2026-02-30T00:00:00Z' }, 'created_at'],
    [{ created_at: 1e20 }, 'created_at'],
    [{ steps: [{}, {}, {}, { started_at: 'not a date' }] }, 'steps/3/started_at'],
    [{ steps: [{ started_at: '2026-13-01' }] }, 'steps/0/started_at'],
  ]
  for (const [input, field] of cases) {
    t.throws(
      () => trace(input),
      { name: 'InvalidTimestampError', field, statusCode: 400 },
      `${JSON.stringify(input)} → ${field}`,
    )
  }
  const err = new InvalidTimestampError('steps/3/started_at')
  t.ok(err instanceof Error)
  t.match(err.message, /^steps\/3\/started_at /)
})

t.test('retry_count is the tool-naming steps minus the distinct tools', async (t) => {
  const cases: [string, Step[], number | null | undefined, number][] = [
    ['[search, search, search, answer] → 2', steps(ok('search'), ok('search'), ok('search'), ok('answer')), null, 2],
    ['distinct tools → 0', steps(ok('a'), ok('b'), ok('c')), null, 0],
    ['steps without tools do not count', steps({}, ok('a'), {}, ok('a'), {}), null, 1],
    ['failed attempts count like any other', steps(bad('a'), bad('a'), ok('a'), bad('b'), ok('b')), null, 3],
    ['no tools at all → 0', steps({}, {}), null, 0],
    ['steps present: client value ignored', steps(ok('a'), ok('b')), 5, 0],
    ['steps present: client value ignored (retry)', steps(ok('a'), ok('a')), 9, 1],
    ['no steps: client value kept', [], 3, 3],
    ['no steps: client 0', [], 0, 0],
    ['no steps: client null → 0', [], null, 0],
    ['no steps: client absent → 0', [], undefined, 0],
    ['no steps: negative client value → 0', [], -2, 0],
  ]
  for (const [label, input, client, expected] of cases) {
    t.equal(inferRetryCount(input, client), expected, label)
  }
})

t.test('status inference and failure_reason derivation', async (t) => {
  type Case = {
    label: string
    steps: Step[]
    retry_count?: number
    client_status?: string | null
    failure_reason?: string | null
    expected: { status: string; failure_reason: string | null }
  }
  const success = { status: 'success', failure_reason: null }
  const warning = { status: 'warning', failure_reason: null }
  const failed = (failure_reason: string) => ({ status: 'failed', failure_reason })
  const cases: Case[] = [
    { label: 'no steps, nothing reported → success', steps: [], expected: success },
    { label: 'all steps succeeded once → success', steps: steps(ok('a'), ok('b'), {}), expected: success },
    {
      label: 'tool retried, last attempt succeeded → warning',
      steps: steps(bad('search', 'timeout'), bad('search', 'timeout'), ok('search'), ok('answer')),
      retry_count: 2,
      expected: warning,
    },
    {
      label: 'tool retried without failures → warning',
      steps: steps(ok('search'), ok('search'), ok('search'), ok('answer')),
      retry_count: 2,
      expected: warning,
    },
    {
      label: 'client retry_count on a step-less trace → warning',
      steps: [],
      retry_count: 1,
      expected: warning,
    },
    {
      label: 'a failed step that is neither last nor a tool → warning (recovered)',
      steps: steps({ status: 'failed', error: 'flaky' }, {}),
      expected: warning,
    },
    {
      label: 'tool retried, last attempt failed → failed with its error',
      steps: steps(ok('search'), bad('search', 'timeout'), ok('answer')),
      retry_count: 1,
      expected: failed('timeout'),
    },
    {
      label: 'last step failed → failed with its error',
      steps: steps(ok('search'), { status: 'failed', error: 'context length exceeded' }),
      expected: failed('context length exceeded'),
    },
    {
      label: 'last step failed without error → step name',
      steps: steps(ok('search'), { name: 'summarize', status: 'failed' }),
      expected: failed("step 'summarize' failed"),
    },
    {
      label: "tool's failed last attempt without error → step name",
      steps: steps(bad('search'), ok('answer')),
      expected: failed("step 'search' failed"),
    },
    {
      label: 'the last step is preferred over an earlier unrecovered tool',
      steps: steps(bad('search', 'search down'), bad('answer', 'answer down')),
      expected: failed('answer down'),
    },
    {
      label: 'the last step is preferred even when it has no tool',
      steps: steps(bad('search', 'search down'), { name: 'final', status: 'failed', error: 'final down' }),
      expected: failed('final down'),
    },
    {
      label: 'the latest unrecovered tool is blamed when the last step succeeded',
      steps: steps(bad('a', 'A down'), bad('b', 'B down'), ok('c')),
      expected: failed('B down'),
    },
    {
      label: 'ordered by the unrecovered step, not by first use of the tool',
      steps: steps(bad('b', 'B first'), bad('a', 'A down'), bad('b', 'B again'), ok('c')),
      retry_count: 1,
      expected: failed('B again'),
    },
    {
      label: 'client failure_reason alone → failed with that reason',
      steps: steps(ok('a')),
      failure_reason: 'user aborted',
      expected: failed('user aborted'),
    },
    {
      label: 'client failure_reason wins over the failing step error',
      steps: steps(bad('a', 'A down')),
      failure_reason: 'upstream outage',
      expected: failed('upstream outage'),
    },
    {
      label: 'whitespace-only failure_reason counts as empty → success',
      steps: steps(ok('a')),
      failure_reason: '   ',
      expected: success,
    },
    {
      label: 'empty failure_reason counts as empty → success',
      steps: [],
      failure_reason: '',
      expected: success,
    },
    {
      label: 'whitespace-only failure_reason with a failing step → step error',
      steps: steps(bad('a', 'A down')),
      failure_reason: ' \n',
      expected: failed('A down'),
    },
    {
      label: 'client status failed → failed, reported by client',
      steps: [],
      client_status: 'failed',
      expected: failed('reported as failed by client'),
    },
    {
      label: 'client status ERROR (any case) → failed, reported by client',
      steps: steps(ok('a')),
      client_status: 'ERROR',
      expected: failed('reported as failed by client'),
    },
    {
      label: 'client status failed with only a recovered failure → reported by client',
      steps: steps(bad('a', 'blip'), ok('a')),
      retry_count: 1,
      client_status: 'Failed',
      expected: failed('reported as failed by client'),
    },
    {
      label: 'client status failed with a failing step → the step error',
      steps: steps(bad('a', 'A down')),
      client_status: 'failed',
      expected: failed('A down'),
    },
    {
      label: 'client status failed with a failure_reason → that reason',
      steps: [],
      client_status: 'error',
      failure_reason: 'quota exceeded',
      expected: failed('quota exceeded'),
    },
    {
      label: 'client status success is ignored when the last step failed',
      steps: steps(ok('a'), bad('b', 'B down')),
      client_status: 'success',
      expected: failed('B down'),
    },
    {
      label: 'client status success is ignored when a tool was retried',
      steps: steps(ok('a'), ok('a')),
      retry_count: 1,
      client_status: 'success',
      expected: warning,
    },
    { label: 'client status warning is ignored', steps: steps(ok('a')), client_status: 'warning', expected: success },
    { label: 'client status ok is ignored', steps: [], client_status: 'ok', expected: success },
    { label: 'client status failure is not read', steps: [], client_status: 'failure', expected: success },
    { label: 'client status null is ignored', steps: [], client_status: null, expected: success },
  ]
  for (const c of cases) {
    t.same(
      inferStatus({
        steps: c.steps,
        retry_count: c.retry_count ?? 0,
        client_status: c.client_status,
        failure_reason: c.failure_reason,
      }),
      c.expected,
      c.label,
    )
  }
})

t.test('example trace: search ×3 then answer is a warning with 2 retries', async (t) => {
  const result = trace({
    status: 'success',
    steps: [
      { tool: 'search', status: 'error', error: 'timeout' },
      { tool_name: 'search', status: 'fail' },
      { tool: 'search', status: 'ok' },
      { tool: 'answer', status: 'done' },
    ],
  })
  t.equal(result.retry_count, 2)
  t.equal(result.status, 'warning')
  t.equal(result.failure_reason, null)
})

t.test('example trace: the last search attempt failed, so the trace failed', async (t) => {
  const result = trace({
    steps: [
      { tool: 'search', status: 'ok' },
      { tool: 'search', status: 'ok' },
      { tool: 'search', error: 'index unavailable' },
      { tool: 'answer', status: 'completed' },
    ],
  })
  t.equal(result.retry_count, 2)
  t.equal(result.status, 'failed')
  t.equal(result.failure_reason, 'index unavailable')
})

t.test('a step-less trace keeps the client retry_count and its status follows it', async (t) => {
  t.match(trace({ retry_count: 3 }), { retry_count: 3, status: 'warning' })
  t.match(trace({ retry_count: 3, steps: [{ tool: 'a' }] }), { retry_count: 0, status: 'success' })
})

t.test('trace latency: given, aliased, or the sum of step latencies, else 0', async (t) => {
  const cases: [string, Partial<TraceInput>, number][] = [
    ['latency given', { latency: 120, steps: [{ latency: 5 }] }, 120],
    ['latency 0 is kept', { latency: 0, steps: [{ latency: 5 }] }, 0],
    ['latency_ms alias', { latency_ms: 130 }, 130],
    ['duration_ms alias', { duration_ms: 140 }, 140],
    ['latency wins over aliases', { latency: 1, latency_ms: 2, duration_ms: 3 }, 1],
    ['null latency falls through to alias', { latency: null, duration_ms: 3 }, 3],
    [
      'sum of non-null step latencies, aliases included',
      { steps: [{ latency: 10 }, { duration: 20.5 }, {}, { latency_ms: 4 }, { latency: null }] },
      34.5,
    ],
    ['steps without latencies → 0', { steps: [{}, {}] }, 0],
    ['no steps → 0', {}, 0],
  ]
  for (const [label, input, expected] of cases) t.equal(trace(input).latency, expected, label)
})

t.test('trace token_count: given, aliased, prompt + completion, step sum, else 0', async (t) => {
  const cases: [string, Partial<TraceInput>, number][] = [
    ['token_count given', { token_count: 50, prompt_tokens: 1, completion_tokens: 2, steps: [{ tokens: 7 }] }, 50],
    ['token_count 0 is kept', { token_count: 0, prompt_tokens: 1 }, 0],
    ['total_tokens alias', { total_tokens: 60 }, 60],
    ['token_count wins over total_tokens', { token_count: 5, total_tokens: 6 }, 5],
    ['prompt + completion', { prompt_tokens: 30, completion_tokens: 12, steps: [{ tokens: 7 }] }, 42],
    ['prompt only', { prompt_tokens: 30, steps: [{ tokens: 7 }] }, 30],
    ['completion only', { completion_tokens: 12, prompt_tokens: null }, 12],
    [
      'sum of non-null step token counts, aliases included',
      { steps: [{ token_count: 3 }, { tokens: 4 }, { total_tokens: 5 }, {}, { token_count: null }] },
      12,
    ],
    ['steps without token counts → 0', { steps: [{}] }, 0],
    ['nothing → 0', {}, 0],
  ]
  for (const [label, input, expected] of cases) t.equal(trace(input).token_count, expected, label)
})

t.test(
  'tokens_reported: whether anything reported a count, so that an unknown count is not read as zero',
  async (t) => {
    const cases: [string, Partial<TraceInput>, boolean][] = [
      ['token_count 0 is a count', { token_count: 0 }, true],
      ['total_tokens alias', { total_tokens: 3 }, true],
      ['prompt_tokens alone', { prompt_tokens: 0 }, true],
      ['completion_tokens alone', { completion_tokens: 2 }, true],
      ['a step that counted', { steps: [{}, { tokens: 0 }] }, true],
      ['steps that counted nothing', { steps: [{}, { token_count: null }] }, false],
      ['nulls everywhere', { token_count: null, prompt_tokens: null, completion_tokens: null }, false],
      ['nothing', {}, false],
    ]
    for (const [label, input, expected] of cases) {
      const result = trace(input)
      t.equal(result.tokens_reported, expected, label)
      if (!expected) t.equal(result.token_count, 0, `${label}: token_count stays 0`)
    }
  },
)

t.test('project_id and environment come from ctx, never from the body', async (t) => {
  const result = trace({ project_id: 'someone-else', environment: 'production' })
  t.equal(result.project_id, 'acme')
  t.equal(result.environment, 'staging')
})

t.test('a minimal trace gets every TraceSchema field with its default', async (t) => {
  t.strictSame(
    normalizeTrace({ prompt: '' }, ctx, opts),
    fullTrace({ trace_id: 'generated-id', environment: 'staging', created_at: NOW_ISO }),
  )
})

t.test('a full trace keeps the client fields and drops unknown ones', async (t) => {
  let calls = 0
  const result = normalizeTrace(
    {
      trace_id: 'tr-1',
      name: 'chat',
      model: 'gpt-x',
      prompt: 'q',
      response: 'a',
      prompt_tokens: 3,
      completion_tokens: 4,
      session_id: 's1',
      user_id: 'u1',
      tags: ['x'],
      metadata: { k: 'v' },
      created_at: '2026-11-21T13:45:00Z',
      steps: null,
      extra: 'dropped',
    } as TraceInput,
    ctx,
    {
      now: NOW,
      newId: () => {
        calls++
        return 'unused'
      },
    },
  )
  t.strictSame(
    result,
    fullTrace({
      trace_id: 'tr-1',
      environment: 'staging',
      name: 'chat',
      model: 'gpt-x',
      prompt: 'q',
      response: 'a',
      token_count: 7,
      prompt_tokens: 3,
      completion_tokens: 4,
      tokens_reported: true,
      session_id: 's1',
      user_id: 'u1',
      tags: ['x'],
      metadata: { k: 'v' },
    }),
  )
  t.equal(calls, 0, 'no id is generated when the client sent one')
})

t.test('null tags and metadata become [] and {}', async (t) => {
  t.match(trace({ tags: null, metadata: null }), { tags: [], metadata: {} })
})

t.test('normalizeTrace does not modify its input', async (t) => {
  const input: TraceInput = {
    prompt: 'p',
    steps: [{ tool_name: 'a', duration: 3, status: 'OK' }],
  }
  const copy = structuredClone(input)
  trace(input)
  t.strictSame(input, copy)
})

t.test('parent_index is kept as sent (null when missing): steps nest into a tree', async (t) => {
  const out = trace({ steps: [{ name: 'a' }, { name: 'b', parent_index: 0 }, { name: 'c', parent_index: null }] })
  t.same(
    out.steps.map((s) => s.parent_index),
    [null, 0, null],
  )
})

t.test('stepTreeError: a parent must be another step of the trace, without cycles', async (t) => {
  const of = (...parents: (number | null)[]) => stepTreeError(parents.map((parent_index) => ({ parent_index })))
  const cases: [string, (number | null)[], { field: string; message: string } | null][] = [
    ['no steps', [], null],
    ['all top level', [null, null], null],
    ['a chain', [null, 0, 1, 2], null],
    ['a parent listed after its child', [1, null, 0], null],
    [
      'out of range',
      [null, 5],
      { field: 'steps/1/parent_index', message: 'must be the index of another step of this trace (0 to 1)' },
    ],
    [
      'itself',
      [null, 1],
      { field: 'steps/1/parent_index', message: 'must be the index of another step of this trace (0 to 1)' },
    ],
    ['a two-step cycle', [1, 0], { field: 'steps/1/parent_index', message: 'must not make a cycle of parents' }],
    [
      'a cycle below a sound chain',
      [null, 0, 3, 4, 2],
      { field: 'steps/4/parent_index', message: 'must not make a cycle of parents' },
    ],
  ]
  for (const [what, parents, expected] of cases) t.same(of(...parents), expected, what)
})
