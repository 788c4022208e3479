// Annotation queues: create, read, change and delete them within the caller's scope (another project's queue is
// unknown: 404), and walk them — `next` hands an annotator the oldest trace of the queue's filter that is not done
// and not held by someone else, and holds it for them ANNOTATION_HOLD_MS; `done` marks it done and ends the hold;
// `release` gives it back. The holds themselves are taken atomically by the store (annotation-queues.ts).
import { uuidv7 } from 'uuidv7'
import {
  ANNOTATION_HOLD_MS,
  type AnnotationItem,
  type AnnotationQueue,
  type AnnotationQueueInput,
  type ListAnnotationQueuesResponse,
  type NextAnnotationItemBody,
  type PutAnnotationQueueBody,
  type TraceFilterQuery,
} from '../../schemas/index.js'
import { AnnotationItemHeld, AnnotationQueueNotFound, InvalidInput, ProjectNotFound, TraceNotFound } from '../errors.js'
import { inScope } from '../lib/access-policy.js'
import type { AnnotationItemRecord, AnnotationQueueRecord, PageAfter, Store, TraceFilter } from '../store/types.js'
import { traceFilter } from './traces.js'

export interface AnnotationService {
  create(input: AnnotationQueueInput, scope: string | null): Promise<AnnotationQueue>
  list(projectId: string | undefined, scope: string | null): Promise<ListAnnotationQueuesResponse>
  get(queueId: string, scope: string | null): Promise<AnnotationQueue>
  update(queueId: string, body: PutAnnotationQueueBody, scope: string | null): Promise<AnnotationQueue>
  remove(queueId: string, scope: string | null): Promise<void>
  /** The trace this annotator should annotate now, held for them; null when none is left. */
  next(queueId: string, body: NextAnnotationItemBody, scope: string | null): Promise<AnnotationItem | null>
  /** Marks a trace of the queue done by this annotator (409 while someone else holds it). */
  done(queueId: string, traceId: string, annotator: string, scope: string | null): Promise<AnnotationItem>
  /** Gives back the annotator's hold of a trace (nothing when they did not hold it). */
  release(queueId: string, traceId: string, annotator: string, scope: string | null): Promise<AnnotationItem>
}

export interface AnnotationDeps {
  store: Store
  now?: () => number
  newId?: () => string
  holdMs?: number
}

/** The first page of candidates `next` reads, and the largest it grows to while it finds only taken traces. */
const FIRST_PAGE = 50
const LARGEST_PAGE = 1000

