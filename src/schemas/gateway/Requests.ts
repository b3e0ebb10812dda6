/**
 * Requests to language models (the turns of a conversation): the body of POST /api/v1/requests,
 * its query, and the stored record. See docs/gateway-requests.md.
 */
import { Schema } from "effect"
import { ErrorBody } from "./GatewayErrors.ts"
import { Citation, ToolCallTrace } from "./Tools.ts"

export const ContentItem = Schema.Union(
  Schema.Struct({ type: Schema.Literal("text"), value: Schema.String }),
  Schema.Struct({
    type: Schema.Literal("prompt"),
    /** The prompt's ID. */
    value: Schema.String,
    payload: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
    version: Schema.optional(Schema.Int)
  }),
  Schema.Struct({
    type: Schema.Literal("image"),
    /** Base64 data, or a data: URL. */
    value: Schema.String,
    mediaType: Schema.optional(Schema.String)
  })
)
export type ContentItem = typeof ContentItem.Type

export class RequestBody extends Schema.Class<RequestBody>("RequestBody")({
  conversation: Schema.optional(Schema.String),
  inputs: Schema.Array(
    Schema.Struct({ role: Schema.Literal("user"), content: Schema.Array(ContentItem).pipe(Schema.minItems(1)) })
  ).pipe(Schema.minItems(1))
}) {}

/** Body of the retry endpoints: the conversation whose last answer is generated again. */
export class RetryBody extends Schema.Class<RetryBody>("RetryBody")({
  conversation: Schema.String
}) {}

export const RequestQuery = Schema.Struct({
  conversationId: Schema.optional(Schema.String),
  provider: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String),
  disableReasoning: Schema.optionalWith(Schema.BooleanFromString, { default: () => false })
})
export type RequestQuery = typeof RequestQuery.Type

export const RequestStatus = Schema.Literal("RUNNING", "COMPLETED", "FAILED", "STOPPED")

export class LlmRequest extends Schema.Class<LlmRequest>("LlmRequest")({
  id: Schema.String,
  conversationId: Schema.String,
  status: RequestStatus,
  inputs: Schema.Array(Schema.Unknown),
  response: Schema.String,
  provider: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  usage: Schema.Struct({ inputTokens: Schema.NullOr(Schema.Int), outputTokens: Schema.NullOr(Schema.Int) }),
  /** Milliseconds from the request to the last token, and to the first. */
  latencyMs: Schema.NullOr(Schema.Int),
  firstTokenMs: Schema.NullOr(Schema.Int),
  feedback: Schema.NullOr(Schema.Literal("GOOD", "BAD")),
  errorMessage: Schema.NullOr(Schema.String),
  /** The request that answered this question again (a retry); such a turn leaves the conversation's history. */
  replacedBy: Schema.NullOr(Schema.String),
  /** Every tool call of the loop, kept whatever its end (a request past the loop's bound too). */
  toolCalls: Schema.Array(ToolCallTrace),
  /** The pages of the conversation's document the answer used (docs/gateway-tools.md). */
  citations: Schema.Array(Citation),
  createdAt: Schema.String,
  completedAt: Schema.NullOr(Schema.String)
}) {}

const GenerationIds = { requestId: Schema.String, conversationId: Schema.String }

/**
 * What a streamed answer sends, each event under its name (docs/gateway-requests.md): `start`,
 * `delta`… as the provider's parts arrive (with `tool-call` and `tool-result` around each tool the
 * model uses), `usage`, `citations` for an answer about a document, then `done` (COMPLETED or
 * STOPPED) or `error`.
 * The same events will go over the WebSocket.
 */
export const GenerationEvent = Schema.Union(
  Schema.Struct({
    event: Schema.Literal("start"),
    data: Schema.Struct({ ...GenerationIds, provider: Schema.String, model: Schema.String })
  }),
  Schema.Struct({ event: Schema.Literal("delta"), data: Schema.Struct({ text: Schema.String }) }),
  /** The model asked for a tool (`cycle`: which of its answers), then the tool answered. */
  Schema.Struct({
    event: Schema.Literal("tool-call"),
    data: Schema.Struct({ cycle: Schema.Int, tool: Schema.String, arguments: Schema.Unknown })
  }),
  Schema.Struct({
    event: Schema.Literal("tool-result"),
    data: Schema.Struct({ cycle: Schema.Int, tool: Schema.String, failed: Schema.Boolean })
  }),
  /** Before `done`, when the answer cites the conversation's document. */
  Schema.Struct({ event: Schema.Literal("citations"), data: Schema.Struct({ citations: Schema.Array(Citation) }) }),
  Schema.Struct({
    event: Schema.Literal("usage"),
    data: Schema.Struct({ inputTokens: Schema.optional(Schema.Number), outputTokens: Schema.optional(Schema.Number) })
  }),
  Schema.Struct({
    event: Schema.Literal("done"),
    data: Schema.Struct({ ...GenerationIds, status: Schema.Literal("COMPLETED", "STOPPED"), latencyMs: Schema.Number })
  }),
  Schema.Struct({ event: Schema.Literal("error"), data: ErrorBody })
)
export type GenerationEvent = typeof GenerationEvent.Type
