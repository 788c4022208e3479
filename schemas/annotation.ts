// Annotation queues: a project's traces of a filter (the parameters of GET /traces), to be scored by people with some
// score configs, trace by trace. Each trace a person opens is held for them a few minutes, so that two people working
// the same queue never get the same trace at the same time.
import { type Static, Type } from '@sinclair/typebox'
import { Nullable, Page, Ref, UtcTimestamp } from './common.js'
import {
  annotationQueueExample,
  annotationQueueInputExample,
  listAnnotationQueuesExample,
  nextAnnotationItemExample,
} from './examples.js'
import { ScoreNameSchema } from './score.js'
import { TraceFilterQuery } from './trace.js'

/** How long the trace a person opens is held for them, in ms (each `next` by the same person holds it again). */
export const ANNOTATION_HOLD_MS = 5 * 60 * 1000

export const ANNOTATION_LIMITS = {
  /** Score configs a queue fills. */
  scoreNames: 20,
  /** Traces a `next` may be told to pass over (those the person skipped). */
  exclude: 100,
} as const

/** Which traces a queue holds: the filters of GET /traces, without the project (the queue's own). */
export const AnnotationFilterSchema = Type.Omit(TraceFilterQuery, ['project_id'], {
  additionalProperties: false,
  description:
    'The parameters of GET /traces that choose the traces (`status`, `model`, `since`, `q`, …), as a JSON object; ' +
    'always within the queue’s project.',
})
export type AnnotationFilter = Static<typeof AnnotationFilterSchema>

/** An annotator: the name a person gave themselves, the `author` of the scores they give. */
export const AnnotatorSchema = Type.String({
  minLength: 1,
  maxLength: 256,
  pattern: '^\\S(.*\\S)?$',
  description: 'Who annotates: the name the person gave themselves (the `author` of their scores).',
})

export const AnnotationProgressSchema = Type.Object(
  {
    done: Type.Integer({ description: 'Traces of the queue marked done.' }),
    total: Type.Integer({ description: 'Traces of the project matching the queue’s filter now.' }),
  },
  { description: 'How far the queue is.' },
)
export type AnnotationProgress = Static<typeof AnnotationProgressSchema>

const QueueFields = {
  name: Type.String({ minLength: 1, maxLength: 128, description: 'What the queue is for.' }),
  description: Nullable(Type.String({ maxLength: 2000 })),
  filter: AnnotationFilterSchema,
  score_names: Type.Array(ScoreNameSchema, {
    minItems: 1,
    maxItems: ANNOTATION_LIMITS.scoreNames,
    uniqueItems: true,
    description: 'The score configs to fill on each trace (names of existing score configs), in the order shown.',
  }),
}

export const AnnotationQueueSchema = Type.Object(
  {
    queue_id: Type.String(),
    project_id: Type.String({ description: 'The project whose traces the queue walks.' }),
    ...QueueFields,
    created_at: UtcTimestamp,
    progress: AnnotationProgressSchema,
  },
  {
    $id: 'AnnotationQueueSchema',
    additionalProperties: false,
    description: 'A queue of traces to annotate: a project’s traces of a filter, and the score configs to fill.',
    examples: [annotationQueueExample],
  },
)
export type AnnotationQueue = Static<typeof AnnotationQueueSchema>

export const AnnotationQueueInput = Type.Object(
  {
    name: QueueFields.name,
    project_id: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Required with the admin token or in open mode; a project key: its own.',
      }),
    ),
    description: Type.Optional(QueueFields.description),
    filter: Type.Optional(QueueFields.filter),
    score_names: QueueFields.score_names,
  },
  { additionalProperties: false, examples: [annotationQueueInputExample] },
)
export type AnnotationQueueInput = Static<typeof AnnotationQueueInput>

/** PUT /annotation-queues/{queue_id}: the queue's new name, description, filter and score configs (not its project). */
export const PutAnnotationQueueBody = Type.Omit(AnnotationQueueInput, ['project_id'], {
  additionalProperties: false,
  examples: [{ name: 'Failed answers', filter: { status: 'failed' }, score_names: ['helpfulness', 'tone'] }],
})
export type PutAnnotationQueueBody = Static<typeof PutAnnotationQueueBody>

export const AnnotationQueueParams = Type.Object({ queue_id: Type.String({ minLength: 1, maxLength: 128 }) })
export const AnnotationItemParams = Type.Object({
  queue_id: Type.String({ minLength: 1, maxLength: 128 }),
  trace_id: Type.String({ minLength: 1, maxLength: 256 }),
})

export const ListAnnotationQueuesQuery = Type.Object({
  project_id: Type.Optional(Type.String({ description: 'Only this project’s queues.' })),
})

export const ListAnnotationQueuesResponse = Page(
  Ref(AnnotationQueueSchema),
  { items: 'Newest first.' },
  { examples: [listAnnotationQueuesExample] },
)
export type ListAnnotationQueuesResponse = Static<typeof ListAnnotationQueuesResponse>

export const NextAnnotationItemBody = Type.Object(
  {
    annotator: AnnotatorSchema,
    exclude: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
        maxItems: ANNOTATION_LIMITS.exclude,
        description: 'Traces to pass over this time (those the person skipped).',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ annotator: 'ana' }] },
)
export type NextAnnotationItemBody = Static<typeof NextAnnotationItemBody>

export const AnnotatorBody = Type.Object(
  { annotator: AnnotatorSchema },
  { additionalProperties: false, examples: [{ annotator: 'ana' }] },
)

export const AnnotationItemSchema = Type.Object(
  {
    queue_id: Type.String(),
    trace_id: Type.String({ description: 'The trace to annotate.' }),
    held_by: Nullable(Type.String({ description: 'Who holds it (null once done or released).' })),
    held_until: Nullable(Type.String({ description: 'Until when it is held for them (UTC).' })),
    progress: AnnotationProgressSchema,
  },
  {
    $id: 'AnnotationItemSchema',
    additionalProperties: false,
    description: 'A trace of a queue, as it stands for the person who asked.',
    examples: [nextAnnotationItemExample],
  },
)
export type AnnotationItem = Static<typeof AnnotationItemSchema>

/** POST /annotation-queues/{queue_id}/next: the trace, or null when none is left. */
export const NextAnnotationItemResponse = Type.Union([Ref(AnnotationItemSchema), Type.Null()], {
  description: 'The trace held for the annotator, or null when the queue has no trace left for them.',
  examples: [nextAnnotationItemExample],
})
