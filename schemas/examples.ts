// One example per schema, shown in the OpenAPI document (`example`). Each is a real answer of the API (taken from a
// running server and trimmed). They are plain values, not typed by their schemas (a schema's type cannot depend on
// its own options); test/openapi.test.ts validates every example against its schema instead, so they cannot drift
// from the shapes they illustrate.

export const errorExample = {
  statusCode: 400,
  error: 'Bad Request',
  message: "body must have required property 'prompt'",
  code: 'LOUPE_INVALID_INPUT',
}

export const stepInputExamples = [
  {
    type: 'llm',
    name: 'chat',
    latency: 640.25,
    input: 'What is the capital of France?',
    output: 'Paris.',
    token_count: 17,
  },
  { type: 'tool', tool: 'web_search', latency: 150, input: { q: 'capital of France' }, output: { top: 'Paris' } },
]

export const stepExamples = [
  {
    index: 0,
    name: 'chat',
    type: 'llm',
    tool: null,
    status: 'success',
    latency: 640.25,
    token_count: 17,
    cost: null,
    input: 'What is the capital of France?',
    output: 'Paris.',
    error: null,
    started_at: '2026-11-23T10:15:02.120Z',
    metadata: {},
    parent_index: null,
  },
  {
    index: 1,
    name: 'web_search',
    type: 'tool',
    tool: 'web_search',
    status: 'success',
    latency: 150,
    token_count: null,
    cost: null,
    input: { q: 'capital of France' },
    output: { top: 'Paris' },
    error: null,
    started_at: '2026-11-23T10:15:02.761Z',
    metadata: {},
    parent_index: null,
  },
]

export const traceInputExample = {
  trace_id: 'tr_01',
  name: 'answer_question',
  model: 'gpt-4o-mini',
  prompt: 'What is the capital of France?',
  response: 'Paris.',
  latency: 812.5,
  prompt_tokens: 14,
  completion_tokens: 3,
  session_id: 'sess_42',
  user_id: 'user_7',
  tags: ['faq'],
  metadata: { region: 'eu' },
  steps: stepInputExamples,
}

export const traceExample = {
  trace_id: 'tr_01',
  project_id: 'support-bot',
  environment: 'production',
  name: 'answer_question',
  model: 'gpt-4o-mini',
  prompt: 'What is the capital of France?',
  response: 'Paris.',
  latency: 812.5,
  token_count: 17,
  prompt_tokens: 14,
  completion_tokens: 3,
  tokens_reported: true,
  cost: 0.0000039,
  status: 'success',
  failure_reason: null,
  retry_count: 0,
  session_id: 'sess_42',
  user_id: 'user_7',
  experiment_id: null,
  dataset_item_id: null,
  tags: ['faq'],
  metadata: { region: 'eu' },
  created_at: '2026-11-23T10:15:02.932Z',
  steps: stepExamples,
}

export const listTracesExample = { total: 1, items: [traceExample], next_cursor: null }

const { prompt: _prompt, response: _response, metadata: _metadata, steps: _steps, ...traceHead } = traceExample
export const traceSummaryExample = {
  ...traceHead,
  step_count: stepExamples.length,
  scores: { helpfulness: { count: 1, mean: 0.8 }, thumbs: { count: 1, mean: 1 } },
}

export const batchTracesBodyExample = {
  traces: [traceInputExample, { prompt: 'Summarise this ticket', model: 'gpt-4o', latency: 1200 }],
}

export const batchTracesResponseExample = {
  accepted: 2,
  rejected: [],
  items: [
    { trace_id: 'tr_01', status: 'success' },
    { trace_id: '019ab1c2-7d4e-7f00-8a1b-2c3d4e5f6a7b', status: 'success' },
  ],
}

export const projectExample = {
  project_id: 'support-bot',
  name: 'support-bot',
  description: 'The customer support assistant',
  created_at: '2026-11-23T10:00:00.000',
}

export const createProjectInputExample = {
  name: 'support-bot',
  environment: 'production',
  description: 'The customer support assistant',
}

export const apiKeyCreatedExample = {
  key_id: '019ab1c2-0000-7000-8000-000000000001',
  key: 'loupe_sk_avUsA86KKIvZ5uHSJo0zmxzavGo2OID5',
  key_preview: 'loupe_sk_avUs…OID5',
  project_id: 'support-bot',
  environment: 'production',
  kind: 'secret',
  created_at: '2026-11-23T10:00:00.000',
}

