// The MCP tools (docs/api.md, MCP): each one REST question, its input schema composed in schemas/mcp.ts, its answer
// shaped by answers.ts. Written once, over an McpSource, for both doors (/mcp and `loupe mcp`).

import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { TSchema } from '@sinclair/typebox'
import type { ValidateFunction } from 'ajv'
import {
  AddScoreInput,
  CompareTracesInput,
  GetAnalyticsInput,
  GetFailuresInput,
  GetSessionInput,
  GetTraceInput,
  ListSessionsInput,
  MCP_COMPARE_ROWS,
  MCP_PREVIEW_LIMIT,
  MCP_TEXT_LIMIT,
  SearchTracesInput,
  TIMESTAMP_FORMAT,
} from '../../schemas/index.js'
import { type Compiler, describeErrors } from '../lib/validation.js'
import { analyticsAnswer, compareAnswer, failuresAnswer, searchAnswer, sessionAnswer, traceAnswer } from './answers.js'
import type { McpSource } from './source.js'

interface ToolSpec {
  name: string
  title: string
  description: string
  input: TSchema
  /** Whether it records something: offered only to a credential that may (add_score). */
  writes: boolean
  // biome-ignore lint/suspicious/noExplicitAny: each spec's arguments are checked against its own input schema first
  run(source: McpSource, args: any): Promise<unknown>
}

const SPECS: ToolSpec[] = [
  {
    name: 'search_traces',
    title: 'Search traces',
    description:
      'Lists recorded traces (LLM calls of the app), newest first by default, as summaries: id, name, model, status, ' +
      'failure reason, latency (ms), tokens, cost (USD), session, user, tags, score means, step count — no prompt, ' +
      'response or steps (get_trace has them). Takes every filter of GET /traces: status, model, latency, tokens, ' +
      'cost, session, user, environment, time range, scores, and `q` (full text over prompts, responses, failure ' +
      'reasons and step inputs/outputs/errors); `sort`/`order`; `cursor` (the previous answer’s next_cursor) for ' +
      'the next page.',
    input: SearchTracesInput,
    writes: false,
    run: async (source, args) => searchAnswer(await source.listTraceSummaries(args)),
  },
  {
    name: 'get_trace',
    title: 'Get a trace',
    description:
      'One trace by its trace_id: prompt, response, failure reason, metadata, scores and its steps (model calls, ' +
      'tool calls, retrievals …, each with its parent_index: the steps form a tree). `steps`: `none`, `summary` ' +
      '(default: what each step was and how it went) or `full` (with inputs and outputs); `step_offset`/`step_limit` ' +
      `page through a long trace. Texts longer than ${MCP_TEXT_LIMIT} characters are cut with a note unless ` +
      '`full_text` is true.',
    input: GetTraceInput,
    writes: false,
    run: async (source, args) => traceAnswer(await source.getTrace(args.trace_id), args),
  },
  {
    name: 'compare_traces',
    title: 'Compare two traces',
    description:
      'Two traces side by side (e.g. a failed run and a good one): each one’s status, latency (ms), tokens, cost ' +
      '(USD), step count, prompt and response, and the differences (B minus A); then their steps aligned in order ' +
      'by type and name, each pair `same`, `changed` (with which of status, error, input and output differ), ' +
      `\`added\` (only in B) or \`missing\` (only in A), at most ${MCP_COMPARE_ROWS} pairs. Texts longer than ` +
      `${MCP_PREVIEW_LIMIT} characters are cut with a note unless \`full_text\` is true; get_trace shows a step whole.`,
    input: CompareTracesInput,
    writes: false,
    run: async (source, { trace_a, trace_b, full_text }) => {
      const [a, b] = await Promise.all([source.getTrace(trace_a), source.getTrace(trace_b)])
      return compareAnswer(a, b, full_text)
    },
  },
  {
    name: 'get_failures',
    title: 'Get failures',
    description:
      'What went wrong: the newest failed traces, traces that retried a tool, and slow traces (latency at or above ' +
      'the server’s threshold), each list as trace summaries with the failure reason, and the full count of each.',
    input: GetFailuresInput,
    writes: false,
    run: async (source, args) => failuresAnswer(await source.failures(args)),
  },
  {
    name: 'get_analytics',
    title: 'Get analytics',
    description:
      'Figures over all traces (or one project’s): count, success rate, mean and p95 latency, tokens, cost, ' +
      'failures, warnings, retries, slow requests; the last 24 hours by hour; counts by status, model and project; ' +
      'cost by model; score statistics; and the 10 newest failures as summaries.',
    input: GetAnalyticsInput,
    writes: false,
    run: async (source, args) => analyticsAnswer(await source.analytics(args)),
  },
  {
    name: 'list_sessions',
    title: 'List sessions',
    description:
      'Sessions (conversations: the traces sharing a session_id), newest activity first, each with its user, trace ' +
      'count, time span, total latency, tokens, cost, failures, warnings and score means. Filters: project, user, ' +
      'time range.',
    input: ListSessionsInput,
    writes: false,
    run: async (source, args) => source.sessions.list(args),
  },
  {
    name: 'get_session',
    title: 'Get a session',
    description:
      'One session: its summary, then its traces oldest first as summaries with their prompt and response (cut at ' +
      `${MCP_PREVIEW_LIMIT} characters unless \`full_text\` is true). A session_id is per project: give project_id ` +
      'when several projects use it (default: the most recently active).',
    input: GetSessionInput,
    writes: false,
    run: async (source, { full_text, session_id, ...query }) =>
      sessionAnswer(await source.sessions.get(session_id, query), full_text),
  },
  {
    name: 'add_score',
    title: 'Add a score',
    description:
      'Records a score: of a trace (trace_id, optionally step_index for one of its steps) or of a session ' +
      '(session_id alone). A number, true/false, or a category (`value`, or `label` for a categorical score); ' +
      '`name` says what it measures (e.g. `correctness`); `comment` why. Answers the stored score. Sending the same ' +
      'score_id again changes nothing.',
    input: AddScoreInput,
    writes: true,
    run: async (source, args) => source.score(args),
  },
]

