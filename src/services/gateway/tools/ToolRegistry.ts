/**
 * Every tool the gateway can call, by name: native tools (`document_search`, …) and the tools of
 * the tenant's MCP servers (`mcp:<server>/<tool>`). What a request is offered, what an agent or a
 * TOOL node names, and the check of those names when an agent is written.
 */
import { Effect } from "effect"
import { BadRequest } from "../../../schemas/gateway/GatewayErrors.ts"
import { type GatewayTool, type ToolContext, ToolFailed } from "./GatewayTool.ts"
import { McpClients, parseMcpToolName } from "./McpClients.ts"
import { McpServers } from "./McpServers.ts"
import { NativeTools } from "./NativeTools.ts"

export class ToolRegistry extends Effect.Service<ToolRegistry>()("gateway/ToolRegistry", {
  effect: Effect.gen(function*() {
    const native = yield* NativeTools
    const servers = yield* McpServers
    const mcp = yield* McpClients

    /** One named tool: an unknown MCP server is MCP_SERVER_NOT_FOUND, a tool it lacks or any other name a ToolFailed. */
    const named = (name: string, context: ToolContext) => {
      const reference = parseMcpToolName(name)
      if (reference !== undefined) return mcp.named(reference.serverId, reference.tool)
      const tool = native.named(name, context)
      return tool === undefined
        ? Effect.fail(new ToolFailed({ message: `unknown tool '${name}'` }))
        : Effect.succeed<GatewayTool>(tool)
    }

    return {
      /** GET /admin/tools. */
      listNative: () => native.list(),

      /** The tools an agent or a TOOL node names, bound to `context`. */
      resolve: (names: ReadonlyArray<string>, context: ToolContext) =>
        Effect.forEach(names, (name) => named(name, context)),

      /**
       * What a request is offered: the native tools its context allows, and the tools of the
       * tenant's servers marked `useInRequests`; a server that cannot be reached is left out (logged),
       * the request goes on without its tools.
       */
      forRequest: Effect.fn("ToolRegistry.forRequest")(function*(context: ToolContext) {
        const configs = yield* servers.inRequests()
        const remote = yield* Effect.forEach(configs, (config) =>
          mcp.toolsOf([config]).pipe(
            Effect.catchAll((error) =>
              Effect.logWarning(`MCP server '${config.server.id}' left out of a request: ${error.message}`).pipe(
                Effect.as([])
              )
            )
          ), { concurrency: "unbounded" })
        return [...native.offered(context), ...remote.flat()]
      }),

      /**
       * The names an agent lists, checked when it is written: a native tool, or a tool of an MCP
       * server the tenant has (MCP_SERVER_NOT_FOUND otherwise); the server is not asked, it may be away.
       */
      check: Effect.fn("ToolRegistry.check")(function*(names: ReadonlyArray<string>) {
        for (const name of names) {
          const reference = parseMcpToolName(name)
          if (reference !== undefined) yield* servers.get(reference.serverId)
          else if (!native.isNative(name)) {
            return yield* new BadRequest({
              message: `unknown tool '${name}': a native tool (${
                native.list().map((t) => t.name).join(", ")
              }) or mcp:<server>/<tool>`
            })
          }
        }
      })
    }
  }),
  dependencies: [NativeTools.Default, McpServers.Default, McpClients.Default]
}) {}
