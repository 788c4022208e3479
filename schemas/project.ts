// ProjectSchema and the /projects routes' shapes.
import { type Static, Type } from '@sinclair/typebox'
import { ApiKeyCreatedSchema } from './api-key.js'
import { EnvironmentSchema, Nullable, Page, Ref, ZonelessTimestamp } from './common.js'
import {
  createProjectInputExample,
  createProjectResponseExample,
  deleteProjectExample,
  listProjectsExample,
  projectExample,
  projectRetentionExample,
  setRetentionExample,
} from './examples.js'

export const ProjectSchema = Type.Object(
  {
    project_id: Type.String({ description: 'Slug of the name: lower-case, other characters → `-`, at most 64.' }),
    name: Type.String({ description: 'Project name.' }),
    description: Type.String({ description: 'Project description.' }),
    created_at: ZonelessTimestamp,
  },
  {
    $id: 'ProjectSchema',
    additionalProperties: false,
    description: 'A project owns traces and API keys.',
    examples: [projectExample],
  },
)
export type Project = Static<typeof ProjectSchema>

// POST /projects (fields in the query string, as the spec shows, or in a JSON body)
export const CreateProjectInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'Project name; its slug becomes the project_id.' }),
    environment: EnvironmentSchema,
    description: Type.Optional(Type.String({ maxLength: 1000, description: 'Free text; default empty.' })),
  },
  { examples: [createProjectInputExample] },
)
export type CreateProjectInput = Static<typeof CreateProjectInput>

export const CreateProjectResponse = Type.Object(
  {
    project: Ref(ProjectSchema),
    api_key: Ref(ApiKeyCreatedSchema),
  },
  { examples: [createProjectResponseExample] },
)
export type CreateProjectResponse = Static<typeof CreateProjectResponse>

// GET /projects
// DELETE /projects/{project_id}
export const ProjectParams = Type.Object({ project_id: Type.String() })

export const DeleteProjectResponse = Type.Object(
  {
    project_id: Type.String(),
    deleted_traces: Type.Integer({ minimum: 0 }),
    deleted_api_keys: Type.Integer({ minimum: 0 }),
    deleted_pending_spans: Type.Integer({ minimum: 0, description: 'OTLP spans that were waiting for their trace.' }),
  },
  { examples: [deleteProjectExample] },
)
export type DeleteProjectResponse = Static<typeof DeleteProjectResponse>

// GET and PUT /projects/{project_id}/retention
const RetentionDays = Type.Integer({
  minimum: 0,
  maximum: 36_500,
  description: 'Traces older than this many days are deleted; 0: kept whatever their age.',
})
const RetentionMaxTraces = Type.Integer({
  minimum: 0,
  maximum: 1_000_000_000,
  description: 'The oldest traces past this many are deleted; 0: no limit.',
})

/** A project's own retention: null follows the server's RETENTION_DAYS / RETENTION_MAX_TRACES. */
export const RetentionSettings = Type.Object(
  {
    retention_days: Nullable(RetentionDays),
    retention_max_traces: Nullable(RetentionMaxTraces),
  },
  { additionalProperties: false, examples: [setRetentionExample] },
)
export type RetentionSettings = Static<typeof RetentionSettings>

export const ProjectRetention = Type.Object(
  {
    project_id: Type.String(),
    ...RetentionSettings.properties,
    effective: Type.Object(
      { retention_days: RetentionDays, retention_max_traces: RetentionMaxTraces },
      { description: 'What the retention job applies: the project’s own values, else the server’s.' },
    ),
  },
  { examples: [projectRetentionExample] },
)
export type ProjectRetention = Static<typeof ProjectRetention>

export const ListProjectsResponse = Page(
  Ref(ProjectSchema),
  { items: 'Oldest first.' },
  { examples: [listProjectsExample] },
)
export type ListProjectsResponse = Static<typeof ListProjectsResponse>
