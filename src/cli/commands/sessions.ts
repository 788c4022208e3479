// loupe sessions list | get, loupe users: conversations (traces sharing a session_id) and who had them.
import type { Command } from 'commander'
import type { SessionSummary, UserSummary } from '../../client/index.js'
import type { CliContext } from '../context.js'
import { formatCost, formatTimestamp, traceLine } from '../format.js'
import { withPaging } from '../options.js'

/** The options a sessions or users list is given, as commander hands them over. */
interface ActivityOptions {
  project?: string
  since?: string
  until?: string
  limit: number
  offset: number
}

/** The query of a sessions or users list from its options (users have no --since or --until: left out). */
const activityQuery = (options: ActivityOptions) => ({
  project_id: options.project,
  since: options.since,
  until: options.until,
  limit: options.limit,
  offset: options.offset,
})

/** What a sessions or users table ends with: how much of the list it shows. */
const newestFirst = (list: { items: unknown[]; total: number }, noun: string) =>
  `${list.items.length} of ${list.total} ${noun}(s), newest activity first\n`

export function addSessionsCommands(program: Command, { io, out, paint, json, client, printList }: CliContext): void {
  // loupe sessions …
  const sessionColumns = [
    { header: 'LAST ACTIVE (UTC)', value: (s: SessionSummary) => formatTimestamp(s.last_at) },
    { header: 'PROJECT', value: (s: SessionSummary) => s.project_id, style: () => 'cyan' as const },
    { header: 'USER', value: (s: SessionSummary) => s.user_id ?? '-' },
    { header: 'TRACES', value: (s: SessionSummary) => String(s.traces), align: 'right' as const },
    { header: 'FAILED', value: (s: SessionSummary) => String(s.failed), align: 'right' as const },
    { header: 'TOKENS', value: (s: SessionSummary) => String(s.token_count), align: 'right' as const },
    {
      header: 'COST',
      value: (s: SessionSummary) => formatCost(s.unpriced === s.traces ? null : s.cost),
      align: 'right' as const,
    },
    { header: 'SESSION', value: (s: SessionSummary) => s.session_id, flex: true },
  ]
  const sessionsCommand = program.command('sessions').description('conversations: the traces sharing a session_id')
  withPaging(
    sessionsCommand
      .command('list', { isDefault: true })
      .description('list sessions, newest activity first')
      .option('-p, --project <project_id>', 'only this project')
      .option('--user <user_id>', 'only the sessions of this user')
      .option('--since <time>', 'active at or after (ISO 8601 or epoch)')
      .option('--until <time>', 'active before (ISO 8601 or epoch)'),
    'sessions',
  ).action(async (options, command: Command) => {
    const list = await client(command).sessions.list({ ...activityQuery(options), user_id: options.user })
    const empty = list.total === 0 ? 'No sessions match.\n' : 'No sessions past offset.\n'
    printList(options, list, sessionColumns, empty, newestFirst(list, 'session'))
  })
  sessionsCommand
    .command('get')
    .description('show a session: its totals, then its traces in order')
    .argument('<session_id>')
    .option('-p, --project <project_id>', 'the project of the session')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (sessionId: string, options, command: Command) => {
      const found = await client(command).sessions.get(sessionId, { project_id: options.project })
      if (options.json) return json(found)
      const s = found.session
      out(
        `${s.session_id} (${s.project_id}${s.user_id ? `, user ${s.user_id}` : ''}): ${s.traces} trace(s), ` +
          `${s.failed} failed, ${s.token_count} tokens, ${formatCost(s.unpriced === s.traces ? null : s.cost)}\n`,
      )
      const width = io.stdout.isTTY && io.stdout.columns ? io.stdout.columns : 160
      for (const trace of found.traces) out(traceLine(trace, paint, width))
    })
  withPaging(
    program
      .command('users')
      .description('list users, newest activity first')
      .option('-p, --project <project_id>', 'only this project'),
    'users',
  ).action(async (options, command: Command) => {
    const list = await client(command).users.list(activityQuery(options))
    printList(
      options,
      list,
      [
        { header: 'LAST ACTIVE (UTC)', value: (u: UserSummary) => formatTimestamp(u.last_at) },
        { header: 'PROJECT', value: (u) => u.project_id, style: () => 'cyan' },
        { header: 'SESSIONS', value: (u) => String(u.sessions), align: 'right' },
        { header: 'TRACES', value: (u) => String(u.traces), align: 'right' },
        { header: 'FAILED', value: (u) => String(u.failed), align: 'right' },
        { header: 'COST', value: (u) => formatCost(u.unpriced === u.traces ? null : u.cost), align: 'right' },
        { header: 'USER', value: (u) => u.user_id, flex: true },
      ],
      'No users match.\n',
      newestFirst(list, 'user'),
    )
  })
}
