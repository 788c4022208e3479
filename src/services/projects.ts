// Projects and their API keys: slugs, key issuing (the secret is shown once, only its hash is kept), revocation.
import { uuidv7 } from 'uuidv7'
import type {
  ApiKey,
  ApiKeyCreated,
  ApiKeyKind,
  CreateApiKeyInput,
  CreateProjectInput,
  CreateProjectResponse,
  Environment,
  Project,
} from '../../schemas/index.js'
import { ApiKeyNotFound, InvalidInput, ProjectExists, ProjectNotFound } from '../errors.js'
import { generateApiKey, hashApiKey, previewApiKey } from '../lib/credentials.js'
import { toZonelessIso } from '../lib/time.js'
import { isStoreUnavailableError } from '../store/index.js'
import type { ApiKeyRecord, KeyContext, Store } from '../store/types.js'

const SLUG_MAX = 64
/** last_used_at is refreshed at most this often per key, so a busy key does not write on every request. */
const TOUCH_INTERVAL_MS = 60_000

/** project_id of a name: lower-case, accents folded, runs of other characters → `-`, trimmed, at most 64. */
export function slugify(name: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      // Trimmed before the cut, so that leading punctuation does not eat into the 64 characters; and after it, in
      // case the cut lands on a dash.
      .replace(/^-+|-+$/g, '')
      .slice(0, SLUG_MAX)
      .replace(/-+$/, '')
  )
}

/**
 * A new key for a project: the record the store keeps (hash and preview only) and the answer that shows the secret
 * once. Every key Loupe issues is made here.
 */
export function issueKey(
  projectId: string,
  environment: Environment,
  at: number,
  kind: ApiKeyKind = 'secret',
): { record: ApiKeyRecord; created: ApiKeyCreated } {
  const key = generateApiKey(kind)
  const record: ApiKeyRecord = {
    key_id: uuidv7(),
    key_hash: hashApiKey(key),
    key_preview: previewApiKey(key),
    project_id: projectId,
    environment,
    kind,
    created_at: at,
  }
  const created: ApiKeyCreated = {
    key_id: record.key_id,
    key,
    key_preview: record.key_preview,
    project_id: projectId,
    environment,
    kind,
    created_at: toZonelessIso(at),
  }
  return { record, created }
}

export interface ProjectService {
  createProject(input: CreateProjectInput): Promise<CreateProjectResponse>
  /** Every project, or only `projectId` (none when it does not exist). */
  listProjects(projectId?: string): Promise<Project[]>
  createApiKey(input: CreateApiKeyInput): Promise<ApiKeyCreated>
  listApiKeys(projectId?: string): Promise<ApiKey[]>
  revokeApiKey(keyId: string): Promise<ApiKey>
  /** The project context of a presented secret; null when it is unknown or revoked. */
  identify(secret: string): Promise<KeyContext | null>
}

export function createProjectService(store: Store, now: () => number = Date.now): ProjectService {
  async function identify(secret: string): Promise<KeyContext | null> {
    const key = await store.projects.findApiKey(hashApiKey(secret))
    if (!key) return null
    const at = now()
    if (key.last_used_at === null || at - key.last_used_at >= TOUCH_INTERVAL_MS) {
      // Best effort: a database that is full or read-only must not turn every read with a key into a 503.
      try {
        await store.projects.touchApiKey(key.key_id, at)
      } catch (err) {
        if (!isStoreUnavailableError(err)) throw err
      }
    }
    return key
  }

  return {
    async createProject({ name, environment, description = '' }) {
      const projectId = slugify(name)
      if (projectId === '') {
        throw new InvalidInput('body/name must contain at least one letter or digit (the project_id is its slug)')
      }
      const at = now()
      const project: Project = { project_id: projectId, name, description, created_at: toZonelessIso(at) }
      const { record, created } = issueKey(projectId, environment, at)
      if (!(await store.projects.create(project, record))) throw new ProjectExists(projectId)
      return { project, api_key: created }
    },

    async listProjects(projectId) {
      if (projectId === undefined) return store.projects.list()
      const project = await store.projects.get(projectId)
      return project ? [project] : []
    },

    async createApiKey({ project_id, environment, kind }) {
      if (!(await store.projects.get(project_id))) throw new ProjectNotFound(project_id)
      const { record, created } = issueKey(project_id, environment, now(), kind)
      await store.projects.createApiKey(record)
      return created
    },

    listApiKeys: (projectId) => store.projects.listApiKeys(projectId),

    async revokeApiKey(keyId) {
      const key = await store.projects.revokeApiKey(keyId, now())
      if (!key) throw new ApiKeyNotFound(keyId)
      return key
    },

    identify,
  }
}
