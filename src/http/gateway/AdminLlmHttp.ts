import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { CurrentPrincipal } from "../../schemas/gateway/Tenancy.ts"
import { ProviderConfigs } from "../../services/gateway/llm/ProviderConfigs.ts"
import { GatewayApi } from "./Api.ts"

export const AdminLlmHttpLive = HttpApiBuilder.group(GatewayApi, "adminLlm", (handlers) =>
  Effect.gen(function*() {
    const configs = yield* ProviderConfigs
    const tenant = CurrentPrincipal.pipe(Effect.map((principal) => principal.tenantId))
    return handlers
      .handle("types", () => Effect.succeed(configs.types))
      .handle("extraParams", ({ path }) => configs.extraParams(path.name))
      .handle("list", () => tenant.pipe(Effect.flatMap(configs.list)))
      .handle("get", ({ path }) => tenant.pipe(Effect.flatMap((tenantId) => configs.get(tenantId, path.id))))
      .handle("create", ({ payload }) => tenant.pipe(Effect.flatMap((tenantId) => configs.create(tenantId, payload))))
      .handle("update", ({ path, payload }) => tenant.pipe(Effect.flatMap((tenantId) => configs.update(tenantId, path.id, payload))))
      .handle("remove", ({ path }) => tenant.pipe(Effect.flatMap((tenantId) => configs.remove(tenantId, path.id))))
  }))
