// loupe projects create | list.
import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { formatTimestamp } from '../format.js'
import { withNewKeyOptions } from '../options.js'

export function addProjectsCommand(
  program: Command,
  { out, paint, json, client, printKey, printList }: CliContext,
): void {
  // loupe projects …
  const projects = program.command('projects').description('create, list and delete projects')
  withNewKeyOptions(projects.command('create'))
    .description('create a project and its first API key (the key is printed once)')
    .requiredOption('-n, --name <name>', 'project name; its slug becomes the project_id')
    .option('--description <text>', 'free text')
    .action(async (options, command: Command) => {
      const created = await client(command).projects.create({
        name: options.name,
        environment: options.environment,
        description: options.description,
      })
      if (options.json) return json(created)
      if (options.quiet) return out(`${created.api_key.key}\n`)
      out(`Created project ${paint('cyan', created.project.project_id)} (${created.project.name}).\n`)
      printKey(created.api_key.key, created.api_key.environment)
    })

  projects
    .command('list')
    .description('list every project, oldest first')
    .option('--json', 'print the server’s answer as JSON')
    .action(async (options, command: Command) => {
      printList(
        options,
        await client(command).projects.list(),
        [
          { header: 'PROJECT ID', value: (p) => p.project_id, style: () => 'cyan' },
          { header: 'NAME', value: (p) => p.name },
          { header: 'CREATED (UTC)', value: (p) => formatTimestamp(p.created_at) },
          { header: 'DESCRIPTION', value: (p) => p.description, flex: true },
        ],
        'No projects yet. Create one: loupe projects create --name "My App"\n',
      )
    })
}
