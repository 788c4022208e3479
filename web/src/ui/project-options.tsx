// The projects as <option>s of a picker: "any" first, then each project by name (and the chosen one even when the
// list does not hold it, e.g. a project key that may not list projects).
import type { Project } from '../../../schemas/index.js'

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
