// GET /projects and POST /projects (the project is created with its first API key).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  CreateProjectInput,
  CreateProjectResponse,
  DeleteProjectResponse,
  errorResponses,
  ListProjectsResponse,
  ProjectParams,
} from '../../schemas/index.js'
import { acceptJsonOrNothing, mergeQueryIntoBody } from './merge-input.js'

const projects: FastifyPluginAsyncTypebox = async (app) => {
  acceptJsonOrNothing(app)
  // GET /projects
  app.get(
    '/projects',
    {
      config: { access: 'read' },
      schema: {
        tags: ['projects'],
        operationId: 'listProjects',
        summary: 'All projects, oldest first (with a project key: its own)',
        response: { 200: ListProjectsResponse },
      },
    },
    async (request) => {
      const items = await app.projects.listProjects(request.scope ?? undefined)
      return { total: items.length, items }
    },
  )

  // POST /projects
  app.post(
    '/projects',
    {
      preValidation: mergeQueryIntoBody,
      config: { access: 'admin' },
      schema: {
        tags: ['projects'],
        operationId: 'createProject',
        summary: 'Create a project and its first API key',
        description: 'Fields come from the query string or a JSON body. The key is shown only in this response.',
        querystring: Type.Partial(CreateProjectInput),
        body: CreateProjectInput,
        response: { 201: CreateProjectResponse, ...errorResponses(400, 401, 403, 409, 415) },
      },
    },
    async (request, reply) => reply.code(201).send(await app.projects.createProject(request.body)),
  )

  // DELETE /projects/{project_id}
  app.delete(
    '/projects/:project_id',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['projects'],
        operationId: 'deleteProject',
        summary: 'Delete a project with its traces, API keys and pending OTLP spans',
        description:
          'Revokes its keys first (nothing more is recorded for it), deletes its traces in batches (each announced ' +
          'on /ws as `trace.deleted`, every analytics figure kept exact), then the project itself. Cannot be undone.',
        params: ProjectParams,
        response: { 200: DeleteProjectResponse, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { project_id } = request.params
      const removed = await app.deletion.deleteProject(project_id)
      return {
        project_id,
        deleted_traces: removed.traces,
        deleted_api_keys: removed.api_keys,
        deleted_pending_spans: removed.pending_spans,
      }
    },
  )
}

export default projects
