/**
 * Conversations of the gateway and the page shape of its paginated lists (the spec leaves
 * pagination open: see docs/gateway-conversations.md).
 */
import { Schema } from "effect"

/** Query of paginated lists: `page` from 0, `size` 1-100 (default 20). */
export const PageParams = Schema.Struct({
  page: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative()), { default: () => 0 }),
  size: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 100)), { default: () => 20 })
})
export type PageParams = typeof PageParams.Type

export const Page = <A, I, R>(item: Schema.Schema<A, I, R>) =>
  Schema.Struct({
    content: Schema.Array(item),
    page: Schema.Int,
    size: Schema.Int,
    totalElements: Schema.Int,
    totalPages: Schema.Int
  })

export class Conversation extends Schema.Class<Conversation>("Conversation")({
  id: Schema.String,
  title: Schema.String,
  userId: Schema.String,
  /** The broker's document the conversation is about, which the document tools read (docs/gateway-tools.md). */
  documentId: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String
}) {}

export class ConversationCreate extends Schema.Class<ConversationCreate>("ConversationCreate")({
  title: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  documentId: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000)))
}) {}

export const ConversationListParams = Schema.Struct({
  ...PageParams.fields,
  search: Schema.optional(Schema.String)
})
