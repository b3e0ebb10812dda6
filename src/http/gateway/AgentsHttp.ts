import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Agents } from "../../services/gateway/agents/Agents.ts"
import { GatewayApi } from "./Api.ts"

export const AdminAgentsHttpLive = HttpApiBuilder.group(
  GatewayApi,
  "adminAgents",
  (handlers) =>
    Effect.gen(function*() {
      const agents = yield* Agents
      return handlers
        .handle("list", () => agents.list())
        .handle("get", ({ path }) => agents.get(path.id))
        .handle("create", ({ payload }) => agents.create(payload))
        .handle("update", ({ path, payload }) => agents.update(path.id, payload))
        .handle("remove", ({ path }) => agents.remove(path.id))
    })
)
