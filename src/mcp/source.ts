// What the MCP tools read and write through: the REST API's answers for the caller. Two implementations, one per door:
// over HTTP (/mcp) the app's own routes called in-process with the caller's credential (src/routes/mcp.ts); over
// stdio (`loupe mcp`) the SDK's client against a running server (src/cli/commands/mcp.ts), whose methods already have
// these names and signatures. Either way every answer has passed the REST routes' scope rules.
import type {
  AnalyticsQuery,
  AnalyticsResponse,
  FailuresQuery,
  FailuresResponse,
  ListSessionsQuery,
  ListSessionsResponse,
  ListTraceSummariesResponse,
  ListTracesQuery,
  Score,
  ScoreInput,
  SessionDetailResponse,
  SessionQuery,
  Trace,
} from '../../schemas/index.js'

/**
 * The REST calls the tools make. A refused or failed call throws an Error whose message is the REST answer's status
 * and message (`404 trace 'x' not found`), which the tool hands back to the model as it is.
 */
export interface McpSource {
  /** GET /traces?fields=summary */
  listTraceSummaries(query: Omit<ListTracesQuery, 'fields'>): Promise<ListTraceSummariesResponse>
  /** GET /traces/{trace_id} */
  getTrace(traceId: string): Promise<Trace>
  /** GET /failures */
  failures(query: FailuresQuery): Promise<FailuresResponse>
  /** GET /analytics */
  analytics(query: AnalyticsQuery): Promise<AnalyticsResponse>
  /** POST /scores */
  score(input: ScoreInput): Promise<Score>
  sessions: {
    /** GET /sessions */
    list(query: ListSessionsQuery): Promise<ListSessionsResponse>
    /** GET /sessions/{session_id} */
    get(sessionId: string, query: SessionQuery): Promise<SessionDetailResponse>
  }
}
