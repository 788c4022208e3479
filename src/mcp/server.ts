// The MCP server (docs/api.md, MCP): the official SDK's low-level Server, given the tools, the trace resource and
// the source one caller's questions go to. Made per connection: per request over HTTP (stateless), once over stdio.
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'
import { version } from '../lib/version.js'
import type { McpSource } from './source.js'
import { InvalidArguments, type McpTools } from './tools.js'

/** A trace as a resource: `loupe://traces/{trace_id}`. */
export const TRACE_URI_PREFIX = 'loupe://traces/'
/** Traces offered by resources/list: the newest. */
const LISTED_TRACES = 20
/** The MCP code of an unknown resource. */
const RESOURCE_NOT_FOUND = -32002

const INSTRUCTIONS =
  'Loupe records the traces of an LLM application: each call with its prompt, response, status, latency, tokens, ' +
  'cost, scores and steps (model calls, tool calls, retrievals). To find out what went wrong, start with ' +
  'get_failures or search_traces (summaries; `q` searches the texts), then open one trace with get_trace. ' +
  'Conversations are sessions (list_sessions, get_session); get_analytics gives the figures. Long texts are cut ' +
  'with a note; ask again with full_text: true when the whole text matters.'

export interface McpServerOptions {
  tools: McpTools
  /** Where this caller's questions go (already confined to what the caller may see). */
  source: McpSource
  /** Whether the caller may record scores: add_score is offered only then. */
  writes: boolean
}

/**
 * The SDK checks what a client answers to an elicitation (the server asking the user for input) with a JSON Schema
 * validator, by default a new ajv for every Server — that is, here, for every request. This server never elicits, so
 * its validator compiles nothing and accepts nothing.
 */
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'this server asks no input of the user' }),
}

/** The HTTP status a source's failure carries (the SDK's LoupeError and the in-process source both set one). */
const statusOf = (err: unknown): number | null => {
  const status = (err as { status?: unknown } | null)?.status
  return typeof status === 'number' ? status : null
}
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err))

export function createMcpServer({ tools, source, writes }: McpServerOptions): Server {
  const server = new Server(
    { name: 'loupe', title: 'Loupe', version },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: NO_ELICITATION },
  )

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.list(writes) }))

  // A tool that fails answers a result with isError (the model reads it and can correct itself); only a tool that
  // does not exist is a protocol error.
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params
    if (!tools.offers(name, writes)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`)
    try {
      const answer = await tools.call(name, args, source)
      return { content: [{ type: 'text', text: JSON.stringify(answer) }] }
    } catch (err) {
      const text = err instanceof InvalidArguments ? err.message : `Loupe answered: ${messageOf(err)}`
      return { content: [{ type: 'text', text }], isError: true }
    }
  })

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: `${TRACE_URI_PREFIX}{trace_id}`,
        name: 'trace',
        title: 'A trace',
        description: 'One trace with its steps in full, as get_trace answers with steps: full.',
        mimeType: 'application/json',
      },
    ],
  }))

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const page = await source.listTraceSummaries({ limit: LISTED_TRACES }).catch((err: unknown) => {
      throw new McpError(ErrorCode.InternalError, `Loupe answered: ${messageOf(err)}`)
    })
    return {
      resources: page.items.map((trace) => ({
        uri: `${TRACE_URI_PREFIX}${encodeURIComponent(trace.trace_id)}`,
        name: trace.trace_id,
        title: trace.name ?? trace.trace_id,
        description: `${trace.status}${trace.model ? ` · ${trace.model}` : ''} · ${trace.created_at}`,
        mimeType: 'application/json',
      })),
    }
  })

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params
    const traceId = uri.startsWith(TRACE_URI_PREFIX) ? decodeOrNull(uri.slice(TRACE_URI_PREFIX.length)) : null
    if (traceId === null) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri })
    let answer: unknown
    try {
      answer = await tools.call('get_trace', { trace_id: traceId, steps: 'full' }, source)
    } catch (err) {
      if (err instanceof InvalidArguments || statusOf(err) === 404) {
        throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri })
      }
      throw new McpError(ErrorCode.InternalError, `Loupe answered: ${messageOf(err)}`)
    }
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(answer) }] }
  })

  return server
}

function decodeOrNull(text: string): string | null {
  try {
    return decodeURIComponent(text)
  } catch {
    return null
  }
}
