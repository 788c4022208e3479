// Synthetic demo data: a handful of projects with API keys, and realistic LLM traces spread over the last days.
// Every trace is sent through the same normalization as real ingest, so statuses, retry counts,
// failure reasons and inferred totals obey the same rules; only the HTTP layer and the schema check are skipped.
import { randomInt } from 'node:crypto'
import { uuidv7 } from 'uuidv7'
import type { Environment, Project, StepInput, Trace, TraceInput } from '../../schemas/index.js'
import { normalizeTrace } from '../ingest/normalize.js'
import { generateApiKey, hashApiKey, previewApiKey } from '../lib/credentials.js'
import { toZonelessIso } from '../lib/time.js'
import type { Store } from '../store/types.js'

export interface SeedOptions {
  store: Store
  /** Number of traces to generate. */
  traces: number
  /** Window the traces are spread over, ending at `now` (default 7). */
  days?: number
  /** Number of projects (default 5; more than the built-in five get numbered copies). */
  projects?: number
  /** Epoch ms the window ends at (default Date.now()). */
  now?: number
  /** Source of randomness in [0, 1); pass `mulberry32(seed)` for a reproducible data set. Keys are always crypto-random. */
  random?: () => number
  /** Called after each stored chunk with the number of traces generated so far. */
  onProgress?: (done: number) => void
}

export interface SeededKey {
  environment: Environment
  key: string
}

export interface SeededProject {
  project_id: string
  /** The project's main key (production when the project has one). Synthetic demo secret. */
  key: string
  /** Environment of `key`. */
  environment: Environment
  /** Every key made for this run, one per environment the project's traces use (`key` is the first). */
  keys: SeededKey[]
  /** False when the project already existed and was reused (it got new keys). */
  created: boolean
}

export interface SeedResult {
  projects: SeededProject[]
  /** Traces actually stored (an id already present is not stored twice). */
  traces: number
}

const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000
const CHUNK = 2_000
/** Share of traces in the slow tail (latency ≥ 5000 ms), besides timeouts. */
const SLOW_SHARE = 0.03
const SLOW_MS = 5_000

// ---------------------------------------------------------------------------------------------------------------
// Randomness

/** mulberry32: a tiny, fast, seedable PRNG returning floats in [0, 1). Good enough for synthetic data, not for secrets. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Weighted<T> = ReadonlyArray<readonly [T, number]>

class Rng {
  private spare: number | null = null
  constructor(readonly next: () => number) {}

  int(n: number): number {
    return Math.floor(this.next() * n)
  }
  between(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }
  chance(p: number): boolean {
    return this.next() < p
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T
  }
  weighted<T>(items: Weighted<T>): T {
    let total = 0
    for (const [, w] of items) total += w
    let u = this.next() * total
    for (const [item, w] of items) {
      u -= w
      if (u < 0) return item
    }
    return (items[items.length - 1] as readonly [T, number])[0]
  }
  /** Standard normal (Box–Muller, the second value kept for the next call). */
  normal(): number {
    if (this.spare !== null) {
      const s = this.spare
      this.spare = null
      return s
    }
    const u = 1 - this.next()
    const v = this.next()
    const r = Math.sqrt(-2 * Math.log(u))
    this.spare = r * Math.sin(2 * Math.PI * v)
    return r * Math.cos(2 * Math.PI * v)
  }
  /** Log-normal with the given median and log-space sigma. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal())
  }
  uint32(): number {
    return Math.floor(this.next() * 4294967296) >>> 0
  }
  hex(chars: number): string {
    let s = ''
    while (s.length < chars) s += this.uint32().toString(16).padStart(8, '0')
    return s.slice(0, chars)
  }
}

const HEX2 = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))
const hex16 = (n: number) => (HEX2[(n >>> 8) & 0xff] as string) + (HEX2[n & 0xff] as string)
const hex32 = (n: number) => hex16(n >>> 16) + hex16(n & 0xffff)

/** A UUIDv7 whose timestamp is `ms` and whose 74 random bits come from `rng`, so ids sort like created_at. */
function uuidv7At(ms: number, rng: Rng): string {
  const ts = ms.toString(16).padStart(12, '0')
  const a = rng.uint32()
  const b = rng.uint32()
  const c = rng.uint32()
  return `${ts.slice(0, 8)}-${ts.slice(8, 12)}-7${hex16(a & 0xfff).slice(1)}-${hex16(0x8000 | ((a >>> 12) & 0x3fff))}-${hex32(b)}${hex16(c & 0xffff)}`
}

// ---------------------------------------------------------------------------------------------------------------
// What the traces talk about

type StepKind = 'llm' | 'tool' | 'retrieval' | 'function'

interface StepPlan {
  type: StepKind
  name: string
  tool: string | null
  /** Relative share of the trace's latency. */
  share: number
  input?: unknown
  output?: unknown
}

interface Draft {
  name: string
  prompt: string
  response: string
  plan: StepPlan[]
  tags: string[]
  /** Extra prompt tokens (system prompt, retrieved context). */
  contextTokens: number
}

type Scenario = (g: Rng) => Draft

const llm = (name: string, share = 6): StepPlan => ({ type: 'llm', name, tool: null, share })
const tool = (name: string, input: unknown, output: unknown, share = 1, type: StepKind = 'tool'): StepPlan => ({
  type,
  name,
  tool: name,
  share,
  input,
  output,
})
const retrieval = (name: string, query: string, hits: number): StepPlan =>
  tool(
    name,
    { query, top_k: 8 },
    { hits, sources: hits > 0 ? [`doc-${hits * 7}`, `doc-${hits * 13}`] : [] },
    1.2,
    'retrieval',
  )

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

