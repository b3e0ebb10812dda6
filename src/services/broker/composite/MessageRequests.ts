/**
 * An email or Outlook message read into the parts it becomes, by the engine (off the event loop,
 * and in a thread that a hostile file can exhaust without taking the broker with it). Handled in
 * MessageWorker.ts.
 */
import { Schema } from "effect"
import { PdfFailure } from "../engine/PdfRequest.ts"

/** A part to store: its name, type and bytes (part 0 is the message's page). */
export const MessagePart = Schema.Struct({
  name: Schema.String,
  mimeType: Schema.NullOr(Schema.String),
  content: Schema.Uint8ArrayFromSelf
})

export class ReadMessage extends Schema.TaggedRequest<ReadMessage>()("ReadMessage", {
  failure: PdfFailure,
  success: Schema.Array(MessagePart),
  payload: { path: Schema.String, format: Schema.Literal("eml", "msg") }
}) {}