export function createAnnotationService({
  store,
  now = Date.now,
  newId = uuidv7,
  holdMs = ANNOTATION_HOLD_MS,
}: AnnotationDeps): AnnotationService {
  const iso = (ms: number) => new Date(ms).toISOString()

  /** The store filter of a queue's filter, in its project; a 400 naming `body/filter` when it cannot be one. */
  function filterOf(filter: Record<string, unknown>, projectId: string): TraceFilter {
    try {
      return traceFilter(filter as TraceFilterQuery, projectId)
    } catch (err) {
      if (err instanceof InvalidInput) throw new InvalidInput(err.message.replace(/^querystring\//, 'body/filter/'))
      throw err
    }
  }

  /** How many traces match the queue's filter now (the trace store's exact total). */
  const totalOf = async (q: AnnotationQueueRecord) =>
    (await store.traces.listSummaries(filterOf(q.filter, q.project_id), { limit: 1, offset: 0 })).total

  const view = (q: AnnotationQueueRecord, done: number, total: number): AnnotationQueue => ({
    queue_id: q.queue_id,
    project_id: q.project_id,
    name: q.name,
    description: q.description,
    filter: q.filter as AnnotationQueue['filter'],
    score_names: q.score_names,
    created_at: iso(q.created_at),
    progress: { done, total },
  })

  async function progressOf(q: AnnotationQueueRecord) {
    const [done, total] = await Promise.all([store.annotation.doneCounts([q.queue_id]), totalOf(q)])
    return { done: done.get(q.queue_id) ?? 0, total }
  }

  const withProgress = async (q: AnnotationQueueRecord) => {
    const { done, total } = await progressOf(q)
    return view(q, done, total)
  }

  /** The queue, when the scope may see it; otherwise 404 as if unknown. */
  async function visible(queueId: string, scope: string | null): Promise<AnnotationQueueRecord> {
    const q = await store.annotation.getQueue(queueId)
    if (!q || !inScope(scope, q.project_id)) throw new AnnotationQueueNotFound(queueId)
    return q
  }

  async function checkScoreNames(names: readonly string[]) {
    for (const [i, name] of names.entries()) {
      if (!(await store.scores.getConfig(name))) {
        throw new InvalidInput(`body/score_names/${i}: no score config named '${name}' (create it first)`)
      }
    }
  }

  const itemOf = async (q: AnnotationQueueRecord, traceId: string, item: Partial<AnnotationItemRecord>) => ({
    queue_id: q.queue_id,
    trace_id: traceId,
    held_by: item.held_by ?? null,
    held_until: item.held_until == null ? null : iso(item.held_until),
    progress: await progressOf(q),
  })

  /** The trace, when it is one of the queue's project; 404 otherwise. */
  async function traceOf(q: AnnotationQueueRecord, traceId: string) {
    const found = await store.traces.get(traceId)
    if (found?.project_id !== q.project_id) throw new TraceNotFound(traceId)
  }

  return {
    async create(input, scope) {
      const projectId = scope ?? input.project_id
      if (projectId === undefined) throw new InvalidInput("body must have property 'project_id'")
      if (!(await store.projects.get(projectId))) throw new ProjectNotFound(projectId)
      const filter = input.filter ?? {}
      filterOf(filter, projectId)
      await checkScoreNames(input.score_names)
      const q: AnnotationQueueRecord = {
        queue_id: newId(),
        name: input.name,
        project_id: projectId,
        description: input.description ?? null,
        filter,
        score_names: input.score_names,
        created_at: now(),
      }
      await store.annotation.createQueue(q)
      return withProgress(q)
    },

    async list(projectId, scope) {
      const queues = await store.annotation.listQueues(scope ?? projectId)
      const done = await store.annotation.doneCounts(queues.map((q) => q.queue_id))
      const items = await Promise.all(queues.map(async (q) => view(q, done.get(q.queue_id) ?? 0, await totalOf(q))))
      return { total: items.length, items }
    },

    async get(queueId, scope) {
      return withProgress(await visible(queueId, scope))
    },

    async update(queueId, body, scope) {
      const old = await visible(queueId, scope)
      const filter = body.filter ?? {}
      filterOf(filter, old.project_id)
      await checkScoreNames(body.score_names)
      const q = {
        ...old,
        name: body.name,
        description: body.description ?? null,
        filter,
        score_names: body.score_names,
      }
      if (!(await store.annotation.updateQueue(q))) throw new AnnotationQueueNotFound(queueId)
      return withProgress(q)
    },

    async remove(queueId, scope) {
      await visible(queueId, scope)
      if (!(await store.annotation.deleteQueue(queueId))) throw new AnnotationQueueNotFound(queueId)
    },

    async next(queueId, { annotator, exclude = [] }, scope) {
      const q = await visible(queueId, scope)
      const at = now()
      const until = at + holdMs
      const passOver = new Set(exclude)
      const filter = filterOf(q.filter, q.project_id)
      const claim = async (traceId: string) =>
        (await store.annotation.claim(q.queue_id, traceId, annotator, at, until))
          ? itemOf(q, traceId, { held_by: annotator, held_until: until })
          : null

      // What they hold already is theirs again (held anew), unless they pass over it now: then it is given back.
      for (const held of await store.annotation.heldBy(q.queue_id, annotator, at)) {
        if (passOver.has(held)) await store.annotation.release(q.queue_id, held, annotator)
        else {
          const item = await claim(held)
          if (item) return item
        }
      }
      // Then the oldest trace of the filter that is free: pages of candidates, oldest first, growing while every
      // candidate is taken (done, or held by others).
      let after: PageAfter | undefined
      for (let size = FIRST_PAGE; ; size = Math.min(size * 4, LARGEST_PAGE)) {
        const page = await store.traces.listSummaries(filter, {
          limit: size,
          offset: 0,
          sort: 'created_at',
          order: 'asc',
          after,
        })
        const ids = page.items.map((t) => t.trace_id).filter((id) => !passOver.has(id))
        const items = await store.annotation.items(q.queue_id, ids)
        for (const id of ids) {
          const item = items.get(id)
          const taken =
            item !== undefined &&
            (item.done_at !== null ||
              (item.held_by !== null && item.held_by !== annotator && (item.held_until ?? 0) > at))
          if (taken) continue
          const claimed = await claim(id)
          if (claimed) return claimed
        }
        const last = page.items.at(-1)
        if (!page.more || !last) return null
        after = { value: Date.parse(last.created_at), trace_id: last.trace_id }
      }
    },

    async done(queueId, traceId, annotator, scope) {
      const q = await visible(queueId, scope)
      await traceOf(q, traceId)
      const at = now()
      const item = await store.annotation.markDone(q.queue_id, traceId, annotator, at)
      if (!item) {
        const [held] = (await store.annotation.items(q.queue_id, [traceId])).values()
        throw new AnnotationItemHeld(traceId, held?.held_by ?? 'someone else')
      }
      return itemOf(q, traceId, item)
    },

    async release(queueId, traceId, annotator, scope) {
      const q = await visible(queueId, scope)
      await store.annotation.release(q.queue_id, traceId, annotator)
      const [item] = (await store.annotation.items(q.queue_id, [traceId])).values()
      return itemOf(q, traceId, item ?? {})
    },
  }
}
