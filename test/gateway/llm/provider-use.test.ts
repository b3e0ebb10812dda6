/**
 * Which provider configuration a request uses, with its key decrypted (the only place a key is
 * ever read back): the one named, the tenant's default, or its only one.
 */
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { GatewayServicesLive } from "../../../src/layers/Gateway.ts"
import { InfrastructureLive } from "../../../src/layers/Infrastructure.ts"
import { newDataDir } from "../../../src/layers/Test.ts"
import { ProviderConfigInput } from "../../../src/schemas/gateway/LlmProviders.ts"
import { CurrentPrincipal, Principal } from "../../../src/schemas/gateway/Tenancy.ts"
import { ProviderConfigs } from "../../../src/services/gateway/llm/ProviderConfigs.ts"

const services = GatewayServicesLive.pipe(
  Layer.provideMerge(InfrastructureLive),
  Layer.provide(
    Layer.setConfigProvider(
      ConfigProvider.fromMap(new Map([["DATA_DIR", newDataDir()], ["GATEWAY_MASTER_KEY", "a test master key"]]))
    )
  )
)

/** What a request of a user of `tenantId` does, as the principal the authentication gives it. */
const asTenant = (tenantId: string) =>
  Effect.provideService(CurrentPrincipal, new Principal({ tenantId, userId: "u1", roles: [], isAdmin: true }))

layer(services, { timeout: 60_000 })("ProviderConfigs.forUse", (it) => {
  it.effect("names, defaults, the only one, and none", () =>
    Effect.gen(function*() {
      const configs = yield* ProviderConfigs
      const none = yield* configs.forUse(undefined).pipe(asTenant("t1"), Effect.flip)
      expect(none._tag).toBe("LLM_PROVIDER_NOT_FOUND")

      yield* configs.create(
        ProviderConfigInput.make({ id: "a", type: "openai", model: "m1", apiKey: "sk-secret-key-aaaa" })
      ).pipe(asTenant("t1"))
      const only = yield* configs.forUse(undefined).pipe(asTenant("t1"))
      expect(only.config.id).toBe("a")
      expect(only.apiKey).toBe("sk-secret-key-aaaa")
      expect(only.config.apiKey).toBe("****aaaa")

      yield* configs.create(ProviderConfigInput.make({ id: "b", type: "anthropic", model: "m2" })).pipe(asTenant("t1"))
      expect((yield* configs.forUse(undefined).pipe(asTenant("t1"), Effect.flip)).message).toMatch(
        /none is the default/
      )
      expect((yield* configs.forUse("b").pipe(asTenant("t1"))).apiKey).toBeNull()
      yield* configs.update("b", ProviderConfigInput.make({ id: "b", type: "anthropic", model: "m2", isDefault: true }))
        .pipe(asTenant("t1"))
      expect((yield* configs.forUse(undefined).pipe(asTenant("t1"))).config.id).toBe("b")
      // Another tenant sees none of it.
      expect((yield* configs.forUse("a").pipe(asTenant("t2"), Effect.flip))._tag).toBe("LLM_PROVIDER_NOT_FOUND")
    }))
})
