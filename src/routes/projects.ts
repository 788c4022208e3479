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
  ProjectRetention,
  RetentionSettings,
} from '../../schemas/index.js'
import { ProjectNotFound } from '../errors.js'
import { inScope } from '../lib/access-policy.js'
import { LONG_RUNNING_MS } from '../lib/time.js'
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

  // GET /projects/{project_id}/retention
  app.get(
    '/projects/:project_id/retention',
    {
      config: { access: 'read' },
      schema: {
        tags: ['projects'],
        operationId: 'getProjectRetention',
        summary: 'A project’s retention: its own settings and what applies',
        params: ProjectParams,
        response: { 200: ProjectRetention, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { project_id } = request.params
      const found = inScope(request.scope, project_id) ? await app.retention.get(project_id) : null
      if (!found) throw new ProjectNotFound(project_id)
      return found
    },
  )

  // PUT /projects/{project_id}/retention
  app.put(
    '/projects/:project_id/retention',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['projects'],
        operationId: 'setProjectRetention',
        summary: 'Set a project’s retention (null follows the server’s settings)',
        description:
          'Overrides RETENTION_DAYS and RETENTION_MAX_TRACES for this project: `0` keeps its traces whatever their ' +
          'age (or number), `null` follows the server. The retention job applies it at its next pass.',
        params: ProjectParams,
        body: RetentionSettings,
        response: { 200: ProjectRetention, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { project_id } = request.params
      const set = await app.retention.set(project_id, request.body)
      if (!set) throw new ProjectNotFound(project_id)
      return set
    },
  )

  // DELETE /projects/{project_id}
  app.delete(
    '/projects/:project_id',
    {
      handlerTimeout: LONG_RUNNING_MS,
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
