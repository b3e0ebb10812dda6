/**
 * What the WebSocket at /ws/{userId} sends (docs/gateway-web-components.md): each event of the
 * user's streamed generations, the same as the server-sent events of POST /requests/stream, with
 * the request and conversation it belongs to (a delta's own data does not say).
 */
import { Schema } from "effect"
import { GenerationEvent } from "./Requests.ts"

export const ChannelMessage = Schema.extend(
  Schema.Struct({ requestId: Schema.String, conversationId: Schema.String }),
  GenerationEvent
)
export type ChannelMessage = typeof ChannelMessage.Type
