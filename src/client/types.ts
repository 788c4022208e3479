// The SDK's public types. Every shape comes from schemas/ (Static<> there); this file only re-exports them and
// derives the camelCase views the SDK's calls take, so nothing here can drift from the contract.
import type { Static } from '@sinclair/typebox'
import type { ListApiKeysQuery, ScoreInput, StepInput, StepType, TraceInput } from '../../schemas/index.js'

export type {
  AnalyticsQuery,
  AnalyticsResponse,
  ApiError,
  ApiKey,
  ApiKeyCreated,
  BatchScoresResponse,
  CreateApiKeyInput,
  CreateEvaluatorRunBody,
  CreateProjectInput,
  CreateProjectResponse,
  Environment,
  Evaluator,
  EvaluatorInput,
  EvaluatorRun,
  EvaluatorStats,
  FailuresQuery,
  FailuresResponse,
  HealthResponse,
  ListApiKeysResponse,
  ListEvaluatorRunsResponse,
  ListEvaluatorsResponse,
  ListModelPricesResponse,
  ListProjectsResponse,
  ListScoreConfigsResponse,
  ListScoresQuery,
  ListScoresResponse,
  ListSessionsQuery,
  ListSessionsResponse,
  ListTracesQuery,
  ListTracesResponse,
  ListUsersQuery,
  ListUsersResponse,
  ModelPrice,
  Project,
  PutModelPriceBody,
  RecomputeCostsBody,
  RecomputeCostsResponse,
  Score,
  ScoreConfig,
  ScoreConfigInput,
  ScoreInput,
  ServerMessage,
  SessionDetailResponse,
  SessionQuery,
  SessionSummary,
  Step,
  StepInput,
  StepType,
  Trace,
  TraceInput,
  TraceStatus,
  UserDetailResponse,
  UserQuery,
  UserSummary,
} from '../../schemas/index.js'

export type ListApiKeysParams = Static<typeof ListApiKeysQuery>

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S
/** The same object type with camelCase keys (`session_id` → `sessionId`). */
export type CamelKeys<T> = { [K in keyof T as K extends string ? CamelCase<K> : K]: T[K] }

/** What `loupe.trace()` records about the call up front (TraceInput's fields, camelCase, all optional). */
export type TraceOptions = Partial<
  CamelKeys<Pick<TraceInput, 'trace_id' | 'name' | 'model' | 'prompt' | 'session_id' | 'user_id' | 'tags' | 'metadata'>>
>

/**
 * A score of the trace being recorded, given to `t.score()`: ScoreInput's fields, camelCase, without the ids the trace
 * supplies (`stepIndex` scores one of its steps).
 */
export type TraceScoreOptions = CamelKeys<Omit<ScoreInput, 'trace_id' | 'session_id' | 'project_id'>>

/** What `t.step()` records about a step up front (StepInput's fields; `type` hints the contract's step types). */
export type StepOptions = Pick<StepInput, 'name' | 'tool' | 'input' | 'metadata'> & {
  type?: StepType | (string & {})
}

/**
 * Token counts: a total, the contract's own names (`prompt_tokens`, `completion_tokens`, `total_tokens` — which is
 * also the `usage` object of OpenAI-style responses), their camelCase forms, or Anthropic-style
 * `input_tokens`/`output_tokens`.
 */
export type TokenUsage =
  | number
  | Partial<Pick<TraceInput, 'prompt_tokens' | 'completion_tokens' | 'total_tokens'>>
  | Partial<CamelKeys<Pick<TraceInput, 'prompt_tokens' | 'completion_tokens' | 'total_tokens'>>>
  | { input_tokens?: number | null; output_tokens?: number | null }

/** The handle a `loupe.trace()` callback receives. Every method is safe: none throws or waits on the network. */
export interface TraceContext {
  /** The trace's id (a UUIDv7 made by the SDK unless `traceId` was given): `loupe.getTrace(id)` finds it. */
  readonly traceId: string
  /** Runs `fn` as a step of the trace: its latency, return value (output) and thrown error are recorded. */
  step<T>(options: StepOptions, fn: (s: StepContext) => T | Promise<T>): Promise<T>
  /** The response text (default: the callback's return value; non-strings are recorded as JSON). */
  setResponse(response: unknown): void
  /** Token counts of the call. */
  setTokens(tokens: TokenUsage): void
  /** The model, when it is only known from the answer. */
  setModel(model: string): void
  /** Merges keys into the trace's metadata. */
  setMetadata(metadata: Record<string, unknown>): void
  /** Marks the trace failed with this reason without throwing. */
  setFailure(reason: string): void
  /**
   * Scores the trace (e.g. `t.score({ name: 'helpfulness', value: 0.9 })`), during the call or any time after it:
   * sent once the trace itself has been delivered; a score the server refuses is reported as a warning.
   */
  score(score: TraceScoreOptions): void
}

/** The handle a `t.step()` callback receives. */
export interface StepContext {
  /** The step's output (default: the callback's return value). */
  setOutput(output: unknown): void
  /** Token counts of the step. */
  setTokens(tokens: TokenUsage): void
  /** Merges keys into the step's metadata. */
  setMetadata(metadata: Record<string, unknown>): void
}

/** Counters of what the SDK did with the traces it recorded. */
export interface LoupeStats {
  /** Traces recorded by `trace()` and queued. */
  queued: number
  /** Traces the server acknowledged (stored now or already stored). */
  delivered: number
  /** Traces the server refused one by one (invalid): a warning names each. */
  rejected: number
  /** Traces given up: the queue overflowed, or the server refused the whole batch (e.g. a bad key). */
  dropped: number
  /** Traces waiting in memory or in flight. */
  pending: number
  /** Batch requests made, and how many of them will be retried. */
  requests: number
  retries: number
}
