// The projects as <option>s of a picker: "any" first, then each project by name (and the chosen one even when the
// list does not hold it, e.g. a project key that may not list projects), and the project field of a filter bar.
import type { Project } from '../../../schemas/index.js'
import { useProjects } from '../api/queries.js'

export function ProjectOptions({
  projects,
  chosen,
  any,
}: {
  projects: Project[]
  chosen: string | undefined
  any: string
}) {
  return (
    <>
      <option value="">{any}</option>
      {chosen && !projects.some((p) => p.project_id === chosen) && <option value={chosen}>{chosen}</option>}
      {projects.map((p) => (
        <option key={p.project_id} value={p.project_id}>
          {p.name}
        </option>
      ))}
    </>
  )
}

/**
 * The project field of a filter bar (`project_id` in its form): a picker of the projects that applies at once, or a
 * text field when the projects cannot be listed (a project key may not list them).
 */
export function ProjectFilter({
  chosen,
  onPick,
}: {
  chosen: string | undefined
  onPick: (projectId: string | undefined) => void
}) {
  const projects = useProjects()
  return projects.isError ? (
    <label>
      Project
      <input name="project_id" defaultValue={chosen ?? ''} />
    </label>
  ) : (
    <label>
      Project
      <select name="project_id" defaultValue={chosen ?? ''} onChange={(e) => onPick(e.target.value || undefined)}>
        <ProjectOptions projects={projects.data?.items ?? []} chosen={chosen} any="Any" />
      </select>
    </label>
  )
}