export const createProjectResponseExample = {
  project: projectExample,
  api_key: apiKeyCreatedExample,
}

export const listProjectsExample = { total: 1, items: [projectExample] }

export const apiKeyExample = {
  key_id: '019ab1c2-0000-7000-8000-000000000001',
  key_preview: 'loupe_sk_avUs…OID5',
  project_id: 'support-bot',
  project_name: 'support-bot',
  environment: 'production',
  kind: 'secret',
  created_at: '2026-11-23T10:00:00.000',
  last_used_at: '2026-11-23T10:15:02.900',
  revoked_at: null,
}

export const listApiKeysExample = { total: 1, items: [apiKeyExample] }

export const createApiKeyInputExample = { project_id: 'support-bot', environment: 'staging' }

export const analyticsSummaryExample = {
  total_traces: 3,
  success_rate: 66.67,
  average_latency: 1604.17,
  p95_latency: 2800,
  total_token_usage: 412,
  traces_without_tokens: 0,
  failed_traces: 1,
  warning_traces: 0,
  retries: 1,
  slow_requests: 0,
  total_cost: 0.0041039,
  unpriced_traces: 1,
}

export const chartPointExample = { label: '10:00', latency: 1604.17, tokens: 412, traces: 3, cost: 0.0041039 }

export const costBreakdownEntryExample = { key: 'gpt-4o', cost: 0.0041, count: 1, unpriced: 0 }

export const breakdownEntryExample = { key: 'gpt-4o-mini', count: 2 }

const failedTraceExample = {
  ...traceExample,
  trace_id: 'tr_02',
  status: 'failed',
  failure_reason: 'tool web_search failed: timeout',
  retry_count: 1,
  response: null,
  steps: [],
}

export const scoreAnalyticsExample = {
  name: 'helpfulness',
  data_type: 'numeric',
  count: 2,
  mean: 0.7,
  labels: [],
  series: [{ timestamp: '2026-11-28T10:00:00.000Z', count: 2, mean: 0.7 }],
}

export const callBreakdownEntryExample = { key: 'researcher', traces: 3, calls: 5, failures: 1, mean_latency: 812.4 }

export const analyticsExample = {
  summary: analyticsSummaryExample,
  charts: [chartPointExample],
  status_breakdown: [
    { key: 'success', count: 2 },
    { key: 'failed', count: 1 },
  ],
  model_breakdown: [breakdownEntryExample, { key: 'gpt-4o', count: 1 }],
  project_breakdown: [{ key: 'support-bot', count: 3 }],
  cost_breakdown: [costBreakdownEntryExample, { key: 'gpt-4o-mini', cost: 0.0000039, count: 2, unpriced: 1 }],
  agent_breakdown: [callBreakdownEntryExample],
  tool_breakdown: [{ key: 'search', traces: 2, calls: 4, failures: 0, mean_latency: 120.5 }],
  recent_failures: [failedTraceExample],
  scores: [scoreAnalyticsExample],
}

export const failuresExample = {
  failed_traces: [failedTraceExample],
  retries: [failedTraceExample],
  slow_requests: [],
  totals: { failed_traces: 1, retries: 1, slow_requests: 0 },
}

export const rootExample = { message: 'Loupe is running' }

export const healthExample = {
  status: 'ok',
  version: '0.1.0',
  uptime_seconds: 3600,
  database: { status: 'up', dialect: 'sqlite' },
  otlp: { failed_traces: 0, unmatched_log_records: 0 },
}

export const otlpRequestExample = {
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'support-bot' } }] },
      scopeSpans: [
        {
          scope: { name: 'openinference.instrumentation.openai', version: '0.1.0' },
          spans: [
            {
              traceId: '5b8efff798038103d269b633813fc60c',
              spanId: 'eee19b7ec3c1b174',
              name: 'ChatCompletion',
              kind: 3,
              startTimeUnixNano: '1763892902120000000',
              endTimeUnixNano: '1763892902760250000',
              attributes: [
                { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o-mini' } },
                { key: 'gen_ai.usage.input_tokens', value: { intValue: '14' } },
                { key: 'gen_ai.usage.output_tokens', value: { intValue: '3' } },
              ],
              status: { code: 1 },
            },
          ],
        },
      ],
    },
  ],
}

