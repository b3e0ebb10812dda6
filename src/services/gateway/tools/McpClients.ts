/**
 * Connections to MCP servers through @modelcontextprotocol/sdk, one client per configuration
 * version kept open for the next calls. `http` tries streamable HTTP first and falls back to SSE
 * (the older transport) when the server does not speak it; `stdio` starts the configured program
 * (only when GATEWAY_MCP_STDIO_ENABLED). A server that no longer knows the client's session (404,
 * as the MCP specification says; some servers answer 400 naming the session) gets a new client,
 * and the call is made once more: a refused session ran nothing.
 *
 * A server's tool list is kept with its connection for GATEWAY_MCP_TOOL_LIST_TTL (60 s), and
 * dropped at once when the server says it changed (`notifications/tools/list_changed`, for a server
 * that announces `tools.listChanged`): every request offered a server's tools would otherwise ask
 * for the list first, a round trip to the server before the model is even asked. The connection
 * test lists afresh every time.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Duration, Effect } from "effect"
import { InternalError } from "../../../schemas/gateway/GatewayErrors.ts"
import { ToolInfo } from "../../../schemas/gateway/Tools.ts"
import { durationConfig } from "../../common/DurationConfig.ts"
import { type GatewayTool, ToolFailed, type ToolOutput } from "./GatewayTool.ts"
import { type McpServerForUse, McpServers } from "./McpServers.ts"

type TransportName = "streamable-http" | "sse" | "stdio"

type ListedTool = Awaited<ReturnType<Client["listTools"]>>["tools"][number]

interface Connection {
  readonly client: Client
  readonly transport: TransportName
  /** The tools as last listed, and when. */
  tools?: { readonly list: Promise<ReadonlyArray<ListedTool>>; readonly at: number } | undefined
}

/** A tool's name as agents and plans give it. */
export const mcpToolName = (serverId: string, tool: string) => `mcp:${serverId}/${tool}`

