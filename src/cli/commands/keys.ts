// loupe keys list | create | revoke: keys are listed as previews, a new one is printed once.
import { type Command, Option } from 'commander'
import { API_KEY_KINDS } from '../../../schemas/index.js'
import type { CliContext } from '../context.js'
import { formatTimestamp } from '../format.js'
import { withNewKeyOptions } from '../options.js'

export function addKeysCommand(program: Command, { out, paint, json, client, printKey, printList }: CliContext): void {
  // loupe keys …
  const keys = program.command('keys').description('list, create and revoke API keys')
  keys
    .command('list')
    .description('list API keys (never their secrets)')
    .option('-p, --project <project_id>', 'only the keys of this project')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (options, command: Command) => {
      printList(
        options,
        await client(command).apiKeys.list({ project_id: options.project }),
        [
          { header: 'KEY ID', value: (k) => k.key_id },
          { header: 'KEY', value: (k) => k.key_preview },
          { header: 'PROJECT', value: (k) => k.project_id, style: () => 'cyan' },
          { header: 'ENVIRONMENT', value: (k) => k.environment },
          { header: 'KIND', value: (k) => k.kind },
          { header: 'CREATED (UTC)', value: (k) => formatTimestamp(k.created_at) },
          { header: 'LAST USED', value: (k) => formatTimestamp(k.last_used_at) },
          {
            header: 'STATE',
            value: (k) => (k.revoked_at ? 'revoked' : 'active'),
            style: (k) => (k.revoked_at ? 'red' : 'green'),
          },
        ],
        'No API keys.\n',
      )
    })

  withNewKeyOptions(keys.command('create'))
    .description('issue another API key for a project (printed once)')
    .requiredOption('-p, --project <project_id>', 'the project')
    .addOption(
      new Option('-k, --kind <kind>', 'secret, or public: for a browser or an app, it may only send feedback scores')
        .choices(API_KEY_KINDS)
        .default('secret'),
    )
    .action(async (options, command: Command) => {
      const created = await client(command).apiKeys.create({
        project_id: options.project,
        environment: options.environment,
        kind: options.kind,
      })
      if (options.json) return json(created)
      if (options.quiet) return out(`${created.key}\n`)
      out(`Created ${created.kind} key ${created.key_id} for project ${paint('cyan', created.project_id)}.\n`)
      printKey(created.key, created.environment)
    })

  keys
    .command('revoke')
    .description('revoke an API key: it is refused from now on')
    .argument('<key_id>', 'the KEY ID shown by `loupe keys list`')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (keyId: string, options, command: Command) => {
      const revoked = await client(command).apiKeys.revoke(keyId)
      if (options.json) return json(revoked)
      out(`Revoked key ${revoked.key_preview} of project ${paint('cyan', revoked.project_id)}.\n`)
    })
}