export const otlpResponseExample = { partialSuccess: { rejectedSpans: '1', errorMessage: 'span 2: no traceId' } }

export const otlpLogsRequestExample = {
  resourceLogs: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'support-bot' } }] },
      scopeLogs: [
        {
          scope: { name: '@opentelemetry/instrumentation-openai', version: '0.22.0' },
          logRecords: [
            {
              timeUnixNano: '1763892902120000000',
              attributes: [
                { key: 'event.name', value: { stringValue: 'gen_ai.user.message' } },
                { key: 'gen_ai.system', value: { stringValue: 'openai' } },
              ],
              body: { kvlistValue: { values: [{ key: 'content', value: { stringValue: 'Where is my order?' } }] } },
              traceId: '5b8efff798038103d269b633813fc60c',
              spanId: 'eee19b7ec3c1b174',
            },
          ],
        },
      ],
    },
  ],
}

export const otlpLogsResponseExample = {
  partialSuccess: {
    rejectedLogRecords: '1',
    errorMessage: '1 of 3 log records rejected. 1 log record: arrived after its trace was stored',
  },
}

export const metricsExample = [
  '# HELP loupe_traces_ingested_total Traces stored (a re-sent trace already stored is not counted again).',
  '# TYPE loupe_traces_ingested_total counter',
  'loupe_traces_ingested_total 1042',
  '',
  '# HELP loupe_store_traces Traces stored.',
  '# TYPE loupe_store_traces gauge',
  'loupe_store_traces 1042',
  '',
].join('\n')

export const projectRetentionExample = {
  project_id: 'support-bot',
  retention_days: 30,
  retention_max_traces: null,
  effective: { retention_days: 30, retention_max_traces: 1_000_000 },
}

export const setRetentionExample = { retention_days: 30, retention_max_traces: null }

export const deleteTracesExample = { deleted: 1200 }

export const deleteProjectExample = {
  project_id: 'support-bot',
  deleted_traces: 52031,
  deleted_api_keys: 2,
  deleted_pending_spans: 0,
}

/** A score of the example trace, as the trace read by its id (and its export) carries it. */
const traceScoreExample = {
  score_id: '0193a2b4-77c1-7d2e-9f00-5c3b2a1d0e9f',
  project_id: 'support-bot',
  trace_id: 'tr_01',
  step_index: null,
  session_id: 'sess_42',
  name: 'helpfulness',
  data_type: 'numeric',
  value: 0.8,
  label: null,
  comment: null,
  source: 'feedback',
  author: null,
  created_at: '2026-11-23T10:16:40.000Z',
  metadata: {},
}
export const exportNdjsonExample = `${JSON.stringify({ ...traceExample, scores: [traceScoreExample] })}\n`

export const exportCsvExample =
  'trace_id,project_id,environment,name,model,prompt,response,latency,token_count,prompt_tokens,completion_tokens,' +
  'tokens_reported,cost,status,failure_reason,retry_count,session_id,user_id,experiment_id,dataset_item_id,tags,' +
  'metadata,created_at,step_count,scores\r\n' +
  'tr_01,support-bot,production,answer_question,gpt-4o-mini,What is the capital of France?,Paris.,812.5,17,14,3,true,' +
  '0.0000039,success,,0,sess_42,user_7,,,"[""faq""]","{""region"":""eu""}",2026-11-23T10:15:02.932Z,2,' +
  '"{""helpfulness"":{""count"":1,""mean"":0.8}}"\r\n'

export const alertRuleInputExample = {
  name: 'Support bot failing',
  project_id: 'support-bot',
  metric: 'failure_rate',
  window_minutes: 15,
  threshold: 5,
  destination: { type: 'webhook', url: 'https://hooks.example.com/loupe', secret: 'a-shared-secret-of-16+' },
}

export const alertRuleExample = {
  rule_id: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b',
  name: 'Support bot failing',
  project_id: 'support-bot',
  metric: 'failure_rate',
  score_name: null,
  direction: 'above',
  window_minutes: 15,
  threshold: 5,
  destination: { type: 'webhook', url: 'https://hooks.example.com/loupe', signed: true },
  state: 'ok',
  last_value: 1.2,
  last_evaluated_at: '2026-11-23T10:15:00.000Z',
  created_at: '2026-11-23T09:00:00.000Z',
}

