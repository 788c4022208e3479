// loupe mcp: the MCP server over stdio, for an assistant that starts it as a local process. Its tools are the
// HTTP server's (src/mcp/), asked of the Loupe at --url with --token through the SDK's client — the same REST calls,
// under the same credential's scope. Only MCP messages go to stdout; anything else goes to stderr.
import { once } from 'node:events'
import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { CliError } from '../errors.js'

export function addMcpCommand(program: Command, { io, client }: CliContext): void {
  // loupe mcp
  program
    .command('mcp')
    .description(
      'serve the MCP tools over stdio for a local assistant, reading the Loupe server at --url with --token (ends ' +
        'when the assistant closes stdin)',
    )
    .option('--read-only', 'do not offer add_score, even when the credential may record scores')
    .action(async (options: { readOnly?: boolean }, command: Command) => {
      if (!io.stdio) throw new CliError('loupe mcp needs the process’s own stdin and stdout')
      const { stdin, stdout } = io.stdio
      // Loaded here: the other commands do not pay for the MCP SDK.
      const [{ StdioServerTransport }, { createMcpServer }, { createMcpTools }, { createValidators }] =
        await Promise.all([
          import('@modelcontextprotocol/sdk/server/stdio.js'),
          import('../../mcp/server.js'),
          import('../../mcp/tools.js'),
          import('../../lib/validation.js'),
        ])
      const server = createMcpServer({
        tools: createMcpTools(createValidators().body),
        source: client(command),
        // The server decides on each score as it does for any client; --read-only does not offer the tool at all.
        writes: options.readOnly !== true,
      })
      const transport = new StdioServerTransport(stdin, stdout)
      const closed = new Promise<void>((resolve) => {
        transport.onclose = resolve
      })
      await server.connect(transport)
      await Promise.race([once(stdin, 'end'), closed, io.interrupted()])
      await server.close()
    })
}