const SUPPORT = {
  actions: ['reset', 'cancel', 'upgrade', 'update', 'transfer', 'delete', 'reactivate', 'change', 'export'],
  things: [
    'password',
    'subscription',
    'billing address',
    'team seat',
    'invoice',
    'API token',
    'email address',
    'payment method',
    'workspace',
    'notification settings',
  ],
  products: ['the mobile app', 'the desktop client', 'the web dashboard', 'the admin console', 'the browser extension'],
  events: [
    'the last update',
    'changing my phone',
    'a password reset',
    'moving to a new laptop',
    'the outage this morning',
    'enabling SSO',
  ],
  sections: ['Account', 'Billing', 'Security', 'Team', 'Notifications', 'Integrations'],
  problems: ['arrived damaged', 'never arrived', 'was charged twice', 'was the wrong size', 'is missing a part'],
}

const RAG = {
  topics: [
    'data retention policy',
    'on-call escalation process',
    'Q3 revenue guidance',
    'parental leave policy',
    'SOC 2 controls',
    'incident postmortem for the March outage',
    'pricing for the enterprise tier',
    'onboarding checklist for new engineers',
    'GDPR data processing agreement',
    'travel expense limits',
  ],
  asks: ['Summarize', 'What does our documentation say about', 'Find the latest version of', 'Explain', 'Who owns'],
  docs: ['handbook.md', 'policies/security.pdf', 'wiki/runbooks', 'finance/q3-report.pdf', 'legal/dpa-v4.docx'],
}

const CODE = {
  langs: ['TypeScript', 'Python', 'Go', 'Rust', 'SQL', 'Java'],
  tasks: [
    'a function that debounces an async callback',
    'a retry helper with exponential backoff',
    'a parser for ISO 8601 durations',
    'a LRU cache with a TTL',
    'a CSV exporter for the orders table',
    'a rate limiter using a token bucket',
    'pagination for the users endpoint',
  ],
  files: ['src/server.ts', 'src/db/queries.ts', 'app/models/user.py', 'internal/http/router.go', 'lib/cache.rs'],
  errors: [
    'TypeError: Cannot read properties of undefined',
    'AssertionError: expected 3 to equal 4',
    'KeyError: user_id',
    'panic: runtime error: index out of range',
    'TS2345: Argument of type string is not assignable',
  ],
}

const AGENT = {
  goals: [
    'Compare the pricing of the top three vector databases',
    'Find flights from Berlin to Lisbon under 200 EUR next month',
    'Plan a three-day offsite agenda for 12 people',
    'Work out the compound growth of 10,000 at 7% over 15 years',
    'Collect the release notes of the last five Node.js versions',
    'Draft a competitive analysis of two note-taking apps',
    'Check which of our dependencies have known CVEs',
  ],
  tools: ['web_search', 'fetch_url', 'calculator', 'python_exec', 'read_calendar', 'send_email', 'sql_query'],
}

const SUMMARY = {
  kinds: ['meeting transcript', 'support thread', 'research paper', 'pull request', 'sales call', 'legal contract'],
  lengths: [
    'in three bullet points',
    'in one paragraph',
    'for an executive audience',
    'as action items',
    'in 50 words',
  ],
}

const supportScenarios: Weighted<Scenario> = [
  [
    (g) => {
      const action = g.pick(SUPPORT.actions)
      const thing = g.pick(SUPPORT.things)
      const section = g.pick(SUPPORT.sections)
      return {
        name: 'support.answer',
        prompt: `How do I ${action} my ${thing}?`,
        response: `You can ${action} your ${thing} from Settings → ${section}. Choose "${capital(action)} ${thing}", confirm, and the change applies right away.`,
        plan: [retrieval('kb_search', `${action} ${thing}`, g.between(1, 8)), llm('generate_answer')],
        tags: ['chat', 'kb'],
        contextTokens: g.between(600, 1800),
      }
    },
    4,
  ],
  [
    (g) => {
      const order = g.between(100000, 999999)
      const problem = g.pick(SUPPORT.problems)
      const ticket = g.between(20000, 99999)
      const plan = [
        llm('classify_intent', 2),
        tool('lookup_order', { order_id: order }, { status: 'delivered', items: g.between(1, 4) }),
      ]
      if (g.chance(0.6)) plan.push(tool('create_ticket', { order_id: order, queue: 'billing' }, { ticket_id: ticket }))
      plan.push(llm('generate_answer'))
      return {
        name: 'support.order_issue',
        prompt: `My order #${order} ${problem}. Can I get a refund?`,
        response: `Sorry about that! I found order #${order} and opened ticket #${ticket} with our billing team. You'll hear back by email within 24 hours.`,
        plan,
        tags: ['chat', 'orders', g.pick(['tier:free', 'tier:pro', 'tier:enterprise'])],
        contextTokens: g.between(400, 900),
      }
    },
    3,
  ],
  [
    (g) => {
      const product = g.pick(SUPPORT.products)
      const event = g.pick(SUPPORT.events)
      const plan = [retrieval('kb_search', `login ${product}`, g.between(0, 6)), llm('generate_answer')]
      if (g.chance(0.4)) plan.push(tool('send_reset_email', { user: 'self' }, { sent: true }, 0.5))
      return {
        name: 'support.login',
        prompt: `I can't log in to ${product} since ${event}. What should I do?`,
        response: `Let's get you back in. Sign out of ${product} everywhere, then use "Forgot password" — I've also sent a reset link to the address on file.`,
        plan,
        tags: ['chat', 'auth'],
        contextTokens: g.between(500, 1500),
      }
    },
    2,
  ],
  [
    (g) => ({
      name: 'support.smalltalk',
      prompt: g.pick(['Hi!', 'Thanks, that worked.', 'Are you a bot?', 'Can I talk to a human?', 'Good morning']),
      response: g.pick([
        'Hello! How can I help you today?',
        'Glad that worked! Anything else I can do?',
        "I'm Loupe Support's assistant; I can hand you to a person at any time.",
        'Of course — connecting you to an agent now, the wait is about 3 minutes.',
      ]),
      plan: [llm('generate_answer')],
      tags: ['chat'],
      contextTokens: g.between(250, 450),
    }),
    1,
  ],
]

