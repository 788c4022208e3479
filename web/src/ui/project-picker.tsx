// Picks the project a view is about (all projects by default); the choice lives in the URL as ?project_id=.
import { useProjects } from '../api/queries.js'
import { ProjectOptions } from './project-options.js'
import { useSearchParam } from './url.js'

export function ProjectPicker() {
  const projects = useProjects()
  const [projectId, setProjectId] = useSearchParam('project_id')
  // A project key may not list projects (403): it sees its own project only, so there is nothing to pick.
  if (projects.isError) return null
  return (
    <label className="muted">
      Project{' '}
      <select value={projectId ?? ''} onChange={(e) => setProjectId(e.target.value === '' ? null : e.target.value)}>
        <ProjectOptions projects={projects.data?.items ?? []} chosen={projectId ?? undefined} any="All projects" />
      </select>
    </label>
  )
}