export const alertEventExample = {
  event_id: '0193a1b3-1111-7e4f-8a9b-0c1d2e3f4a5b',
  rule_id: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b',
  rule_name: 'Support bot failing',
  project_id: 'support-bot',
  metric: 'failure_rate',
  kind: 'fired',
  value: 12.5,
  threshold: 5,
  at: '2026-11-23T10:16:00.000Z',
  delivery: 'delivered',
  attempts: 1,
  last_error: null,
}

export const modelPriceExample = {
  pattern: 'my-finetune-*',
  input_price: 3,
  output_price: 15,
  cached_input_price: 0.3,
  updated_at: '2026-11-23T10:00:00.000Z',
}

export const listModelPricesExample = { total: 1, items: [modelPriceExample] }

export const putModelPriceExample = { input_price: 3, output_price: 15, cached_input_price: 0.3 }

export const recomputeCostsBodyExample = { since: '2026-11-01T00:00:00Z' }

export const recomputeCostsResponseExample = { scanned: 120000, changed: 3150 }

export const sessionSummaryExample = {
  session_id: 'sess_42',
  project_id: 'support-bot',
  user_id: 'user_7',
  traces: 3,
  first_at: '2026-11-23T10:15:02.932Z',
  last_at: '2026-11-23T10:19:40.110Z',
  latency_total: 2437.5,
  token_count: 412,
  cost: 0.0041039,
  unpriced: 0,
  failed: 1,
  warnings: 0,
  scores: { helpfulness: { count: 2, mean: 0.85 } },
}

// A user's figures are the same activity summed over their sessions (here: the one above).
const { session_id: _session, user_id: _user, project_id: _project, ...sessionActivity } = sessionSummaryExample
export const userSummaryExample = { user_id: 'user_7', project_id: 'support-bot', sessions: 1, ...sessionActivity }

export const listSessionsExample = { total: 1, items: [sessionSummaryExample] }
export const sessionDetailExample = { session: sessionSummaryExample, traces: [traceExample] }
export const listUsersExample = { total: 1, items: [userSummaryExample] }
export const userDetailExample = { user: userSummaryExample, sessions: [sessionSummaryExample] }

export const scoreExample = {
  score_id: '0193a2b4-77c1-7d2e-9f00-5c3b2a1d0e9f',
  project_id: 'default',
  trace_id: '0193a2b4-6f00-7c3e-8a11-2b4c6d8e0f12',
  step_index: null,
  session_id: 'chat-42',
  name: 'helpfulness',
  data_type: 'numeric',
  value: 0.8,
  label: null,
  comment: 'Right answer, a little long.',
  source: 'annotation',
  author: 'ana',
  created_at: '2026-11-28T10:15:02.120Z',
  metadata: {},
}

export const scoreInputExample = {
  trace_id: '0193a2b4-6f00-7c3e-8a11-2b4c6d8e0f12',
  name: 'helpfulness',
  value: 0.8,
  comment: 'Right answer, a little long.',
  author: 'ana',
}

export const batchScoresBodyExample = {
  scores: [
    scoreInputExample,
    { trace_id: '0193a2b4-6f00-7c3e-8a11-2b4c6d8e0f12', name: 'thumbs', value: true, source: 'feedback' },
  ],
}

export const batchScoresResponseExample = {
  accepted: 1,
  rejected: [{ index: 1, message: 'body/scores/1/trace_id: no such trace' }],
  items: [{ score_id: scoreExample.score_id, trace_id: scoreExample.trace_id }],
}

export const listScoresExample = { total: 1, items: [scoreExample], next_cursor: null }

export const scoreConfigExample = {
  name: 'helpfulness',
  data_type: 'numeric',
  min: 0,
  max: 1,
  categories: null,
  description: 'Did the answer help? 0: not at all, 1: fully.',
  created_at: '2026-11-28T09:00:00.000Z',
  updated_at: '2026-11-28T09:00:00.000Z',
}

export const scoreConfigInputExample = {
  name: 'helpfulness',
  data_type: 'numeric',
  min: 0,
  max: 1,
  description: 'Did the answer help? 0: not at all, 1: fully.',
}

export const listScoreConfigsExample = { total: 1, items: [scoreConfigExample] }

export const evaluatorInputExample = {
  name: 'answers-are-json',
  project_id: 'support-bot',
  filter: { model: 'gpt-4o-mini' },
  sample_rate: 1,
  score_name: 'json_valid',
  kind: 'json',
  config: { field: 'response' },
}

