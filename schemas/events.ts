// Messages of the live stream on /ws, both directions.
import { type Static, type TSchema, Type } from '@sinclair/typebox'
import { Nullable, UtcTimestamp } from './common.js'
import { ScoreSchema } from './score.js'
import { TraceSchema } from './trace.js'

const ServerMessage = <K extends string, D extends TSchema>(type: K, data: D, description: string) =>
  Type.Object({ type: Type.Literal(type), data, timestamp: UtcTimestamp }, { description })

export const ConnectionEstablishedMessage = ServerMessage(
  'connection.established',
  Type.Object({ connection_id: Type.String(), server_time: UtcTimestamp }),
  'Sent once, right after the socket opens.',
)
export const TraceCreatedMessage = ServerMessage('trace.created', TraceSchema, 'A trace has been stored.')
/** A trace that was deleted, as the stream announces it. */
export const DeletedTraceSchema = Type.Object({ trace_id: Type.String(), project_id: Type.String() })
export type DeletedTrace = Static<typeof DeletedTraceSchema>

export const TraceDeletedMessage = ServerMessage(
  'trace.deleted',
  DeletedTraceSchema,
  'A trace has been deleted (by a request or by retention); sent to the clients that may see its project.',
)
export const ScoreCreatedMessage = ServerMessage(
  'score.created',
  ScoreSchema,
  'A score has been stored; sent to the clients that may see its project.',
)
export const ScoreDeletedMessage = ServerMessage(
  'score.deleted',
  ScoreSchema,
  'A score has been deleted (`DELETE /scores/{score_id}`; the scores of a deleted trace go with its `trace.deleted`).',
)
export const PongMessage = ServerMessage('pong', Type.Object({}), 'Answer to a client `ping`.')
export const SubscribedMessage = ServerMessage(
  'subscribed',
  Type.Object({ project_id: Nullable(Type.String()) }),
  'Confirms a `subscribe`: the stream now carries only this project (null: every project).',
)
export const ErrorMessage = ServerMessage(
  'error',
  Type.Object({ message: Type.String() }),
  'A client frame was not understood; the connection stays open.',
)

export const ServerMessageSchema = Type.Union(
  [
    ConnectionEstablishedMessage,
    TraceCreatedMessage,
    TraceDeletedMessage,
    ScoreCreatedMessage,
    ScoreDeletedMessage,
    PongMessage,
    SubscribedMessage,
    ErrorMessage,
  ],
  { $id: 'ServerMessageSchema', description: 'Every message the server sends on /ws.' },
)
export type ServerMessage = Static<typeof ServerMessageSchema>

export const ClientMessageSchema = Type.Union(
  [
    Type.Object({ type: Type.Literal('ping') }),
    Type.Object({
      type: Type.Literal('subscribe'),
      project_id: Nullable(Type.String({ minLength: 1, description: 'null widens the stream to every project.' })),
    }),
  ],
  { $id: 'ClientMessageSchema', description: 'Frames a client may send on /ws.' },
)
export type ClientMessage = Static<typeof ClientMessageSchema>