const ragScenarios: Weighted<Scenario> = [
  [
    (g) => {
      const topic = g.pick(RAG.topics)
      const ask = g.pick(RAG.asks)
      const doc = g.pick(RAG.docs)
      const hits = g.between(2, 12)
      return {
        name: 'rag.query',
        prompt: `${ask} the ${topic}?`,
        response: `According to ${doc}, the ${topic} was last revised in ${g.pick(['January', 'April', 'June', 'September'])}; the key points are summarized below with ${Math.min(hits, 3)} citations.`,
        plan: [
          tool('embed_query', { text: topic }, { dims: 1536 }, 0.3),
          retrieval('vector_search', topic, hits),
          tool('rerank', { candidates: hits }, { kept: Math.min(hits, 5) }, 0.6),
          llm('answer_with_citations', 7),
        ],
        tags: ['rag', g.pick(['hr', 'eng', 'finance', 'legal', 'security'])],
        contextTokens: g.between(1500, 6000),
      }
    },
    5,
  ],
  [
    (g) => {
      const topic = g.pick(RAG.topics)
      return {
        name: 'rag.hybrid_query',
        prompt: `Where is the ${topic} documented, and who approved the current version?`,
        response: `The ${topic} lives in ${g.pick(RAG.docs)}; the current version was approved by ${g.pick(['Legal', 'the CTO', 'People Ops', 'Finance', 'the Security team'])}.`,
        plan: [
          retrieval('bm25_search', topic, g.between(0, 10)),
          retrieval('vector_search', topic, g.between(1, 10)),
          llm('answer_with_citations', 7),
        ],
        tags: ['rag', 'hybrid'],
        contextTokens: g.between(2000, 8000),
      }
    },
    2,
  ],
]

const codeScenarios: Weighted<Scenario> = [
  [
    (g) => {
      const lang = g.pick(CODE.langs)
      const task = g.pick(CODE.tasks)
      return {
        name: 'code.complete',
        prompt: `Write ${task} in ${lang}.`,
        response: `Here is ${task} in ${lang}, with the edge cases handled and a short test.`,
        plan: [llm('complete', 8)],
        tags: ['completion', lang.toLowerCase()],
        contextTokens: g.between(300, 2500),
      }
    },
    5,
  ],
  [
    (g) => {
      const file = g.pick(CODE.files)
      const error = g.pick(CODE.errors)
      return {
        name: 'code.chat',
        prompt: `Why does ${file} throw "${error}"?`,
        response: `The error comes from ${file}: a value is read before it is initialized. Guard the lookup and return early when it is missing.`,
        plan: [
          retrieval('search_code', error, g.between(1, 9)),
          tool('read_file', { path: file }, { lines: g.between(40, 900) }),
          llm('explain', 8),
        ],
        tags: ['chat', 'debugging'],
        contextTokens: g.between(1500, 9000),
      }
    },
    3,
  ],
  [
    (g) => {
      const file = g.pick(CODE.files)
      const passed = g.between(10, 240)
      // Running the tests twice is a retry by the contract's definition, so this flow ends as a warning.
      return {
        name: 'code.fix_tests',
        prompt: `Fix the failing tests in ${file}.`,
        response: `Patched ${file}; all ${passed} tests pass now.`,
        plan: [
          tool('run_tests', { path: file }, { failed: g.between(1, 5) }, 3),
          llm('propose_patch', 6),
          tool('apply_patch', { path: file }, { hunks: g.between(1, 6) }, 0.4),
          tool('run_tests', { path: file }, { failed: 0, passed }, 3),
          llm('summarize_change', 2),
        ],
        tags: ['agent', 'tests'],
        contextTokens: g.between(2000, 7000),
      }
    },
    1,
  ],
]

const agentScenarios: Weighted<Scenario> = [
  [
    (g) => {
      const goal = g.pick(AGENT.goals)
      const used = new Set<string>()
      const n = g.between(1, 4)
      while (used.size < n) used.add(g.pick(AGENT.tools))
      const plan: StepPlan[] = [llm('plan', 3)]
      for (const name of used) {
        plan.push(
          tool(
            name,
            { goal: goal.slice(0, 40) },
            { ok: true, items: g.between(1, 20) },
            name === 'python_exec' ? 2 : 1.5,
          ),
        )
        if (g.chance(0.3)) plan.push(llm('reflect', 2))
      }
      plan.push(llm('final_answer', 5))
      return {
        name: 'agent.run',
        prompt: `${goal}.`,
        response: `Done: ${goal.charAt(0).toLowerCase()}${goal.slice(1)}. I used ${[...used].join(', ')} and summarized the findings in the table below.`,
        plan,
        tags: ['agent', g.pick(['experiment:a', 'experiment:b', 'baseline']), `tools:${used.size}`],
        contextTokens: g.between(800, 5000),
      }
    },
    1,
  ],
]