export const testEvaluatorBodyExample = { evaluator: evaluatorInputExample, trace_id: 'tr-1' }

export const testEvaluatorResponseExample = {
  score: {
    name: 'json_valid',
    data_type: 'boolean',
    value: 0,
    label: 'false',
    comment: 'the response is not valid JSON: Unexpected token \'S\', "Sure! Here" is not valid JSON',
    source: 'evaluator',
    author: 'answers-are-json',
    metadata: {},
  },
  error: null,
  raw: null,
}

export const listJudgeTemplatesExample = {
  total: 1,
  items: [
    {
      id: 'toxicity',
      description: 'Is the answer free of insults, threats, harassment and hate? true: it is.',
      template:
        'Is the answer free of insults, threats, harassment and hate speech? Answer true when it is.\n\nQuestion:\n{{prompt}}\n\nAnswer:\n{{response}}',
      score: { data_type: 'boolean' },
    },
  ],
}

export const evaluatorStatsExample = {
  evaluated: 1204,
  errors: 3,
  pending: 12,
  last_error: 'the judge gave no usable verdict: "score" 7 is not between 0 and 1',
  last_error_at: '2026-11-28T10:12:00.000Z',
  last_evaluated_at: '2026-11-28T10:15:02.000Z',
  judge_tokens: { prompt: 612_004, completion: 48_160 },
  judge_cost: 0.1207,
}

export const evaluatorExample = {
  evaluator_id: '019ac0a1-0000-7000-8000-000000000001',
  ...evaluatorInputExample,
  enabled: true,
  created_at: '2026-11-28T09:00:00.000Z',
  updated_at: '2026-11-28T09:00:00.000Z',
  stats: evaluatorStatsExample,
}

export const evaluatorRunBodyExample = { since: '2026-11-27T00:00:00Z', until: '2026-11-28T00:00:00Z' }

export const evaluatorRunExample = {
  run_id: '019ac0a1-0000-7000-8000-00000000f001',
  evaluator_id: '019ac0a1-0000-7000-8000-000000000001',
  status: 'running',
  since: '2026-11-27T00:00:00.000Z',
  until: '2026-11-28T00:00:00.000Z',
  total: 5000,
  enumerated: true,
  done: 1250,
  errors: 2,
  cost: 0.0311,
  last_error: null,
  created_at: '2026-11-28T10:00:00.000Z',
  finished_at: null,
}

export const listEvaluatorRunsExample = { total: 1, items: [evaluatorRunExample] }

export const listEvaluatorsExample = { total: 1, items: [evaluatorExample] }
export const annotationQueueInputExample = {
  name: 'Failed support answers',
  project_id: 'support-bot',
  description: 'Rate every failed answer of the support bot.',
  filter: { status: 'failed', environment: 'production' },
  score_names: ['helpfulness'],
}

export const annotationQueueExample = {
  queue_id: '0193a8f0-7c1e-7000-8000-00000000a001',
  name: 'Failed support answers',
  project_id: 'support-bot',
  description: 'Rate every failed answer of the support bot.',
  filter: { status: 'failed', environment: 'production' },
  score_names: ['helpfulness'],
  created_at: '2026-11-28T09:00:00.000Z',
  progress: { done: 12, total: 40 },
}

export const listAnnotationQueuesExample = { total: 1, items: [annotationQueueExample] }

export const nextAnnotationItemExample = {
  queue_id: annotationQueueExample.queue_id,
  trace_id: 'tr_01HZX4K2V8',
  held_by: 'ana',
  held_until: '2026-11-28T09:05:00.000Z',
  progress: { done: 12, total: 40 },
}

export const datasetInputExample = {
  name: 'support-regressions',
  project_id: 'support-bot',
  description: 'Answers that went wrong, with the right answer.',
  metadata: { owner: 'ana' },
}

export const datasetExample = {
  dataset_id: '0193a8f0-7c1e-7000-8000-00000000d001',
  project_id: 'support-bot',
  name: 'support-regressions',
  description: 'Answers that went wrong, with the right answer.',
  metadata: { owner: 'ana' },
  item_count: 42,
  created_at: '2026-11-28T09:00:00.000Z',
  updated_at: '2026-11-28T09:00:00.000Z',
}

export const listDatasetsExample = { total: 1, items: [datasetExample] }