/** `mcp:<server>/<tool>` split, or undefined for another name. */
export const parseMcpToolName = (name: string) => {
  const match = /^mcp:([^/]+)\/(.+)$/.exec(name)
  return match ? { serverId: match[1]!, tool: match[2]! } : undefined
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** The server no longer knows this client's session: it must start a new one. */
const isLostSession = (error: unknown) =>
  error instanceof StreamableHTTPError &&
  (error.code === 404 || (error.code === 400 && /session/i.test(error.message)))

/** What an MCP tool answered, as the model reads it: its structured content, else its text; its first image aside. */
const outputOf = (result: Awaited<ReturnType<Client["callTool"]>>): ToolOutput => {
  const content = Array.isArray(result.content) ? result.content as ReadonlyArray<Record<string, unknown>> : []
  const text = content.flatMap((part) => (part.type === "text" && typeof part.text === "string" ? [part.text] : []))
    .join("\n")
  const image = content.find((part) => part.type === "image" && typeof part.data === "string")
  return {
    result: result.structuredContent ?? text,
    ...(image ? { image: { mediaType: String(image.mimeType ?? "image/png"), base64: String(image.data) } } : {})
  }
}

export class McpClients extends Effect.Service<McpClients>()("gateway/McpClients", {
  scoped: Effect.gen(function*() {
    const servers = yield* McpServers
    const timeout = yield* durationConfig("GATEWAY_MCP_TIMEOUT", "30 seconds")
    const options = { timeout: Duration.toMillis(timeout) }
    const toolListTtl = Duration.toMillis(yield* durationConfig("GATEWAY_MCP_TOOL_LIST_TTL", "60 seconds"))
    /** Connections by tenant, server and configuration version; a changed configuration connects anew. */
    const open = new Map<string, Promise<Connection>>()
    const keyOf = ({ server, tenantId }: McpServerForUse) => `${tenantId}\u0000${server.id}\u0000${server.updatedAt}`

    const closeAll = Effect.promise(() =>
      Promise.allSettled([...open.values()].map((p) => p.then((c) => c.client.close())))
    )
    yield* Effect.addFinalizer(() => closeAll)

    const attempt = async (transport: Transport, name: TransportName) => {
      const client = new Client({ name: "docstack-gateway", version: "1" })
      await client.connect(transport, options)
      const connection: Connection = { client, transport: name }
      if (client.getServerCapabilities()?.tools?.listChanged === true) {
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
          connection.tools = undefined
        })
      }
      return connection
    }

    const connect = async (config: McpServerForUse): Promise<Connection> => {
      const { server } = config
      const requestInit = { headers: { ...config.headers } }
      if (server.transport === "stdio") {
        if (!servers.stdioEnabled) throw new Error("stdio MCP servers are disabled (GATEWAY_MCP_STDIO_ENABLED)")
        return attempt(
          new StdioClientTransport({ command: server.command ?? "", args: [...server.args], stderr: "ignore" }),
          "stdio"
        )
      }
      const url = new URL(server.url ?? "")
      if (server.transport === "sse") return attempt(new SSEClientTransport(url, { requestInit }), "sse")
      try {
        return await attempt(new StreamableHTTPClientTransport(url, { requestInit }), "streamable-http")
      } catch (streamable) {
        try {
          return await attempt(new SSEClientTransport(url, { requestInit }), "sse")
        } catch (sse) {
          throw new Error(`streamable HTTP: ${reason(streamable)}; SSE: ${reason(sse)}`)
        }
      }
    }

    /** The open connection of the configuration, opened if need be; older versions of it closed. */
    const connection = (config: McpServerForUse) => {
      const key = keyOf(config)
      let pending = open.get(key)
      if (pending === undefined) {
        const prefix = key.slice(0, key.lastIndexOf("\u0000") + 1)
        for (const [other, stale] of open) {
          if (other.startsWith(prefix)) {
            open.delete(other)
            void stale.then((c) => c.client.close(), () => undefined)
          }
        }
        pending = connect(config)
        open.set(key, pending)
        // A failed connection is not kept: the next call tries again.
        pending.catch(() => open.get(key) === pending && open.delete(key))
      }
      return pending
    }

    /** `use` on the server's connection; once more on a new one if the server lost the session. */
    const withClient = <A>(config: McpServerForUse, what: string, use: (connection: Connection) => Promise<A>) =>
      Effect.tryPromise({
        try: async () => {
          const first = await connection(config)
          try {
            return await use(first)
          } catch (error) {
            if (!isLostSession(error)) throw error
            if (open.get(keyOf(config)) !== undefined) open.delete(keyOf(config))
            void first.client.close().catch(() => undefined)
            return await use(await connection(config))
          }
        },
        catch: (error) => new ToolFailed({ message: `MCP server '${config.server.id}': ${what}: ${reason(error)}` })
      })

    /** The connection's tools asked of the server now, and kept; a failed listing is not kept. */
    const listAnew = (c: Connection) => {
      const listing = c.client.listTools(undefined, options).then((found) => found.tools)
      c.tools = { list: listing, at: Date.now() }
      listing.catch(() => c.tools?.list === listing && (c.tools = undefined))
      return listing
    }

    /** The server's tools: as kept with the connection while they are fresh, unless `afresh`. */
    const listed = (config: McpServerForUse, afresh = false) =>
      withClient(config, "listing its tools", async (c) => {
        const kept = c.tools
        const fresh = !afresh && kept !== undefined && Date.now() - kept.at < toolListTtl
        return {
          transport: c.transport,
          serverName: c.client.getServerVersion()?.name ?? null,
          tools: await (fresh ? kept.list : listAnew(c))
        }
      })

    const toolOf = (
      config: McpServerForUse,
      tool: { readonly name: string; readonly description?: string | undefined; readonly inputSchema: object }
    ): GatewayTool => ({
      name: mcpToolName(config.server.id, tool.name),
      description: tool.description ?? tool.name,
      parameters: tool.inputSchema as Record<string, unknown>,
      call: (args) =>
        withClient(
          config,
          `calling ${tool.name}`,
          (c) =>
            c.client.callTool(
              { name: tool.name, arguments: (args ?? {}) as Record<string, unknown> },
              undefined,
              options
            )
        )
          .pipe(
            Effect.flatMap((result) =>
              result.isError === true
                ? Effect.fail(new ToolFailed({ message: String(outputOf(result).result) }))
                : Effect.succeed(outputOf(result))
            )
          )
    })

    return {
      /**
       * GET /admin/mcp/mcp-conf/{id}/tools: the server reached now, and its tools. One that cannot
       * be reached fails the test as an unreachable LLM provider fails a request (INTERNAL_ERROR).
       */
      test: Effect.fn("McpClients.test")(function*(id: string) {
        const config = yield* servers.forUse(id)
        const found = yield* listed(config, true).pipe(
          Effect.catchTag("ToolFailed", (error) => Effect.fail(new InternalError({ message: error.message })))
        )
        return {
          serverId: id,
          serverName: found.serverName,
          transport: found.transport,
          tools: found.tools.map((tool) =>
            new ToolInfo({
              name: mcpToolName(id, tool.name),
              description: tool.description ?? "",
              parameters: tool.inputSchema as Record<string, unknown>
            })
          )
        }
      }),

      /** Every tool of the servers, callable. */
      toolsOf: (configs: ReadonlyArray<McpServerForUse>) =>
        Effect.forEach(
          configs,
          (config) => Effect.map(listed(config), ({ tools }) => tools.map((tool) => toolOf(config, tool))),
          {
            concurrency: "unbounded"
          }
        ).pipe(Effect.map((lists) => lists.flat())),

      /** The tool `mcp:<server>/<tool>`: MCP_SERVER_NOT_FOUND for an unknown server, ToolFailed for a tool it lacks. */
      named: Effect.fn("McpClients.named")(function*(serverId: string, tool: string) {
        const config = yield* servers.forUse(serverId)
        const { tools } = yield* listed(config)
        const found = tools.find((t) => t.name === tool)
        if (found === undefined) {
          return yield* new ToolFailed({
            message: `The MCP server '${serverId}' has no tool '${tool}' (it has ${
              tools.map((t) => t.name).join(", ")
            })`
          })
        }
        return toolOf(config, found)
      })
    }
  }),
  dependencies: [McpServers.Default]
}) {}