const summarizerScenarios: Weighted<Scenario> = [
  [
    (g) => {
      const kind = g.pick(SUMMARY.kinds)
      const how = g.pick(SUMMARY.lengths)
      return {
        name: 'summarize.document',
        prompt: `Summarize this ${kind} ${how}.`,
        response: `Summary of the ${kind}: the main decision was to ${g.pick(['ship next week', 'delay the launch', 'hire two engineers', 'renegotiate the contract', 'cut scope'])}; open questions are listed at the end.`,
        // No steps: a single SDK call; latency, tokens and retries come from the client.
        plan: [],
        tags: ['batch', kind.replace(/ /g, '-')],
        contextTokens: g.between(1500, 12000),
      }
    },
    3,
  ],
  [
    (g) => {
      const kind = g.pick(SUMMARY.kinds)
      const chunks = g.between(2, 5)
      const plan: StepPlan[] = [tool('fetch_document', { kind }, { pages: g.between(2, 40) }, 0.6)]
      for (let i = 0; i < chunks; i++) plan.push(llm(`summarize_chunk_${i + 1}`, 3))
      plan.push(llm('combine', 3))
      return {
        name: 'summarize.map_reduce',
        prompt: `Summarize the attached ${kind} (${chunks} parts) ${g.pick(SUMMARY.lengths)}.`,
        response: `Across ${chunks} parts, the ${kind} covers scope, risks and next steps; the biggest risk is ${g.pick(['timeline', 'budget', 'staffing', 'compliance'])}.`,
        plan,
        tags: ['batch', 'map-reduce'],
        contextTokens: g.between(4000, 20000),
      }
    },
    2,
  ],
]

interface Profile {
  project_id: string
  name: string
  description: string
  weight: number
  environments: Weighted<Environment>
  models: Weighted<string | null>
  /** Median latency (ms) of a normal call on a model of speed 1. */
  latencyMedian: number
  latencySigma: number
  scenarios: Weighted<Scenario>
  /** Share of traces without user/session (batch jobs, anonymous calls). */
  anonymous: number
  /** Mean number of traces in a session. */
  sessionLength: number
  retryRate: number
  failureRate: number
  fallbackRate: number
  /** Share of traces sent by the Python SDK (field aliases), the rest by the JS SDK. */
  python: number
}

const PROFILES: readonly Profile[] = [
  {
    project_id: 'support-bot',
    name: 'support-bot',
    description: 'Customer support chat assistant with knowledge-base retrieval and order tools.',
    weight: 30,
    environments: [
      ['production', 80],
      ['staging', 20],
    ],
    models: [
      ['gpt-4o-mini', 40],
      ['claude-haiku', 25],
      ['gpt-4o', 20],
      ['claude-sonnet-4', 12],
      [null, 3],
    ],
    latencyMedian: 1100,
    latencySigma: 0.5,
    scenarios: supportScenarios,
    anonymous: 0.05,
    sessionLength: 4,
    retryRate: 0.06,
    failureRate: 0.04,
    fallbackRate: 0.02,
    python: 0.1,
  },
  {
    project_id: 'rag-search',
    name: 'rag-search',
    description: 'Internal document search: embeddings, vector and keyword retrieval, reranking, cited answers.',
    weight: 25,
    environments: [
      ['production', 70],
      ['staging', 30],
    ],
    models: [
      ['gpt-4o', 35],
      ['claude-sonnet-4', 25],
      ['gemini-1.5-pro', 20],
      ['mistral-large', 15],
      [null, 5],
    ],
    latencyMedian: 1500,
    latencySigma: 0.45,
    scenarios: ragScenarios,
    anonymous: 0.1,
    sessionLength: 2.5,
    retryRate: 0.05,
    failureRate: 0.05,
    fallbackRate: 0.01,
    python: 0.8,
  },
  {
    project_id: 'code-assistant',
    name: 'code-assistant',
    description: 'IDE coding assistant: completions, code chat and a test-fixing agent.',
    weight: 20,
    environments: [
      ['production', 60],
      ['development', 40],
    ],
    models: [
      ['claude-sonnet-4', 45],
      ['gpt-4o', 30],
      ['llama-3.1-70b', 15],
      ['gpt-4o-mini', 10],
    ],
    latencyMedian: 1300,
    latencySigma: 0.55,
    scenarios: codeScenarios,
    anonymous: 0.02,
    sessionLength: 6,
    retryRate: 0.08,
    failureRate: 0.05,
    fallbackRate: 0.02,
    python: 0.2,
  },
  {
    project_id: 'agent-lab',
    name: 'agent-lab',
    description: 'Experimental tool-using agents (web search, code execution, calendar, email).',
    weight: 10,
    environments: [
      ['development', 60],
      ['staging', 40],
    ],
    models: [
      ['gpt-4o', 30],
      ['claude-sonnet-4', 30],
      ['llama-3.1-70b', 15],
      ['mistral-large', 10],
      ['gemini-1.5-pro', 10],
      [null, 5],
    ],
    latencyMedian: 2300,
    latencySigma: 0.4,
    scenarios: agentScenarios,
    anonymous: 0.15,
    sessionLength: 3,
    retryRate: 0.22,
    failureRate: 0.1,
    fallbackRate: 0.03,
    python: 0.9,
  },
  {
    project_id: 'summarizer',
    name: 'summarizer',
    description: 'Batch summarization of transcripts, threads and documents.',
    weight: 15,
    environments: [
      ['production', 85],
      ['development', 15],
    ],
    models: [
      ['claude-haiku', 35],
      ['gpt-4o-mini', 30],
      ['gemini-1.5-pro', 15],
      ['mistral-large', 10],
      ['llama-3.1-70b', 10],
    ],
    latencyMedian: 1400,
    latencySigma: 0.5,
    scenarios: summarizerScenarios,
    anonymous: 0.6,
    sessionLength: 1.5,
    retryRate: 0.04,
    failureRate: 0.05,
    fallbackRate: 0.01,
    python: 0.5,
  },
]

