// What the synthetic traces talk about: the demo projects (their models, environments, speed, failure rates) and
// the scenarios each runs — the steps, tools, prompts and answers — plus the errors and reasons failures carry.
import type { Environment } from '../../schemas/index.js'
import type { Rng, Weighted } from './random.js'

export type StepKind = 'llm' | 'tool' | 'retrieval' | 'function'

export interface StepPlan {
  type: StepKind
  name: string
  tool: string | null
  /** Relative share of the trace's latency. */
  share: number
  input?: unknown
  output?: unknown
}

export interface Draft {
  name: string
  prompt: string
  response: string
  plan: StepPlan[]
  tags: string[]
  /** Extra prompt tokens (system prompt, retrieved context). */
  contextTokens: number
}

export type Scenario = (g: Rng) => Draft

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
      // Users write in their own language: search must find every one of them.
      prompt: g.pick([
        'Hi!',
        'Thanks, that worked.',
        'Are you a bot?',
        'Can I talk to a human?',
        'Good morning',
        'こんにちは、注文の配送状況を教えてください',
        '你好，我的账户无法登录',
        'Bonjour, où est ma facture de décembre ?',
        'Grüß Gott! Können Sie mir helfen?',
        '¿Hablan español? Necesito ayuda con mi pedido',
      ]),
      response: g.pick([
        'Hello! How can I help you today?',
        'Glad that worked! Anything else I can do?',
        "I'm Loupe Support's assistant; I can hand you to a person at any time.",
        'Of course — connecting you to an agent now, the wait is about 3 minutes.',
        'もちろんです。注文番号を教えていただけますか？',
        '好的，我来帮您重置密码。',
        'Bien sûr ! Votre facture est disponible dans l’espace client.',
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

export interface Profile {
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

export const PROFILES: readonly Profile[] = [
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
export const MODEL_SPEED: Record<string, number> = {
  'gpt-4o': 1,
  'gpt-4o-mini': 0.6,
  'claude-sonnet-4': 1.15,
  'claude-haiku': 0.55,
  'llama-3.1-70b': 0.85,
  'mistral-large': 1.05,
  'gemini-1.5-pro': 1.2,
}

export const TOOL_ERRORS = [
  'HTTP 503 Service Unavailable from upstream',
  'ETIMEDOUT: tool call exceeded 10000 ms',
  'HTTP 429 Too Many Requests (retry after 2s)',
  'ECONNRESET: socket hang up',
  'invalid tool arguments: missing required field "query"',
]

export interface LlmFailure {
  error: string
  /** Latency of the failing call, when it is not the usual share (timeouts). */
  latency?: number
}
export const LLM_FAILURES: Weighted<(g: Rng) => LlmFailure> = [
  [() => ({ error: 'rate_limit_exceeded: 429 Too Many Requests' }), 4],
  [(g) => ({ error: `context_length_exceeded: ${g.between(128_100, 190_000)} tokens > 128000` }), 2],
  [(g) => ({ error: 'Request timed out after 30000 ms', latency: 30_000 + g.between(0, 400) }), 2],
  [() => ({ error: 'upstream error: 500 Internal Server Error' }), 2],
  [() => ({ error: 'content_filter: the response was blocked by the safety system' }), 1],
]

export const CLIENT_REASONS = [
  'response failed JSON schema validation: missing required field "answer"',
  'guardrail blocked the response: PII detected (email address)',
  'answer not grounded in retrieved context (faithfulness 0.31 < 0.50)',
  'user cancelled the request',
  'output exceeded max_tokens before completing the JSON object',
]

export const REGIONS = ['us-east-1', 'us-west-2', 'eu-west-1', 'eu-central-1', 'ap-southeast-1']
export const APP_VERSIONS = ['2.13.4', '2.14.0', '2.14.1', '2.15.0-rc.1']

/** The first `count` profiles: the built-in ones, then numbered copies of them. */
export function profilesFor(count: number): Profile[] {
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
