// Projects and their API keys: create a project (its first key shown once, with a copy button), add a key to a
// project, revoke a key. Secrets are never listed: only previews.
import { type FormEvent, useState } from 'react'
import { Link } from 'wouter'
import type { ApiKey, Environment, Project } from '../../../../schemas/index.js'
import { useApiKeys, useCreateApiKey, useCreateProject, useProjects, useRevokeApiKey } from '../../api/queries.js'
import { formatTime } from '../../ui/format.js'
import { CopyButton, ErrorBox } from '../../ui/parts.js'

const ENVIRONMENTS: Record<Environment, string> = {
  development: 'development',
  staging: 'staging',
  production: 'production',
}

function EnvironmentSelect({ label }: { label: string }) {
  return (
    <select name="environment" defaultValue="production" aria-label={label}>
      {Object.keys(ENVIRONMENTS).map((env) => (
        <option key={env} value={env}>
          {env}
        </option>
      ))}
    </select>
  )
}

/** A secret shown once, right after it was created. */
function NewKey({ secret, onDone }: { secret: string; onDone: () => void }) {
  return (
    <div className="secret" role="status" aria-label="New API key">
      <span>New key — copy it now, it is not shown again:</span>
      <code data-testid="new-key">{secret}</code>
      <CopyButton text={() => secret} />
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  )
}

function ProjectKeys({
  project,
  keys,
  onCreated,
}: {
  project: Project
  keys: ApiKey[]
  onCreated: (secret: string) => void
}) {
  const create = useCreateApiKey()
  const revoke = useRevokeApiKey()
  const add = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const environment = new FormData(event.currentTarget).get('environment') as Environment
    create.mutate({ project_id: project.project_id, environment }, { onSuccess: (key) => onCreated(key.key) })
  }
  return (
    <section className="panel" aria-label={`Project ${project.name}`} data-project-id={project.project_id}>
      <div className="header">
        <h2 style={{ margin: 0 }}>{project.name}</h2>
        <code className="muted">{project.project_id}</code>
        <span className="spacer" />
        <Link href={`/traces?project_id=${encodeURIComponent(project.project_id)}`}>Traces</Link>
        <Link href={`/?project_id=${encodeURIComponent(project.project_id)}`}>Dashboard</Link>
      </div>
      {project.description && <p className="muted">{project.description}</p>}
      <table className="plain">
        <thead>
          <tr>
            <th>Key</th>
            <th>Environment</th>
            <th>Created</th>
            <th>Last used</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k.key_id} className={k.revoked_at ? 'muted' : undefined}>
              <td>
                <code>{k.key_preview}</code>
              </td>
              <td>{k.environment}</td>
              <td>{formatTime(`${k.created_at}Z`)}</td>
              <td>{k.last_used_at ? formatTime(`${k.last_used_at}Z`) : 'never'}</td>
              <td>
                {k.revoked_at ? (
                  'revoked'
                ) : (
                  <button
                    type="button"
                    className="danger"
                    disabled={revoke.isPending}
                    onClick={() => {
                      if (window.confirm(`Revoke ${k.key_preview}? Clients using it are refused at once.`))
                        revoke.mutate(k.key_id)
                    }}
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form className="inline" onSubmit={add} style={{ marginTop: 8 }}>
        <EnvironmentSelect label={`Environment of a new key for ${project.name}`} />
        <button type="submit" disabled={create.isPending}>
          Add key
        </button>
      </form>
      {create.isError && <ErrorBox error={create.error} />}
      {revoke.isError && <ErrorBox error={revoke.error} />}
    </section>
  )
}

export function Projects() {
  const projects = useProjects()
  const keys = useApiKeys()
  const create = useCreateProject()
  const [secret, setSecret] = useState<string | null>(null)
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = event.currentTarget
    const data = new FormData(form)
    create.mutate(
      {
        name: String(data.get('name') ?? ''),
        environment: data.get('environment') as Environment,
        description: String(data.get('description') ?? ''),
      },
      {
        onSuccess: (created) => {
          setSecret(created.api_key.key)
          form.reset()
        },
      },
    )
  }
  return (
    <div className="page">
      <div className="header">
        <h1>Projects</h1>
      </div>
      <section className="panel" aria-label="Create a project">
        <h2>Create a project</h2>
        <form className="inline" onSubmit={submit}>
          <label>
            Name
            <input name="name" required maxLength={100} />
          </label>
          <EnvironmentSelect label="Environment of its first key" />
          <label>
            Description
            <input name="description" maxLength={1000} style={{ width: 260 }} />
          </label>
          <button type="submit" className="primary" disabled={create.isPending}>
            Create
          </button>
        </form>
        {create.isError && <ErrorBox error={create.error} />}
      </section>
      {secret && <NewKey secret={secret} onDone={() => setSecret(null)} />}
      {projects.isError && <ErrorBox error={projects.error} />}
      {keys.isError && !projects.isError && <ErrorBox error={keys.error} />}
      {projects.data?.items.length === 0 && <p className="muted">No projects yet.</p>}
      {projects.data?.items.map((project) => (
        <ProjectKeys
          key={project.project_id}
          project={project}
          keys={keys.data?.items.filter((k) => k.project_id === project.project_id) ?? []}
          onCreated={setSecret}
        />
      ))}
    </div>
  )
}
