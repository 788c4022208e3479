// Redaction detectors, table-driven: what each finds and what it must leave alone (dates, ids, plain numbers), the
// Luhn check, operator patterns, and the walk over a trace's and a span's free text.
import t from 'tap'
import { createRedactor, DETECTORS, luhn, redactSpan, redactTrace } from '../../src/ingest/redact.js'

const all = createRedactor({ detectors: DETECTORS, patterns: [] })!

t.test('off by default: no detector and no pattern redact nothing', async (t) => {
  t.equal(createRedactor({ detectors: [], patterns: [] }), null)
})

t.test('Luhn', async (t) => {
  t.ok(luhn('4111111111111111'))
  t.ok(luhn('378282246310005'))
  t.notOk(luhn('4111111111111112'))
})

const CASES: [string, string, string][] = [
  ['email', 'write to jane.doe+ops@example.co.uk today', 'write to [REDACTED:email] today'],
  ['card with spaces', 'card 4111 1111 1111 1111 ok', 'card [REDACTED:card] ok'],
  ['card with dashes', 'amex 3782-822463-10005.', 'amex [REDACTED:card].'],
  ['card failing Luhn is kept', 'order 4111 1111 1111 1112', 'order 4111 1111 1111 1112'],
  ['OpenAI-style key', 'key=sk-proj-abcdefghijklmnop1234', 'key=[REDACTED:api_key]'],
  ['Anthropic-style key', 'sk-ant-api03-AbCdEfGhIjKlMnOpQrSt', '[REDACTED:api_key]'],
  ['GitHub token', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', '[REDACTED:api_key]'],
  ['AWS key id', 'AKIAIOSFODNN7EXAMPLE', '[REDACTED:api_key]'],
  ['Loupe key', 'loupe_sk_abc123DEF', '[REDACTED:api_key]'],
  ['Loupe public key', 'loupe_pk_abc123DEF', '[REDACTED:api_key]'],
  ['Bearer header', 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz', 'Authorization: [REDACTED:api_key]'],
  ['US phone', 'call (555) 123-4567 now', 'call [REDACTED:phone] now'],
  ['international phone', 'tel +33 6 12 34 56 78', 'tel [REDACTED:phone]'],
  ['compact international phone', 'tel +33612345678', 'tel [REDACTED:phone]'],
  ['ISO date is not a phone', 'on 2026-11-23 at noon', 'on 2026-11-23 at noon'],
  ['version and decimals are kept', 'v1.2.3 costs 3.14159', 'v1.2.3 costs 3.14159'],
  ['a uuid is kept', '0192f4a1-7b3c-7def-8123-456789abcdef', '0192f4a1-7b3c-7def-8123-456789abcdef'],
  ['plain short numbers are kept', 'retry 3 of 10, 1200 tokens', 'retry 3 of 10, 1200 tokens'],
]

t.test('detectors: what each finds and what it leaves', async (t) => {
  for (const [what, input, expected] of CASES) t.equal(all(input), expected, what)
})

t.test('only the chosen detectors run; operator patterns replace with [REDACTED]', async (t) => {
  const emailOnly = createRedactor({ detectors: ['email'], patterns: ['ACME-\\d{6}'] })!
  t.equal(emailOnly('a@b.io, 4111 1111 1111 1111, ACME-123456'), '[REDACTED:email], 4111 1111 1111 1111, [REDACTED]')
})

t.test('a pattern that does not compile or matches nothing but the empty string is refused by name', async (t) => {
  t.throws(() => createRedactor({ detectors: [], patterns: ['ok', '(unclosed'] }), /REDACT_PATTERNS\[1\]/)
  t.throws(() => createRedactor({ detectors: [], patterns: ['x*'] }), /empty string/)
})

t.test('a trace: prompt, response, failure reason, metadata and step input/output/error/metadata', async (t) => {
  const step = {
    index: 0,
    name: 'lookup',
    type: 'tool' as const,
    tool: 'crm',
    status: 'failed' as const,
    latency: 1,
    token_count: null,
    cost: null,
    input: { who: 'bob@example.com', n: 4 },
    output: ['call +14155550123'],
    error: 'no account for bob@example.com',
    started_at: null,
    parent_index: null,
    metadata: { contact: 'bob@example.com' },
  }
  const trace = {
    trace_id: 'bob@example.com',
    project_id: 'p',
    environment: 'development' as const,
    name: 'n',
    model: null,
    prompt: 'mail bob@example.com',
    response: 'sent to bob@example.com',
    latency: 1,
    token_count: 0,
    tokens_reported: false,
    prompt_tokens: null,
    completion_tokens: null,
    cost: null,
    status: 'failed' as const,
    failure_reason: 'no account for bob@example.com',
    retry_count: 0,
    session_id: null,
    user_id: null,
    experiment_id: null,
    dataset_item_id: null,
    tags: [],
    metadata: { user: { email: 'bob@example.com' }, n: 1 },
    created_at: '2026-11-23T10:00:00.000Z',
    steps: [step],
  }
  const out = redactTrace(trace, all)
  t.equal(out.trace_id, 'bob@example.com', 'identifiers are not free text: kept')
  t.equal(out.prompt, 'mail [REDACTED:email]')
  t.equal(out.response, 'sent to [REDACTED:email]')
  t.equal(out.failure_reason, 'no account for [REDACTED:email]')
  t.same(out.metadata, { user: { email: '[REDACTED:email]' }, n: 1 })
  t.same(out.steps[0]?.input, { who: '[REDACTED:email]', n: 4 })
  t.same(out.steps[0]?.output, ['call [REDACTED:phone]'])
  t.equal(out.steps[0]?.error, 'no account for [REDACTED:email]')
  t.same(out.steps[0]?.metadata, { contact: '[REDACTED:email]' })
  t.equal(trace.prompt, 'mail bob@example.com', 'the input is not changed')
})

t.test('an OTLP span: attribute and event values and the status message', async (t) => {
  const span = redactSpan(
    {
      trace_id: 'a'.repeat(32),
      span_id: 'b'.repeat(16),
      parent_span_id: null,
      parent_is_remote: false,
      name: 'chat',
      kind: 1,
      start_ms: 0,
      end_ms: 1,
      attributes: { 'gen_ai.prompt': 'I am ann@example.org' },
      events: [{ name: 'e', time_ms: 0, attributes: { text: 'ann@example.org' } }],
      status_code: 2,
      status_message: 'bad key sk-live-abcdefghijklmnopqrstu',
      resource: {},
      scope: { name: 's', version: '' },
    },
    all,
  )
  t.same(span.attributes, { 'gen_ai.prompt': 'I am [REDACTED:email]' })
  t.same(span.events[0]?.attributes, { text: '[REDACTED:email]' })
  t.equal(span.status_message, 'bad key [REDACTED:api_key]')
})