/** The built-in demo projects (project ids), in creation order. */
export const SEED_PROJECT_IDS: readonly string[] = PROFILES.map((p) => p.project_id)

/** Relative speed of each model: latency multiplier. */
const MODEL_SPEED: Record<string, number> = {
  'gpt-4o': 1,
  'gpt-4o-mini': 0.6,
  'claude-sonnet-4': 1.15,
  'claude-haiku': 0.55,
  'llama-3.1-70b': 0.85,
  'mistral-large': 1.05,
  'gemini-1.5-pro': 1.2,
}

const TOOL_ERRORS = [
  'HTTP 503 Service Unavailable from upstream',
  'ETIMEDOUT: tool call exceeded 10000 ms',
  'HTTP 429 Too Many Requests (retry after 2s)',
  'ECONNRESET: socket hang up',
  'invalid tool arguments: missing required field "query"',
]

interface LlmFailure {
  error: string
  /** Latency of the failing call, when it is not the usual share (timeouts). */
  latency?: number
}
const LLM_FAILURES: Weighted<(g: Rng) => LlmFailure> = [
  [() => ({ error: 'rate_limit_exceeded: 429 Too Many Requests' }), 4],
  [(g) => ({ error: `context_length_exceeded: ${g.between(128_100, 190_000)} tokens > 128000` }), 2],
  [(g) => ({ error: 'Request timed out after 30000 ms', latency: 30_000 + g.between(0, 400) }), 2],
  [() => ({ error: 'upstream error: 500 Internal Server Error' }), 2],
  [() => ({ error: 'content_filter: the response was blocked by the safety system' }), 1],
]

const CLIENT_REASONS = [
  'response failed JSON schema validation: missing required field "answer"',
  'guardrail blocked the response: PII detected (email address)',
  'answer not grounded in retrieved context (faithfulness 0.31 < 0.50)',
  'user cancelled the request',
  'output exceeded max_tokens before completing the JSON object',
]

const REGIONS = ['us-east-1', 'us-west-2', 'eu-west-1', 'eu-central-1', 'ap-southeast-1']
const APP_VERSIONS = ['2.13.4', '2.14.0', '2.14.1', '2.15.0-rc.1']

// ---------------------------------------------------------------------------------------------------------------
// Trace generation

interface Session {
  profile: number
  environment: Environment
  user_id: string | null
  session_id: string | null
  /** Traces it may still receive. */
  remaining: number
  /** created_at of its latest trace. */
  last: number
}

const userId = (n: number) => `user_${n.toString(36).padStart(4, '0')}`

/** A session gets no more traces after this long without one. */
const SESSION_IDLE_MS = 30 * 60_000
const MAX_SESSION_TRACES = 40
const BIN_MS = 60_000

/**
 * `total` arrival times over the window, produced in ascending order (so rows are appended in created_at and
 * trace_id order): ascending uniform order statistics mapped through the inverse CDF of a per-minute density —
 * exponential growth towards `now` (the start of the window is e^-1.5 ≈ 22% as busy as today) times a daily
 * rhythm (quiet around 03:00 UTC, busy around 15:00) and quieter weekends.
 */
class ArrivalClock {
  private readonly start: number
  private readonly cdf: Float64Array
  private readonly bins: number
  private u = 0
  private bin = 0
  private left: number

  constructor(
    private readonly g: Rng,
    private readonly now: number,
    span: number,
    total: number,
  ) {
    this.start = now - span
    this.bins = Math.max(1, Math.ceil(span / BIN_MS))
    this.cdf = new Float64Array(this.bins + 1)
    for (let i = 0; i < this.bins; i++) {
      const binStart = this.start + i * BIN_MS
      const width = Math.min(BIN_MS, now - binStart)
      const t = binStart + width / 2
      const recency = Math.exp((-1.5 * (now - t)) / span)
      const hour = (((t % DAY_MS) + DAY_MS) % DAY_MS) / HOUR_MS
      let rhythm = 0.15 + 0.85 * (0.5 - 0.5 * Math.cos((2 * Math.PI * (hour - 3)) / 24)) ** 1.5
      const weekday = (Math.floor(t / DAY_MS) + 4) % 7 // 1970-01-01 was a Thursday
      if (weekday === 0 || weekday === 6) rhythm *= 0.6
      this.cdf[i + 1] = (this.cdf[i] as number) + recency * rhythm * (width / BIN_MS)
    }
    this.left = total
  }

  /** The next (not earlier) arrival, epoch ms within [now − span, now]. */
  next(): number {
    // The smallest of the `left` uniforms still to come, above the previous one.
    this.u = 1 - (1 - this.u) * (1 - this.g.next()) ** (1 / Math.max(1, this.left))
    this.left--
    const cdf = this.cdf
    const target = this.u * (cdf[this.bins] as number)
    while (this.bin < this.bins - 1 && (cdf[this.bin + 1] as number) <= target) this.bin++
    const lo = cdf[this.bin] as number
    const hi = cdf[this.bin + 1] as number
    const frac = hi > lo ? Math.min(1, Math.max(0, (target - lo) / (hi - lo))) : 0
    const t = Math.floor(this.start + (this.bin + frac) * BIN_MS)
    return Math.min(this.now, Math.max(Math.ceil(this.start), t))
  }
}

