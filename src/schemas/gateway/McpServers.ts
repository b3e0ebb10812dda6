/**
 * MCP server configurations (spec: "Admin: tools, scripts, MCP servers", "Other records"): where a
 * tenant's MCP server is and how to reach it. The spec names no field; see docs/gateway-tools.md.
 */
import { Schema } from "effect"
import { ToolInfo } from "./Tools.ts"

/** The name in `mcp:<id>/<tool>`: letters, digits, `.`, `_`, `-`. */
export const McpServerId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, {
    message: () => "id must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"
  })
)

/** `http`: streamable HTTP first, SSE if the server does not speak it; `sse` only; `stdio` a local process (when enabled). */
export const McpTransport = Schema.Literal("http", "sse", "stdio")

const Url = Schema.String.pipe(Schema.pattern(/^https?:\/\//, { message: () => "url must be an http(s) URL" }))
const Headers = Schema.Record({ key: Schema.String, value: Schema.String })

const Fields = {
  name: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  transport: Schema.optionalWith(McpTransport, { default: () => "http" as const }),
  /** http and sse: the server's endpoint. */
  url: Schema.optional(Url),
  /** Sent with every HTTP request (an API key); write-only like a provider's key, read back masked. */
  headers: Schema.optional(Headers),
  /** stdio: the program and its arguments. */
  command: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  args: Schema.optional(Schema.Array(Schema.String)),
  /** Its tools are offered to every request of the tenant (agents and TOOL nodes name theirs anyway). */
  useInRequests: Schema.optionalWith(Schema.Boolean, { default: () => false })
}

/** Body of POST /admin/mcp/mcp-conf. */
export class McpServerInput extends Schema.Class<McpServerInput>("McpServerInput")({
  id: McpServerId,
  ...Fields
}) {}

/** Body of PUT /admin/mcp/mcp-conf/{id}: the whole configuration again; `headers` omitted keeps the stored ones. */
export class McpServerUpdate extends Schema.Class<McpServerUpdate>("McpServerUpdate")({
  id: Schema.optional(McpServerId),
  ...Fields
}) {}

export class McpServer extends Schema.Class<McpServer>("McpServer")({
  id: Schema.String,
  name: Schema.NullOr(Schema.String),
  transport: McpTransport,
  url: Schema.NullOr(Schema.String),
  /** Header names with their values masked. */
  headers: Headers,
  command: Schema.NullOr(Schema.String),
  args: Schema.Array(Schema.String),
  useInRequests: Schema.Boolean,
  createdAt: Schema.String,
  updatedAt: Schema.String
}) {}

/** GET /admin/mcp/mcp-conf/{id}/tools: the server reached and what it offers. */
export class McpServerTools extends Schema.Class<McpServerTools>("McpServerTools")({
  serverId: Schema.String,
  /** What the server called itself when the connection was made, and which transport answered. */
  serverName: Schema.NullOr(Schema.String),
  transport: Schema.Literal("streamable-http", "sse", "stdio"),
  tools: Schema.Array(ToolInfo)
}) {}
