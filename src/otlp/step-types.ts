// The step type a span declares, by each convention's own name for its kind of span: GenAI operations, Langfuse
// observation types, OpenInference span kinds, OpenLLMetry's span kinds and request types, Vercel AI SDK operations.
// Every convention that marks an agent invocation makes an `agent` step; LangGraph's nodes, which name no kind, are
// told from the tree (graphNode below, and assemble.ts).

import type { StepType } from '../../schemas/step.js'
import { own } from '../lib/own.js'
import { type AttributeReader, hasText, isRecord, parseJsonText } from './values.js'

/** `gen_ai.operation.name` → step type. */
const GENAI_OPERATIONS: Record<string, StepType> = {
  chat: 'llm',
  text_completion: 'llm',
  generate_content: 'llm',
  execute_tool: 'tool',
  embeddings: 'retrieval',
  retrieval: 'retrieval',
  invoke_agent: 'agent',
  create_agent: 'agent',
}

/** Langfuse's `langfuse.observation.type` → step type. */
const LANGFUSE_TYPES: Record<string, StepType> = {
  generation: 'llm',
  embedding: 'retrieval',
  retriever: 'retrieval',
  tool: 'tool',
  agent: 'agent',
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
  agent: 'agent',
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
  agent: 'agent',
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

/** A LangGraph library node (`__start__`, `__end__`, …) is the graph's own plumbing, never an agent. */
const isLibraryNode = (name: string) => name.startsWith('__')

/**
 * The graph node a span runs, when it is one: LangGraph's `langgraph.node`, OpenInference's `graph.node.id`, or
 * LangChain's run metadata (`metadata.langgraph_node`) on the span that runs the node itself (its name is the node's:
 * the calls inside it carry the same metadata under their own names). Read without counting as used: the attributes
 * stay in the step's metadata.
 */
export function graphNode(a: AttributeReader, spanName: string): string | null {
  const named = [a.peek('langgraph.node'), a.peek('graph.node.name'), a.peek('graph.node.id')].find(
    (v): v is string => typeof v === 'string' && v.trim() !== '',
  )
  if (named !== undefined) return isLibraryNode(named.trim()) ? null : named.trim()
  const metadata = parseJsonText(a.peek('metadata'))
  const node = isRecord(metadata) ? metadata.langgraph_node : undefined
  return typeof node === 'string' && node === spanName && !isLibraryNode(node) ? node : null
}

/**
 * The agent's name of an agent step: GenAI's `gen_ai.agent.name`, else the entity OpenLLMetry names, else the span's
 * own name (OpenInference names an AGENT span after its agent). Read without counting as used.
 */
export function agentName(a: AttributeReader, spanName: string): string | null {
  const named = [a.peek('gen_ai.agent.name'), a.peek('traceloop.entity.name')].find(hasText)
  return named?.trim() ?? (hasText(spanName) ? spanName.trim() : null)
}