interface StepDraft {
  plan: StepPlan
  status: 'success' | 'failed'
  error: string | null
  share: number
  fixedLatency: number | null
  tokens: boolean
  metadata: Record<string, unknown> | null
}

const round1 = (x: number) => Math.round(x * 10) / 10
/** How Python's `datetime.isoformat()` writes an aware UTC time: microseconds and `+00:00`. */
const pythonIso = (ms: number) => `${new Date(ms).toISOString().slice(0, -1)}000+00:00`

class TraceFactory {
  private readonly profileWeights: Weighted<number>
  private readonly userPools: number[]
  private readonly open: Session[][]
  private readonly clock: ArrivalClock

  constructor(
    private readonly g: Rng,
    private readonly profiles: readonly Profile[],
    now: number,
    days: number,
    total: number,
  ) {
    this.clock = new ArrivalClock(g, now, days * DAY_MS, total)
    this.profileWeights = profiles.map((p, i) => [i, p.weight] as const)
    const weightSum = profiles.reduce((s, p) => s + p.weight, 0)
    // About 30 traces per user over the window, whatever the size of the run.
    this.userPools = profiles.map((p) => Math.max(20, Math.round((total * p.weight) / weightSum / 30)))
    this.open = profiles.map(() => [])
  }

  /** A conversation still going in this project, or a new one (anonymous calls have none). */
  private sessionFor(profile: number, t: number): Session {
    const g = this.g
    const p = this.profiles[profile] as Profile
    const open = this.open[profile] as Session[]
    // Continuing with probability 1 − 1/L gives sessions of L traces on average.
    if (g.chance(1 - 1 / p.sessionLength)) {
      while (open.length > 0) {
        const i = g.int(open.length)
        const s = open[i] as Session
        if (s.remaining > 0 && t - s.last <= SESSION_IDLE_MS) return s
        open[i] = open[open.length - 1] as Session
        open.pop()
      }
    }
    const anonymous = g.chance(p.anonymous)
    const s: Session = {
      profile,
      environment: g.weighted(p.environments),
      user_id: anonymous ? null : userId(g.int(this.userPools[profile] as number)),
      session_id: anonymous ? null : `sess_${g.hex(16)}`,
      remaining: MAX_SESSION_TRACES,
      last: t,
    }
    if (!anonymous) open.push(s)
    return s
  }

  /** The next trace (in created_at order), with the project and environment its key would carry. */
  next(): { input: TraceInput; profile: number; environment: Environment; createdAt: number } {
    const createdAt = this.clock.next()
    const profile = this.g.weighted(this.profileWeights)
    const s = this.sessionFor(profile, createdAt)
    s.remaining--
    s.last = createdAt
    const input = this.build(this.profiles[profile] as Profile, s, createdAt)
    return { input, profile, environment: s.environment, createdAt }
  }

