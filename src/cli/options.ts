// Option parsers and option sets the commands share (the filters of GET /traces among them): each refuses a bad value with a sentence naming the flag.
import { type Command, InvalidArgumentError, Option } from 'commander'
import {
  ENVIRONMENTS,
  type Environment,
  TRACE_STATUSES,
  type TraceFilterQuery,
  type TraceStatus,
} from '../../schemas/index.js'

export const integer =
  (name: string, min: number, max = Number.MAX_SAFE_INTEGER) =>
  (value: string) => {
    const n = Number(value)
    if (!/^\d+$/.test(value.trim()) || n < min || n > max) {
      throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}.`)
    }
    return n
  }

export const nonNegative = (name: string) => (value: string) => {
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError(`${name} must be a number ≥ 0.`)
  return n
}

export const positive = (name: string) => (value: string) => {
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError(`${name} must be a number > 0.`)
  return n
}

/** The options of the commands that issue a key: its environment, and how to print the one-time secret. */
export const withNewKeyOptions = (command: Command) =>
  command
    .addOption(
      new Option('-e, --environment <environment>', 'environment of the key')
        .choices(ENVIRONMENTS)
        .default('development'),
    )
    .option('-q, --quiet', 'print only the key (for scripts)')
    .option('--json', 'print the server’s answer as JSON')

/** The paging of a list command (`-n, --limit` of 1–1000, default 20; `--offset`) and its `--json`. */
export const withPaging = (command: Command, things: string) =>
  command
    .option('-n, --limit <n>', `at most n ${things} (1–1000)`, integer('--limit', 1, 1000), 20)
    .option('--offset <n>', 'skip the first n', integer('--offset', 0), 0)
    .option('--json', 'print the server’s answer as JSON')

export const checkUrl = (value: string) => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new InvalidArgumentError('expected an http(s) URL such as http://127.0.0.1:3000.')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgumentError('expected an http(s) URL such as http://127.0.0.1:3000.')
  }
  return value
}

/** Adds the filter options to a command. */
export const withTraceFilters = (command: Command) =>
  command
    .option('-p, --project <project_id>', 'only this project')
    .addOption(new Option('-s, --status <status>', 'only this status').choices(TRACE_STATUSES))
    .option('-m, --model <model>', 'only this model')
    .addOption(new Option('-e, --environment <environment>', 'only this environment').choices(ENVIRONMENTS))
    .option('--session <session_id>', 'only this session')
    .option('--user <user_id>', 'only this user')
    .option('--min-latency <ms>', 'latency ≥ this many ms', nonNegative('--min-latency'))
    .option('--max-latency <ms>', 'latency ≤ this many ms', nonNegative('--max-latency'))
    .option('--min-tokens <n>', 'token_count ≥ n', integer('--min-tokens', 0))
    .option('--max-tokens <n>', 'token_count ≤ n', integer('--max-tokens', 0))
    .option('--min-cost <usd>', 'cost ≥ this many USD', nonNegative('--min-cost'))
    .option('--max-cost <usd>', 'cost ≤ this many USD', nonNegative('--max-cost'))
    .option('--since <time>', 'created at or after (ISO 8601 or epoch)')
    .option('--until <time>', 'created before (ISO 8601 or epoch)')
    .option('--q <words>', 'full-text search: every word somewhere in its text, in any language')

/** The filter options as commander hands them over, each already checked by its option (choices, parsers). */
export interface TraceFilterOptions {
  project?: string
  status?: TraceStatus
  model?: string
  environment?: Environment
  session?: string
  user?: string
  minLatency?: number
  maxLatency?: number
  minTokens?: number
  maxTokens?: number
  minCost?: number
  maxCost?: number
  since?: string
  until?: string
  q?: string
}

/** The query parameters of the filter options a command was given (absent ones left out). */
export function traceFilterQuery(options: TraceFilterOptions): TraceFilterQuery {
  return {
    project_id: options.project,
    status: options.status,
    model: options.model,
    environment: options.environment,
    session_id: options.session,
    user_id: options.user,
    min_latency: options.minLatency,
    max_latency: options.maxLatency,
    min_tokens: options.minTokens,
    max_tokens: options.maxTokens,
    min_cost: options.minCost,
    max_cost: options.maxCost,
    since: options.since,
    until: options.until,
    q: options.q,
  }
}

/** Whether any filter option was given. */
export const hasTraceFilter = (options: TraceFilterOptions) =>
  Object.values(traceFilterQuery(options)).some((v) => v !== undefined)
