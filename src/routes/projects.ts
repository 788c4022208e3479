// GET /projects and POST /projects (the project is created with its first API key).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { CreateProjectInput, CreateProjectResponse, errorResponses, ListProjectsResponse } from '../../schemas/index.js'
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
}

export default projects
