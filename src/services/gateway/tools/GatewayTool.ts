/**
 * What the tool loop calls: a native tool bound to its context or an MCP server's tool, by the
 * name agents and plans give it. A tool's failure is an answer the model reads (and may correct),
 * not the request's failure.
 */
import { Data, type Effect } from "effect"
import type { JsonSchemaObject } from "../../../schemas/gateway/Tools.ts"

/** Why a call gave no result: bad arguments, a document page that does not exist, a server away. */
export class ToolFailed extends Data.TaggedError("ToolFailed")<{ readonly message: string }> {}

/** A passage a document tool returned, for the answer's citations. */
export interface DocumentSource {
  readonly documentId: string
  /** 1-based. */
  readonly pageNumber: number
  readonly passage?: { readonly text: string; readonly position: { x: number; y: number; w: number; h: number } }
}

export interface ToolOutput {
  /** What the model reads (JSON). */
  readonly result: unknown
  readonly sources?: ReadonlyArray<DocumentSource>
  /** An image for a vision model (a page image): sent as the user's next message, the result naming it. */
  readonly image?: { readonly mediaType: string; readonly base64: string }
}

export interface GatewayTool {
  /** `document_search`, or `mcp:<server>/<tool>`. */
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchemaObject
  readonly call: (args: unknown) => Effect.Effect<ToolOutput, ToolFailed>
}

/** What native tools work on: the conversation's (or plan execution's) document, and whether the model sees images. */
export interface ToolContext {
  readonly documentId: string | undefined
  readonly vision: boolean
}