  private build(p: Profile, s: Session, createdAt: number): TraceInput {
    const g = this.g
    const draft = g.weighted(p.scenarios)(g)
    const model = g.weighted(p.models)
    const speed = model === null ? 1 : (MODEL_SPEED[model] ?? 1)
    const python = g.chance(p.python)

    // Total latency: log-normal below the slow threshold, plus a ~3% tail of slow calls.
    let latency: number
    if (g.chance(SLOW_SHARE)) {
      latency = SLOW_MS + g.logNormal(2_500, 0.8)
    } else {
      latency = g.logNormal(p.latencyMedian * speed, p.latencySigma)
      for (let i = 0; i < 3 && latency >= SLOW_MS; i++) latency = g.logNormal(p.latencyMedian * speed, p.latencySigma)
      if (latency >= SLOW_MS) latency = SLOW_MS - 1 - g.next() * 1000
    }
    latency = Math.max(latency, 40 + g.next() * 60)

    let promptTokens = Math.ceil(draft.prompt.length / 4) + draft.contextTokens
    let completionTokens = Math.max(8, Math.round(g.logNormal(220, 0.7)))
    let response: string | null = draft.response
    let failureReason: string | null = null
    let clientStatus: string | null = null
    let clientRetries: number | null = null
    let tokensKnown = true
    const metadata: Record<string, unknown> = {
      synthetic: true,
      sdk: python ? 'loupe-python/0.5.2' : 'loupe-js/0.4.1',
      region: g.pick(REGIONS),
      app_version: g.pick(APP_VERSIONS),
      temperature: g.pick([0, 0.2, 0.3, 0.7, 1]),
    }

    const steps: StepDraft[] = draft.plan.map((plan) => ({
      plan,
      status: 'success',
      error: null,
      share: plan.share * g.logNormal(1, 0.35),
      fixedLatency: null,
      tokens: plan.type === 'llm',
      metadata: plan.type === 'llm' ? { model, temperature: metadata.temperature } : null,
    }))

    const roll = g.next()
    const toolIdx = steps.flatMap((st, i) => (st.plan.tool !== null ? [i] : []))
    if (steps.length === 0) {
      // A bare SDK call: the client reports retries and failures itself.
      if (roll < p.retryRate) {
        clientRetries = g.between(1, 3)
        metadata.retry_reason = g.pick(['rate_limited', 'overloaded', 'timeout'])
      } else if (roll < p.retryRate + p.failureRate) {
        clientStatus = g.pick(['error', 'failed'])
        if (g.chance(0.7)) failureReason = g.weighted(LLM_FAILURES)(g).error
        response = null
        completionTokens = 0
      }
    } else if (roll < p.retryRate && toolIdx.length > 0) {
      // A tool is retried; most retries recover (warning), some exhaust their attempts (failed).
      const at = g.pick(toolIdx)
      const target = steps[at] as StepDraft
      const extra = g.chance(0.75) ? 1 : 2
      const duplicateSuccess = g.chance(0.15)
      const exhausted = !duplicateSuccess && g.chance(0.2)
      const failedCopies: StepDraft[] = []
      for (let i = 0; i < extra; i++) {
        failedCopies.push({
          ...target,
          status: duplicateSuccess ? 'success' : 'failed',
          error: duplicateSuccess ? null : g.pick(TOOL_ERRORS),
          share: target.share * (duplicateSuccess ? 1 : 0.6),
          metadata: { attempt: i + 1 },
        })
      }
      if (exhausted) {
        // The last attempt fails too and the run stops there.
        steps.splice(at, steps.length - at, ...failedCopies, {
          ...target,
          status: 'failed',
          error: g.pick(TOOL_ERRORS),
          metadata: { attempt: extra + 1 },
        })
        response = g.chance(0.5) ? null : "Sorry, I couldn't complete that request right now. Please try again later."
        tokensKnown = false
      } else {
        steps.splice(at, 0, ...failedCopies)
        target.metadata = { attempt: extra + 1 }
      }
    } else if (roll < p.retryRate + p.failureRate) {
      const lastLlm = steps.map((st) => st.plan.type).lastIndexOf('llm')
      const kind = g.next()
      if (kind < 0.55 && lastLlm >= 0) {
        // The model call the trace ends on fails.
        const failure = g.weighted(LLM_FAILURES)(g)
        steps.splice(lastLlm + 1)
        const st = steps[lastLlm] as StepDraft
        st.status = 'failed'
        st.error = failure.error
        st.tokens = false
        if (failure.latency !== undefined) {
          st.fixedLatency = failure.latency
          latency += failure.latency
        }
        response = null
        tokensKnown = false
      } else if (kind < 0.75 && toolIdx.length > 0) {
        // A tool fails once with no retry: the run gives up.
        const at = g.pick(toolIdx)
        steps.splice(at + 1)
        const st = steps[at] as StepDraft
        st.status = 'failed'
        st.error = g.pick(TOOL_ERRORS)
        response = null
        tokensKnown = false
      } else {
        // Every step went fine but the client rejected the result.
        failureReason = g.pick(CLIENT_REASONS)
        if (g.chance(0.3)) clientStatus = 'failed'
      }
    } else if (roll < p.retryRate + p.failureRate + p.fallbackRate) {
      // The model is overloaded; a fallback call succeeds (warning without a retry).
      const lastLlm = steps.map((st) => st.plan.type).lastIndexOf('llm')
      if (lastLlm >= 0) {
        const st = steps[lastLlm] as StepDraft
        steps.splice(lastLlm, 0, {
          ...st,
          status: 'failed',
          error: g.pick(['overloaded_error: 529 Overloaded', 'upstream error: 502 Bad Gateway', 'stream interrupted']),
          share: st.share * 0.3,
          tokens: false,
          metadata: { model },
        })
        st.metadata = { model, fallback: true }
      }
    }

    // Steps: split the latency (a little overhead stays outside the steps), the tokens across the model calls.
    const fixed = steps.reduce((sum, st) => sum + (st.fixedLatency ?? 0), 0)
    const shareSum = steps.reduce((sum, st) => sum + (st.fixedLatency === null ? st.share : 0), 0) || 1
    const budget = Math.max(0, latency - fixed) * (0.88 + g.next() * 0.1)
    const llmSteps = steps.filter((st) => st.tokens)
    const totalTokens = promptTokens + completionTokens
    let offset = g.next() * 5
    const stepInputs: StepInput[] = steps.map((st) => {
      const stepLatency = round1(st.fixedLatency ?? (budget * st.share) / shareSum)
      const tokens = st.tokens ? Math.max(1, Math.round(totalTokens / llmSteps.length)) : null
      const startedAt = Math.floor(createdAt + offset)
      offset += stepLatency + g.next() * 3
      return python
        ? {
            name: st.plan.name,
            type: st.plan.type.toUpperCase(),
            tool_name: st.plan.tool,
            status: st.status === 'failed' ? 'error' : 'ok',
            duration_ms: stepLatency,
            tokens,
            input: st.plan.input ?? null,
            output: st.status === 'failed' ? null : (st.plan.output ?? null),
            error: st.error,
            started_at: pythonIso(startedAt),
            metadata: st.metadata,
          }
        : {
            name: st.plan.name,
            type: st.plan.type,
            tool: st.plan.tool,
            status: st.status,
            latency: stepLatency,
            token_count: tokens,
            input: st.plan.input ?? null,
            output: st.status === 'failed' ? null : (st.plan.output ?? null),
            error: st.error,
            started_at: startedAt,
            metadata: st.metadata,
          }
    })
    if (!tokensKnown) {
      // The provider never reported usage: token_count is inferred from the steps that finished.
      promptTokens = 0
      completionTokens = 0
    }

    const tags = draft.tags.slice()
    if (s.environment !== 'production') tags.push(s.environment)
    if (g.chance(0.05)) tags.push('beta')

    const trace: TraceInput = {
      trace_id: uuidv7At(createdAt, g),
      name: draft.name,
      model,
      prompt: draft.prompt,
      response,
      session_id: s.session_id,
      user_id: s.user_id,
      tags,
      metadata,
      created_at: python ? pythonIso(createdAt) : createdAt,
      steps: stepInputs.length > 0 ? stepInputs : null,
    }
    const total = Math.round(latency * 10) / 10
    if (python) trace.latency_ms = total
    else trace.latency = total
    if (tokensKnown) {
      trace.prompt_tokens = promptTokens
      trace.completion_tokens = completionTokens
    }
    if (clientStatus !== null) trace.status = clientStatus
    if (failureReason !== null) trace.failure_reason = failureReason
    if (clientRetries !== null) trace.retry_count = clientRetries
    return trace
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Projects and keys

function profilesFor(count: number): Profile[] {
  const out: Profile[] = []
  for (let i = 0; i < count; i++) {
    const base = PROFILES[i % PROFILES.length] as Profile
    const round = Math.floor(i / PROFILES.length)
    out.push(
      round === 0
        ? base
        : { ...base, project_id: `${base.project_id}-${round + 1}`, name: `${base.name}-${round + 1}` },
    )
  }
  return out
}

type ProjectWithKeyIds = Omit<SeededProject, 'keys'> & { keys: Array<SeededKey & { key_id: string }> }

async function ensureProject(
  store: Store,
  profile: Profile,
  environments: Environment[],
  createdAt: number,
): Promise<ProjectWithKeyIds> {
  const keys: ProjectWithKeyIds['keys'] = []
  let created = false
  for (const [i, environment] of environments.entries()) {
    const key = generateApiKey()
    const record = {
      key_id: uuidv7(),
      key_hash: hashApiKey(key),
      key_preview: previewApiKey(key),
      project_id: profile.project_id,
      environment,
      created_at: createdAt,
    }
    if (i === 0) {
      const project: Project = {
        project_id: profile.project_id,
        name: profile.name,
        description: `${profile.description} (synthetic demo data)`,
        created_at: toZonelessIso(createdAt),
      }
      created = await store.createProject(project, record)
      // The id is taken: reuse that project and give it a fresh key.
      if (!created) await store.createApiKey(record)
    } else {
      await store.createApiKey(record)
    }
    keys.push({ environment, key, key_id: record.key_id })
  }
  const first = keys[0] as SeededKey
  return { project_id: profile.project_id, key: first.key, environment: first.environment, keys, created }
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Seeds `store` with demo projects (each with one API key per environment it uses) and `traces` synthetic traces
 * spread over the last `days` days. Deterministic trace data when `random` (and `now`) are given.
 */
export async function seed(options: SeedOptions): Promise<SeedResult> {
  const { store } = options
  const total = Math.max(0, Math.floor(options.traces))
  const days = options.days ?? 7
  if (!(days > 0)) throw new RangeError('days must be > 0')
  const projectCount = Math.max(1, Math.floor(options.projects ?? PROFILES.length))
  const now = Math.floor(options.now ?? Date.now())
  const g = new Rng(options.random ?? mulberry32(randomInt(2 ** 32 - 1)))

  const profiles = profilesFor(projectCount)
  // Production first, so a project's main key is its production key when it has one.
  const order: Environment[] = ['production', 'staging', 'development']
  const environmentsOf = profiles.map((p) => order.filter((e) => p.environments.some(([env]) => env === e)))
  const keyCreatedAt = now - days * DAY_MS - HOUR_MS
  const projects: ProjectWithKeyIds[] = []
  for (const [i, profile] of profiles.entries()) {
    projects.push(await ensureProject(store, profile, environmentsOf[i] as Environment[], keyCreatedAt))
  }

  const contexts = profiles.map((p) => ({
    production: { project_id: p.project_id, environment: 'production' as const },
    staging: { project_id: p.project_id, environment: 'staging' as const },
    development: { project_id: p.project_id, environment: 'development' as const },
  }))
  // Ids are always set by the factory; this only satisfies the signature deterministically.
  let fallbackId = 0
  const normalizeOpts = { now, newId: () => `seed-${now}-${fallbackId++}` }
  const factory = new TraceFactory(g, profiles, now, days, total)
  // Newest trace per project and environment: the key that "sent" it was last used then.
  const lastUsed = profiles.map(() => ({ production: -1, staging: -1, development: -1 }))

  let stored = 0
  for (let done = 0; done < total; ) {
    const n = Math.min(CHUNK, total - done)
    const batch: Trace[] = new Array(n)
    for (let i = 0; i < n; i++) {
      const { input, profile, environment, createdAt } = factory.next()
      batch[i] = normalizeTrace(input, (contexts[profile] as (typeof contexts)[number])[environment], normalizeOpts)
      const seen = lastUsed[profile] as Record<Environment, number>
      if (createdAt > seen[environment]) seen[environment] = createdAt
    }
    const outcomes = await store.insertTraces(batch)
    for (const outcome of outcomes) if (outcome.kind === 'created') stored++
    done += n
    options.onProgress?.(done)
    // Let timers (a progress bar, signal handlers) run between chunks.
    await yieldToEventLoop()
  }
  for (const [i, project] of projects.entries()) {
    for (const key of project.keys) {
      const at = (lastUsed[i] as Record<Environment, number>)[key.environment]
      if (at >= 0) await store.touchApiKey(key.key_id, at)
    }
  }
  const withoutKeyIds = ({ keys, ...project }: ProjectWithKeyIds): SeededProject => ({
    ...project,
    keys: keys.map(({ environment, key }) => ({ environment, key })),
  })
  return { projects: projects.map(withoutKeyIds), traces: stored }
}