/** A tool's input schema as clients are shown it: Loupe's own timestamp format is a name only its validator knows. */
function advertised(schema: TSchema): Tool['inputSchema'] {
  return JSON.parse(JSON.stringify(schema), (key, value) =>
    key === 'format' && value === TIMESTAMP_FORMAT ? undefined : value,
  )
}

/** An argument the model got wrong: what it is told, naming the field. */
export class InvalidArguments extends Error {}

export interface McpTools {
  /** The tools a caller is shown: all, or only those that read. */
  list(writes: boolean): Tool[]
  /** Whether a tool of this name exists and the caller may use it. */
  offers(name: string, writes: boolean): boolean
  /** Checks the arguments (throws InvalidArguments naming the field) and asks the source. */
  call(name: string, args: unknown, source: McpSource): Promise<unknown>
}

/** The tools, their input checks compiled once (by the strict body validator: no coercion, defaults filled). */
export function createMcpTools(compiler: Compiler): McpTools {
  const tools = SPECS.map((spec) => ({
    spec,
    validate: compiler.compile(spec.input) as ValidateFunction,
    shown: {
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: advertised(spec.input),
      annotations: {
        title: spec.title,
        readOnlyHint: !spec.writes,
        destructiveHint: false,
        idempotentHint: !spec.writes,
        openWorldHint: false,
      },
    } satisfies Tool,
  }))
  const byName = new Map(tools.map((tool) => [tool.spec.name, tool]))
  return {
    list: (writes) => tools.filter((tool) => writes || !tool.spec.writes).map((tool) => tool.shown),
    offers: (name, writes) => {
      const tool = byName.get(name)
      return tool !== undefined && (writes || !tool.spec.writes)
    },
    call: async (name, args, source) => {
      const tool = byName.get(name)
      if (!tool) throw new InvalidArguments(`unknown tool ${name}`)
      // A copy: the check fills defaults in.
      const input = structuredClone(args ?? {})
      if (!tool.validate(input)) throw new InvalidArguments(argumentError(name, tool.validate))
      return tool.spec.run(source, input)
    },
  }
}

/** `Invalid arguments for tool search_traces: arguments/limit must be <= 1000`: the field named as the model wrote it. */
function argumentError(tool: string, validate: ValidateFunction): string {
  const errors = validate.errors ?? []
  const extra = errors.find((e) => e.keyword === 'additionalProperties')
  const text = extra
    ? `arguments${extra.instancePath}/${String(extra.params.additionalProperty)} is not an argument of this tool`
    : describeErrors(errors, 'arguments')
  return `Invalid arguments for tool ${tool}: ${text}`
}
