import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { McpClients } from "../../services/gateway/tools/McpClients.ts"
import { McpServers } from "../../services/gateway/tools/McpServers.ts"
import { ToolRegistry } from "../../services/gateway/tools/ToolRegistry.ts"
import { GatewayApi } from "./Api.ts"

export const AdminToolsHttpLive = HttpApiBuilder.group(
  GatewayApi,
  "adminTools",
  (handlers) =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      return handlers.handle("list", () => Effect.sync(() => registry.listNative()))
    })
)

export const AdminMcpHttpLive = HttpApiBuilder.group(
  GatewayApi,
  "adminMcp",
  (handlers) =>
    Effect.gen(function*() {
      const servers = yield* McpServers
      const clients = yield* McpClients
      return handlers
        .handle("list", () => servers.list())
        .handle("get", ({ path }) => servers.get(path.id))
        .handle("create", ({ payload }) => servers.create(payload))
        .handle("update", ({ path, payload }) => servers.update(path.id, payload))
        .handle("remove", ({ path }) => servers.remove(path.id))
        .handle("tools", ({ path }) => clients.test(path.id))
    })
)