export const datasetItemInputExample = {
  input: 'How do I reset my password?',
  expected_output: 'Open Settings → Security → Reset password.',
  metadata: { topic: 'account' },
  source_trace_id: 'tr_01HZX4K2V8',
}

export const datasetItemExample = {
  dataset_item_id: '0193a8f0-7c1e-7000-8000-00000000e001',
  dataset_id: datasetExample.dataset_id,
  version: 2,
  status: 'active',
  input: 'How do I reset my password?',
  expected_output: 'Open Settings → Security → Reset password.',
  metadata: { topic: 'account' },
  source_trace_id: 'tr_01HZX4K2V8',
  created_at: '2026-11-28T09:00:00.000Z',
  updated_at: '2026-11-28T09:30:00.000Z',
}

export const addDatasetItemsExample = { added: 1, items: [datasetItemExample] }
export const listDatasetItemsExample = { total: 1, items: [datasetItemExample], next_cursor: null }
export const fromTracesBodyExample = { filter: { status: 'failed', since: '2026-11-27T00:00:00Z' }, limit: 500 }

export const experimentInputExample = {
  dataset_id: datasetExample.dataset_id,
  name: 'gpt-4o-mini prompt v7',
  metadata: { model: 'gpt-4o-mini', prompt_version: 7 },
}

export const experimentExample = {
  experiment_id: '0193a8f0-7c1e-7000-8000-00000000f001',
  project_id: 'support-bot',
  dataset_id: datasetExample.dataset_id,
  name: 'gpt-4o-mini prompt v7',
  as_of: '2026-11-28T10:00:00.000Z',
  metadata: { model: 'gpt-4o-mini', prompt_version: 7 },
  created_at: '2026-11-28T10:00:00.000Z',
}

export const listExperimentsExample = { total: 1, items: [experimentExample] }

export const experimentRunExample = {
  trace_id: 'tr_01HZX9Q3M2',
  status: 'success',
  output: 'Open Settings → Security → Reset password.',
  error: null,
  latency: 812.5,
  token_count: 240,
  cost: 0.00042,
  scores: { correctness: 1 },
}

export const experimentAggregatesExample = {
  items: 1,
  completed: 1,
  failed: 0,
  missing: 0,
  pass_rate: 1,
  latency_mean: 812.5,
  latency_p95: 812.5,
  total_tokens: 240,
  total_cost: 0.00042,
  unpriced: 0,
  scores: { correctness: { count: 1, mean: 1 } },
}

export const experimentDetailExample = {
  experiment: experimentExample,
  aggregates: experimentAggregatesExample,
  pending_evaluations: 0,
  items: [
    {
      dataset_item_id: datasetItemExample.dataset_item_id,
      version: 2,
      input: datasetItemExample.input,
      expected_output: datasetItemExample.expected_output,
      run: experimentRunExample,
    },
  ],
}

export const compareExperimentsExample = {
  experiments: [experimentExample, { ...experimentExample, experiment_id: '0193a8f0-7c1e-7000-8000-00000000f002' }],
  aggregates: [experimentAggregatesExample, experimentAggregatesExample],
  aggregate_deltas: [
    { pass_rate: 0, latency_mean: 0, total_tokens: 0, total_cost: 0, scores: { correctness: 0 } },
    { pass_rate: 0, latency_mean: -120, total_tokens: -20, total_cost: -0.0001, scores: { correctness: 0 } },
  ],
  items: [
    {
      dataset_item_id: datasetItemExample.dataset_item_id,
      input: datasetItemExample.input,
      expected_output: datasetItemExample.expected_output,
      runs: [experimentRunExample, { ...experimentRunExample, latency: 692.5 }],
      deltas: [
        { latency: 0, token_count: 0, cost: 0, scores: { correctness: 0 } },
        { latency: -120, token_count: 0, cost: 0, scores: { correctness: 0 } },
      ],
    },
  ],
}

export const datasetJsonlExample =
  '{"input":"How do I reset my password?","expected_output":"Open Settings → Security → Reset password.",' +
  '"metadata":{"topic":"account"},"source_trace_id":"tr_01HZX4K2V8"}\n'

export const datasetCsvExample =
  'input,expected_output,metadata,source_trace_id\r\n' +
  'How do I reset my password?,Open Settings → Security → Reset password.,"{""topic"":""account""}",tr_01HZX4K2V8\r\n'
