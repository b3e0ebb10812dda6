import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { ProviderConfigs } from "../../services/gateway/llm/ProviderConfigs.ts"
import { GatewayApi } from "./Api.ts"

export const AdminLlmHttpLive = HttpApiBuilder.group(GatewayApi, "adminLlm", (handlers) =>
  Effect.gen(function*() {
    const configs = yield* ProviderConfigs
    return handlers
      .handle("types", () => Effect.succeed(configs.types))
      .handle("extraParams", ({ path }) => configs.extraParams(path.name))
      .handle("list", () => configs.list())
      .handle("get", ({ path }) => configs.get(path.id))
      .handle("create", ({ payload }) => configs.create(payload))
      .handle("update", ({ path, payload }) => configs.update(path.id, payload))
      .handle("remove", ({ path }) => configs.remove(path.id))
  }))
