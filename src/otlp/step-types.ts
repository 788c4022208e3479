// The step type a span declares, by each convention's own name for its kind of span: GenAI operations, Langfuse
// observation types, OpenInference span kinds, OpenLLMetry's span kinds and request types, Vercel AI SDK operations.

import type { StepType } from '../../schemas/step.js'
import { own } from '../lib/own.js'
import type { AttributeReader } from './values.js'

/** `gen_ai.operation.name` → step type. */
const GENAI_OPERATIONS: Record<string, StepType> = {
  chat: 'llm',
  text_completion: 'llm',
  generate_content: 'llm',
  execute_tool: 'tool',
  embeddings: 'retrieval',
  retrieval: 'retrieval',
  invoke_agent: 'function',
  create_agent: 'function',
}

/** Langfuse's `langfuse.observation.type` → step type. */
const LANGFUSE_TYPES: Record<string, StepType> = {
  generation: 'llm',
  embedding: 'retrieval',
  retriever: 'retrieval',
  tool: 'tool',
  agent: 'function',
  chain: 'function',
  span: 'function',
  evaluator: 'other',
  guardrail: 'other',
  event: 'other',
}

/** `openinference.span.kind` → step type. */
const OPENINFERENCE_KINDS: Record<string, StepType> = {
  llm: 'llm',
  tool: 'tool',
  retriever: 'retrieval',
  embedding: 'retrieval',
  reranker: 'retrieval',
  chain: 'function',
  agent: 'function',
  guardrail: 'other',
  evaluator: 'other',
  prompt: 'other',
  decision: 'other',
  unknown: 'other',
}

/** `traceloop.span.kind` and OpenLLMetry's `llm.request.type` → step type. */
const TRACELOOP_KINDS: Record<string, StepType> = {
  workflow: 'function',
  task: 'function',
  agent: 'function',
  tool: 'tool',
}

const LLM_REQUEST_TYPES: Record<string, StepType> = {
  chat: 'llm',
  completion: 'llm',
  embedding: 'retrieval',
  rerank: 'retrieval',
}

/** Vercel AI SDK `ai.operationId` → step type (the inner `do*` calls are the model calls). */
const VERCEL_OPERATIONS: Record<string, StepType> = {
  'ai.generateText.doGenerate': 'llm',
  'ai.streamText.doStream': 'llm',
  'ai.generateObject.doGenerate': 'llm',
  'ai.streamObject.doStream': 'llm',
  'ai.toolCall': 'tool',
  'ai.embed.doEmbed': 'retrieval',
  'ai.embedMany.doEmbed': 'retrieval',
  'ai.generateText': 'function',
  'ai.streamText': 'function',
  'ai.generateObject': 'function',
  'ai.streamObject': 'function',
  'ai.embed': 'function',
  'ai.embedMany': 'function',
}

/** The step type the first convention that names one declares, else null. */
export function stepType(a: AttributeReader): StepType | null {
  const lookup = (table: Record<string, StepType>) => (v: unknown) =>
    typeof v === 'string' ? (own(table, v.trim().toLowerCase()) ?? own(table, v.trim()) ?? null) : null
  return (
    a.first(['gen_ai.operation.name'], lookup(GENAI_OPERATIONS)) ??
    a.first(['langfuse.observation.type'], lookup(LANGFUSE_TYPES)) ??
    a.first(['openinference.span.kind'], lookup(OPENINFERENCE_KINDS)) ??
    a.first(['traceloop.span.kind'], lookup(TRACELOOP_KINDS)) ??
    a.first(['llm.request.type'], lookup(LLM_REQUEST_TYPES)) ??
    a.first(['ai.operationId'], lookup(VERCEL_OPERATIONS))
  )
}
