/**
 * Tools (spec: "Admin: tools, scripts, MCP servers"): a native tool as GET /admin/tools lists it,
 * the trace of the tool loop kept on a request, and the citations of an answer about a document.
 * See docs/gateway-tools.md.
 */
import { Schema } from "effect"

/** A JSON Schema object: the arguments a tool takes. */
export const JsonSchemaObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })
export type JsonSchemaObject = typeof JsonSchemaObject.Type

/** A tool as listed: a native one (GET /admin/tools) or an MCP server's (GET /admin/mcp/mcp-conf/{id}/tools). */
export class ToolInfo extends Schema.Class<ToolInfo>("ToolInfo")({
  /** The name agents and TOOL nodes give: `document_search`, or `mcp:<server>/<tool>`. */
  name: Schema.String,
  description: Schema.String,
  /** JSON Schema of its arguments. */
  parameters: JsonSchemaObject,
  /** Native tools: what it needs to be offered (`document`: a conversation about a document; `vision`: a model that takes images). */
  needs: Schema.optional(Schema.Array(Schema.Literal("document", "vision")))
}) {}

/** One tool call of the loop, as the request (or plan node) keeps it. */
export const ToolCallTrace = Schema.Struct({
  /** The model's answer that asked for it, from 1. */
  cycle: Schema.Int,
  tool: Schema.String,
  arguments: Schema.Unknown,
  /** What the tool answered (as the model saw it), or why it failed or was not run. */
  result: Schema.optional(Schema.Unknown),
  error: Schema.optional(Schema.String),
  durationMs: Schema.Int
})
export type ToolCallTrace = typeof ToolCallTrace.Type

/** A box on a page, in the broker's text-position units (points from the top left). */
export const CitedBox = Schema.Struct({ x: Schema.Number, y: Schema.Number, w: Schema.Number, h: Schema.Number })

/** A page of the conversation's document the answer used, with the text (and where it is) that the tools gave. */
export const Citation = Schema.Struct({
  documentId: Schema.String,
  /** 1-based, as the tools and the answer number pages. */
  pageNumber: Schema.Int,
  /** The passages the tools returned from that page (search hits), when they came with positions. */
  passages: Schema.Array(Schema.Struct({ text: Schema.String, position: CitedBox }))
})
export type Citation = typeof Citation.Type
